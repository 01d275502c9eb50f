package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end of the input ({@code finish}), observation without an event ({@code observe}), and what a
 * throwing timer leaves behind: the event is fully accounted and every window the move closed is
 * finalized.
 */
class TumblingWindowsEndAndFailureTest {

  static TumblingWindows<String, Long, Long> windows(Duration lateness, ManualClock clock) {
    return TumblingWindows.builder(Duration.ofMillis(1_000), Aggregators.sumLong())
        .allowedLateness(lateness)
        .clock(clock)
        .build();
  }

  @Test
  void finishClosesEveryWindowUnderLatenessForeverAndAtTheLongBoundsAndMakesLaterEventsLate() {
    TumblingWindows<String, Long, Long> w =
        windows(ChronoUnit.FOREVER.getDuration(), new ManualClock());
    w.add("s", Long.MIN_VALUE, "k", 1L);
    w.add("s", 500, "k", 1L);
    w.add("s", Long.MAX_VALUE, "k", 1L);
    w.finish();
    assertThat(w.watermark()).isEqualTo(Long.MAX_VALUE);
    assertThat(w.pollFinalized())
        .extracting(WindowResult::end)
        .containsExactly(
            Long.MIN_VALUE + 1_000 - Math.floorMod(Long.MIN_VALUE, 1_000L), 1_000L, Long.MAX_VALUE);
    assertThat(w.add("s", 0, "k", 1L)).isFalse();
    assertThat(w.stats().late()).isEqualTo(1);
    w.finish(); // idempotent
    assertThat(w.pollFinalized()).isEmpty();
  }

  @Test
  void observeMovesTheWatermarkLikeAnEventWithoutAddingOne() {
    TumblingWindows<String, Long, Long> w = windows(Duration.ZERO, new ManualClock());
    w.add("s", 500, "k", 1L);
    w.observe("s", 1_500);
    assertThat(w.watermark()).isEqualTo(1_500);
    assertThat(w.pollFinalized()).containsExactly(new WindowResult<>(0, 1_000, "k", 1L));
    assertThat(w.stats().added()).isEqualTo(1);
    assertThat(w.events()).isEqualTo(1);
    w.observe(w.source("s"), 2_500); // through a handle
    assertThat(w.watermark()).isEqualTo(2_500);
  }

  @Test
  void observeLateCountsTheEventLateWhateverTheWatermarkAndMovesTheWatermark() {
    TumblingWindows<String, Long, Long> w = windows(Duration.ZERO, new ManualClock());
    w.add("s", 500, "k", 1L);
    w.observeLate(w.source("s"), 1_500); // ahead of the watermark, and still late
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.lateBySource()).containsEntry("s", 1L);
    assertThat(w.watermark()).isEqualTo(1_500);
    assertThat(w.pollFinalized()).containsExactly(new WindowResult<>(0, 1_000, "k", 1L));
    TumblingWindows<String, Long, Long> other = windows(Duration.ZERO, new ManualClock());
    assertThatThrownBy(() -> w.observeLate(other.source("s"), 2_000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(w.stats().late()).as("a rejected call changes nothing").isEqualTo(1);
  }

  /**
   * Regression: after {@code add(s, 500)}, a timer at 1,000 that throws and {@code add(s, 2_500)},
   * the watermark was 2,500 but {@code pollFinalized()} returned nothing for the closed window.
   */
  @Test
  void aThrowingTimerLeavesTheAcceptedEventInAndTheClosedWindowFinalized() {
    TumblingWindows<String, Long, Long> w = windows(Duration.ZERO, new ManualClock());
    w.add("s", 500, "k", 1L);
    w.registerTimer(
        1_000,
        (time, watermark) -> {
          throw new IllegalStateException("timer");
        });
    long before = w.events();
    assertThatThrownBy(() -> w.add("s", 2_500, "k", 1L)).hasMessage("timer");
    assertThat(w.events()).as("the event was taken before the timer threw").isEqualTo(before + 1);
    assertThat(w.watermark()).isEqualTo(2_500);
    assertThat(w.stats().openWindows()).isEqualTo(1);
    assertThat(w.pollFinalized()).containsExactly(new WindowResult<>(0, 1_000, "k", 1L));
  }

  @Test
  void aTimerSeesTheWindowsThatItsWatermarkClosed() {
    TumblingWindows<String, Long, Long> w = windows(Duration.ZERO, new ManualClock());
    w.add("s", 500, "k", 1L);
    List<Long> finalizedWhenFired = new ArrayList<>();
    w.registerTimer(
        1_000, (time, watermark) -> finalizedWhenFired.add(w.stats().finalizedWindows()));
    w.add("s", 999, "k", 1L);
    assertThat(finalizedWhenFired).as("the watermark has not reached 1000").isEmpty();
    w.add("s", 1_000, "k", 1L); // watermark 1000: [0, 1000) closes, then the timer fires
    assertThat(finalizedWhenFired).containsExactly(1L);
    assertThat(w.pollFinalized()).containsExactly(new WindowResult<>(0, 1_000, "k", 2L));
  }

  /**
   * Regression: a late event whose own observation retired an idle source and fired a throwing
   * timer was observed, but not counted as late, not in {@code lateBySource()}, and never handed to
   * the late handler.
   */
  @Test
  void aLateEventWhoseObservationFiresAThrowingTimerIsStillCountedAndHandedOver() {
    ManualClock clock = new ManualClock();
    List<Long> handed = new ArrayList<>();
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(1_000), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .idleTimeout(Duration.ofSeconds(10))
            .clock(clock)
            .lateEventHandler((source, t, end, watermark, key, value) -> handed.add(t))
            .build();
    w.add("slow", 1_500, "k", 1L);
    w.add("fast", 5_500, "k", 1L); // watermark 1,500
    w.registerTimer(
        5_000,
        (time, watermark) -> {
          throw new IllegalStateException("timer");
        });
    clock.advance(Duration.ofSeconds(11)); // "slow" is idle as of the next re-evaluation
    assertThatThrownBy(() -> w.add("fast", 200, "k", 1L)).hasMessage("timer");
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.lateBySource()).containsEntry("fast", 1L);
    assertThat(handed).containsExactly(200L);
    assertThat(w.watermark()).isEqualTo(5_500);
    assertThat(w.pollFinalized()).extracting(WindowResult::end).containsExactly(2_000L);
  }

