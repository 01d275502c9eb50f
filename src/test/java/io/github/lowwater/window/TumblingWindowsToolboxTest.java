package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkStrategy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The future-timestamp guard, per-source late accounting, lag and the delegated toolbox. */
class TumblingWindowsToolboxTest {

  private static final long SIZE = 60_000;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));
  private final long now = clock.wallMillis();
  private final List<String> late = new ArrayList<>();

  private TumblingWindows.Builder<Long, Long> builder() {
    return TumblingWindows.builder(Duration.ofMillis(SIZE), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(clock)
        .lateEventHandler(
            (s, t, end, wm, k, v) -> late.add(s + "@" + t + (end > wm ? " future" : "")));
  }

  @Test
  void futureEventIsAcceptedWithoutMovingTheFrontierByDefault() {
    TumblingWindows<String, Long, Long> w = builder().maxFutureSkew(Duration.ofMinutes(1)).build();
    w.add("fleet", now, "k", 1L);
    assertThat(w.add("fast-device", now + 60_000, "k", 1L)).as("exactly at the limit").isTrue();
    assertThat(w.frontier("fast-device")).isEqualTo(now + 60_000);
    assertThat(w.add("broken-device", now + 60_001, "k", 1L)).isTrue();
    assertThat(w.frontier("broken-device")).isEqualTo(Long.MIN_VALUE);
    assertThat(w.stats().futureEvents()).isEqualTo(1);
    assertThat(w.stats().accepted()).isEqualTo(3);
    assertThat(w.futureBySource()).containsExactly(entry("broken-device", 1L));
    assertThat(w.activeSources()).as("future events are not activity").isEqualTo(2);
    w.add("fleet", now + SIZE, "k", 1L);
    w.add("fast-device", now + SIZE, "k", 1L);
    assertThat(w.watermark()).as("the broken device holds nothing back").isEqualTo(now + SIZE);
  }

  @Test
  void futureEventGoesToTheLatePathUnderTheLatePolicy() {
    TumblingWindows<String, Long, Long> w =
        builder()
            .maxFutureSkew(Duration.ofSeconds(30))
            .futureEventPolicy(FutureEventPolicy.LATE)
            .build();
    w.add("fleet", now, "k", 1L);
    assertThat(w.add("device", now + Duration.ofDays(1).toMillis(), "k", 1L)).isFalse();
    assertThat(late).containsExactly("device@" + (now + Duration.ofDays(1).toMillis()) + " future");
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.stats().futureEvents()).isEqualTo(1);
    assertThat(w.stats().openWindows()).isEqualTo(1);
    assertThat(w.lateBySource()).containsExactly(entry("device", 1L));
  }

  /**
   * Regression: an event both beyond the guard and behind the watermark took the late path only: it
   * moved its source's frontier, counted as activity and was not counted as future.
   */
  @Test
  void anEventFromTheFutureAndBehindTheWatermarkIsFutureAndLateButNeverActivity() {
    for (FutureEventPolicy policy : FutureEventPolicy.values()) {
      late.clear();
      TumblingWindows<String, Long, Long> w =
          builder().maxFutureSkew(Duration.ofMinutes(5)).futureEventPolicy(policy).build();
      w.add("fleet", now + 2 * SIZE, "k", 1L);
      clock.jumpWall(Duration.ofDays(-1)); // the watermark is now a day ahead of the wall clock
      assertThat(w.add("device", now, "k", 1L)).as("%s", policy).isFalse();
      assertThat(w.stats().futureEvents()).as("%s", policy).isEqualTo(1);
      assertThat(w.stats().late()).as("%s", policy).isEqualTo(1);
      assertThat(w.frontier("device")).as("%s", policy).isEqualTo(Long.MIN_VALUE);
      assertThat(w.activeSources()).as("%s", policy).isEqualTo(1);
      assertThat(late).as("%s", policy).containsExactly("device@" + now);
      clock.jumpWall(Duration.ofDays(1));
    }
  }

  @Test
  void lateCountsArePerSourceAndWithoutAHandlerToo() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(SIZE), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build();
    w.add("p0", now, "k", 1L);
    w.add("p1", now - 2 * SIZE, "k", 1L);
    w.add("p1", now - 3 * SIZE, "k", 1L);
    w.add("p2", now - 2 * SIZE, "k", 1L);
    assertThat(w.lateBySource()).containsOnly(entry("p1", 2L), entry("p2", 1L));
    assertThat(w.stats().late()).isEqualTo(3);
    assertThat(w.futureBySource()).isEmpty();
  }

  @Test
  void watermarkLagIsWallMinusWatermark() {
    TumblingWindows<String, Long, Long> w = builder().build();
    assertThat(w.watermarkLagMillis()).isEqualTo(Long.MAX_VALUE);
    w.add("p0", now - 90_000, "k", 1L);
    assertThat(w.watermarkLagMillis()).isEqualTo(90_000);
  }

  @Test
  void punctuationAndLookaheadFinalizeWindowsTheyPass() {
    TumblingWindows<String, Long, Long> w = builder().build();
    w.add("p0", 10, "k", 1L);
    w.add("p1", 10, "k", 1L);
    w.punctuate("p0", SIZE);
    assertThat(w.pollFinalized()).isEmpty();
    w.lookahead("p1", SIZE + 5, SIZE + 50);
    assertThat(w.pollFinalized())
        .extracting(WindowResult::end, WindowResult::value)
        .containsExactly(tuple(SIZE, 2L));
  }

  @Test
  void punctuatedStrategyClosesWindowsOnlyOnPunctuation() {
    TumblingWindows<String, Long, Long> w =
        builder().strategy(WatermarkStrategy.PUNCTUATED).build();
    w.add("p0", 10, "k", 1L);
    w.add("p0", 5 * SIZE, "k", 1L);
    assertThat(w.pollFinalized()).isEmpty();
    w.punctuate("p0", SIZE);
    assertThat(w.pollFinalized()).extracting(WindowResult::end).containsExactly(SIZE);
  }

  @Test
  void timerFiresFromTheAddThatMovesTheWatermark() {
    TumblingWindows<String, Long, Long> w = builder().build();
    List<Long> fired = new ArrayList<>();
    w.registerTimer(SIZE, (t, wm) -> fired.add(wm));
    w.add("p0", SIZE - 1, "k", 1L);
    assertThat(fired).isEmpty();
    w.add("p0", SIZE, "k", 1L);
    assertThat(fired).containsExactly(SIZE);
  }

  @Test
  void futureGuardOptionsAreValidated() {
    TumblingWindows.Builder<Long, Long> b = builder();
    assertThatThrownBy(() -> b.maxFutureSkew(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFutureSkew must be >= 0: PT-0.001S");
    assertThatThrownBy(() -> b.futureEventPolicy(null)).hasMessage("futureEventPolicy");
    b.futureEventPolicy(FutureEventPolicy.ACCEPT);
    assertThatThrownBy(() -> b.futureEventPolicy(FutureEventPolicy.LATE))
        .hasMessage("futureEventPolicy was already set to ACCEPT");
  }

  @Test
  void handleAddsLikeItsKeyAndHandlersSeeTheKey() {
    TumblingWindows<String, Long, Long> w = builder().build();
    var p0 = w.source("p0");
    assertThat(w.add(p0, now, "k", 2L)).isTrue();
    assertThat(w.add((Object) p0, now + 1, "k", 3L)).isTrue();
    assertThat(w.add("p0", now + 2, "k", 4L)).isTrue();
    assertThat(w.frontier("p0")).isEqualTo(now + 2);
    assertThat(w.add(p0, now - 2 * SIZE, "k", 1L)).isFalse();
    assertThat(late).containsExactly("p0@" + (now - 2 * SIZE));
    assertThat(w.lateBySource()).containsExactly(entry("p0", 1L));
    w.advanceTo(Long.MAX_VALUE);
    assertThat(w.pollFinalized()).extracting(WindowResult::value).containsExactly(9L);
  }

  @Test
  void handleOfOtherWindowsIsRejectedAndChangesNothing() {
    TumblingWindows<String, Long, Long> w = builder().build();
    TumblingWindows<String, Long, Long> other = builder().build();
    var foreign = other.source("p0");
    assertThatThrownBy(() -> w.add(foreign, now, "k", 1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("source handle belongs to other windows: p0");
    assertThat(w.stats().accepted()).isZero();
    assertThat(w.stats().openWindows()).isZero();
  }
}