  /**
   * When the late event's observation fires a throwing timer and the late handler throws as well,
   * the timer's exception propagates with the handler's attached as suppressed: neither is lost.
   */
  @Test
  void aLateHandlerThatThrowsAfterAThrowingTimerIsSuppressedInTheTimersException() {
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(1_000), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .idleTimeout(Duration.ofSeconds(10))
            .clock(clock)
            .lateEventHandler(
                (source, t, end, watermark, key, value) -> {
                  throw new IllegalArgumentException("handler");
                })
            .build();
    w.add("slow", 1_500, "k", 1L);
    w.add("fast", 5_500, "k", 1L); // watermark 1,500
    w.registerTimer(
        5_000,
        (time, watermark) -> {
          throw new IllegalStateException("timer");
        });
    clock.advance(Duration.ofSeconds(11)); // "slow" is idle as of the next re-evaluation
    assertThatThrownBy(() -> w.add("fast", 200, "k", 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("timer")
        .satisfies(
            e ->
                assertThat(e.getSuppressed())
                    .singleElement()
                    .isInstanceOf(IllegalArgumentException.class)
                    .extracting(Throwable::getMessage)
                    .isEqualTo("handler"));
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.pollFinalized()).extracting(WindowResult::end).containsExactly(2_000L);
  }

  @Test
  void beforeAnyEventThereIsNoWatermarkToFinishFrom() {
    TumblingWindows<String, Long, Long> w = windows(Duration.ZERO, new ManualClock());
    assertThat(w.watermark()).isEqualTo(WatermarkTracker.NO_WATERMARK);
    w.finish();
    assertThat(w.watermark()).isEqualTo(Long.MAX_VALUE);
    assertThat(w.pollFinalized()).isEmpty();
  }

  /**
   * Regression: an aggregator whose result() threw lost the windows already taken off the queue.
   */
  @Test
  void anAggregatorWhoseResultThrowsLosesNoWindowAndTheCallCanBeRetried() {
    boolean[] failing = {true};
    Aggregator<Long, long[], Long> flaky =
        Aggregators.of(
            () -> new long[1],
            (acc, v) -> {
              acc[0] += v;
              return acc;
            },
            acc -> {
              if (failing[0] && acc[0] == 2) {
                throw new IllegalStateException("result failed");
              }
              return acc[0];
            });
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(1_000), flaky)
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    w.add("s", 100, "a", 1L);
    w.add("s", 1_100, "b", 1L);
    w.add("s", 1_200, "b", 1L);
    w.add("s", 2_500, "c", 1L); // closes [0, 1000) and [1000, 2000)
    assertThatThrownBy(w::pollFinalized).hasMessage("result failed");
    failing[0] = false;
    assertThat(w.pollFinalized())
        .containsExactly(
            new WindowResult<>(0, 1_000, "a", 1L), new WindowResult<>(1_000, 2_000, "b", 2L));
    assertThat(w.pollFinalized()).isEmpty();
  }
}
