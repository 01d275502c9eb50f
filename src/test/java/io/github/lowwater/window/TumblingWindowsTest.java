package io.github.lowwater.window;

import static io.github.lowwater.WatermarkTracker.NO_WATERMARK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The window rules of {@link TumblingWindows}, each at its edge, with a {@link ManualClock}. */
class TumblingWindowsTest {

  private final ManualClock clock = new ManualClock();
  private final List<String> lateEvents = new ArrayList<>();
  private final TumblingWindows<String, Long, Long> windows =
      TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
          .allowedLateness(Duration.ZERO)
          .idleTimeout(Duration.ofSeconds(1))
          .clock(clock)
          .lateEventHandler(
              (source, t, end, watermark, key, value) ->
                  lateEvents.add(source + "@" + t + " end=" + end + " wm=" + watermark + " " + key))
          .build();

  /** The snippet of the core issue, verbatim: it must compile and work as it reads. */
  @Test
  void quickStartSnippetCompilesAndWorks() {
    long eventTimeMillis = 1_700_000_000_000L;
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(2))
            .idleTimeout(Duration.ofMinutes(2))
            .clock(clock)
            .build();
    boolean accepted = w.add("arrival_predictions-3", eventTimeMillis, "line:L1", 1L);
    assertThat(accepted).isTrue();
    assertThat(w.watermark()).isEqualTo(eventTimeMillis - 120_000);
  }

  @Nested
  class Alignment {

    @Test
    void windowsAreFloorAlignedAcrossZero() {
      windows.add("p", -1, "k", 1L);
      windows.add("p", 0, "k", 2L);
      windows.add("p", 9, "k", 4L);
      windows.add("p", 10, "k", 8L);
      windows.advanceTo(1_000);
      assertThat(windows.pollFinalized())
          .extracting(WindowResult::start, WindowResult::end, WindowResult::value)
          .containsExactly(tuple(-10L, 0L, 1L), tuple(0L, 10L, 6L), tuple(10L, 20L, 8L));
    }

    @Test
    void eventAtLongMinValueGetsASaturatedWindow() {
      windows.add("p", Long.MIN_VALUE, "k", 1L);
      windows.advanceTo(Long.MAX_VALUE);
      List<WindowResult<String, Long>> results = windows.pollFinalized();
      assertThat(results).hasSize(1);
      assertThat(results.get(0).start()).isEqualTo(Long.MIN_VALUE);
      assertThat(results.get(0).end())
          .isEqualTo(Long.MIN_VALUE + 10 - Math.floorMod(Long.MIN_VALUE, 10L));
    }

    @Test
    void eventAtLongMaxValueGetsAWindowEndingAtLongMaxValue() {
      windows.add("p", Long.MAX_VALUE, "k", 1L);
      assertThat(windows.watermark()).isEqualTo(Long.MAX_VALUE);
      List<WindowResult<String, Long>> results = windows.pollFinalized();
      assertThat(results)
          .extracting(WindowResult::start, WindowResult::end)
          .containsExactly(
              tuple(Long.MAX_VALUE - Math.floorMod(Long.MAX_VALUE, 10L), Long.MAX_VALUE));
    }

    @Test
    void windowEndIsTheExclusiveEndOfTheWindowHoldingAnEventTime() {
      assertThat(windows.windowEnd(-11)).isEqualTo(-10);
      assertThat(windows.windowEnd(-10)).isEqualTo(0);
      assertThat(windows.windowEnd(-1)).isEqualTo(0);
      assertThat(windows.windowEnd(0)).isEqualTo(10);
      assertThat(windows.windowEnd(9)).isEqualTo(10);
      assertThat(windows.windowEnd(10)).isEqualTo(20);
      assertThat(windows.windowEnd(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
      assertThat(windows.windowEnd(Long.MIN_VALUE))
          .isEqualTo(Long.MIN_VALUE + 10 - Math.floorMod(Long.MIN_VALUE, 10L));
    }

    @Test
    void windowEndAnswersFromThePreviousEventsWindowOnlyInsideIt() {
      windows.add("p", 15, "k", 1L); // the last event's window is [10, 20)
      assertThat(windows.windowEnd(9)).isEqualTo(10);
      assertThat(windows.windowEnd(10)).isEqualTo(20);
      assertThat(windows.windowEnd(19)).isEqualTo(20);
      assertThat(windows.windowEnd(20)).isEqualTo(30);
      windows.add("p", Long.MAX_VALUE - 1, "k", 1L); // the saturated last window
      assertThat(windows.windowEnd(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE);
      assertThat(windows.windowEnd(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
      assertThat(windows.windowEnd(15)).isEqualTo(20);
    }
  }

  @Nested
  class Lateness {

    @Test
    void eventIsAcceptedWhileItsWindowEndIsAboveTheWatermark() {
      windows.add("p", 19, "k", 1L); // watermark 19
      assertThat(windows.add("other", 10, "k", 1L)).isTrue(); // end 20 > 19
    }

    @Test
    void eventIsLateOnceTheWatermarkReachesItsWindowEnd() {
      windows.add("p", 20, "k", 1L); // watermark 20
      assertThat(windows.add("p", 19, "k", 1L)).isFalse(); // end 20 <= 20
      assertThat(lateEvents).containsExactly("p@19 end=20 wm=20 k");
      assertThat(windows.stats().late()).isEqualTo(1);
      assertThat(windows.stats().accepted()).isEqualTo(1);
    }

    /**
     * Lateness is judged against the watermark at arrival, before the event's own observation: here
     * the event's arrival retires an idle source and finalizes its window, with the event inside.
     */
    @Test
    void eventIsJudgedBeforeItsOwnObservation() {
      windows.add("a", 0, "k", 1L);
      windows.add("b", 100, "k", 1L);
      assertThat(windows.watermark()).isZero();
      clock.advance(Duration.ofMillis(1_001)); // a and b are past the timeout, not yet evaluated
      assertThat(windows.add("b", 50, "k", 5L)).isTrue(); // end 60 > 0
      assertThat(windows.watermark()).isEqualTo(100); // a retired, b is active again
      assertThat(windows.pollFinalized())
          .extracting(WindowResult::start, WindowResult::value)
          .containsExactly(tuple(0L, 1L), tuple(50L, 5L));
    }

    @Test
    void addReturnsWhetherTheEventWentIntoItsWindowThroughEveryEntryPoint() {
      WatermarkTracker.Source p = windows.source("p");
      assertThat(windows.add(p, 15, "k", 1L)).isTrue(); // watermark 15
      assertThat(windows.add(p, 5, "k", 1L)).as("end 10 <= 15").isFalse();
      assertThat(windows.add((Object) p, 6, "k", 1L)).as("a handle as an Object").isFalse();
      assertThat(windows.add(25, "k", 1L)).as("the implicit source; end 30 > 15").isTrue();
      assertThat(windows.add(9, "k", 1L)).as("end 10 <= 15").isFalse();
      assertThat(windows.stats().accepted()).isEqualTo(2);
      assertThat(windows.stats().late()).isEqualTo(3);
      assertThat(windows.events()).as("accepted plus late").isEqualTo(5);
      assertThat(lateEvents)
          .containsExactly(
              "p@5 end=10 wm=15 k",
              "p@6 end=10 wm=15 k",
              "TumblingWindows.IMPLICIT_SOURCE@9 end=10 wm=15 k");
    }

    @Test
    void lateEventStillCountsAsActivityOfItsSource() {
      windows.add("quiet", 0, "k", 1L);
      clock.advance(Duration.ofMillis(1_001));
      windows.add("busy", 500, "k", 1L);
      assertThat(windows.watermark()).isEqualTo(500);
      assertThat(windows.add("quiet", 5, "k", 1L)).isFalse();
      assertThat(windows.activeSources()).isEqualTo(2);
      windows.add("busy", 900, "k", 1L);
      assertThat(windows.watermark()).as("quiet is active and holds").isEqualTo(500);
    }

    @Test
    void lateHandlerExceptionPropagatesAfterTheEventIsCounted() {
      TumblingWindows<String, Long, Long> w =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
              .allowedLateness(Duration.ZERO)
              .clock(clock)
              .lateEventHandler(
                  (s, t, end, wm, k, v) -> {
                    throw new IllegalStateException("sink down");
                  })
              .build();
      w.add("p", 100, "k", 1L);
      assertThatThrownBy(() -> w.add("p", 5, "k", 1L)).hasMessage("sink down");
      assertThat(w.stats().late()).isEqualTo(1);
      assertThat(w.stats().added()).isEqualTo(2);
    }

    @Test
    void withoutAHandlerLateEventsAreCounted() {
      TumblingWindows<String, Long, Long> w =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
              .allowedLateness(Duration.ZERO)
              .clock(clock)
              .build();
      w.add(100, "k", 1L);
      assertThat(w.add(5, "k", 1L)).isFalse();
      assertThat(w.stats().late()).isEqualTo(1);
    }
  }

  @Nested
  class Finalization {

    @Test
    void windowIsFinalizedWhenTheWatermarkReachesItsEndExactly() {
      windows.add("p", 5, "k", 1L);
      windows.add("p", 9, "k", 1L); // watermark 9 < end 10
      assertThat(windows.pollFinalized()).isEmpty();
      windows.add("p", 10, "k", 1L); // watermark 10 >= end 10
      assertThat(windows.pollFinalized())
          .extracting(
              WindowResult::start, WindowResult::end, WindowResult::key, WindowResult::value)
          .containsExactly(tuple(0L, 10L, "k", 2L));
    }

    @Test
    void eachWindowIsEmittedOnceInAscendingEndOrderWithKeysInFirstSeenOrder() {
      windows.register("slow");
      windows.add("fast", 25, "b", 1L);
      windows.add("fast", 5, "z", 1L);
      windows.add("fast", 15, "y", 1L);
      windows.add("fast", 6, "a", 1L);
      windows.add("fast", 7, "z", 1L);
      assertThat(windows.pollFinalized()).isEmpty(); // "slow" holds everything
      windows.add("slow", 26, "c", 1L);
      assertThat(windows.pollFinalized())
          .extracting(WindowResult::end, WindowResult::key, WindowResult::value)
          .containsExactly(tuple(10L, "z", 2L), tuple(10L, "a", 1L), tuple(20L, "y", 1L));
      assertThat(windows.pollFinalized()).isEmpty();
      windows.advanceTo(30);
      assertThat(windows.pollFinalized())
          .extracting(WindowResult::end, WindowResult::key)
          .containsExactly(tuple(30L, "b"), tuple(30L, "c"));
      assertThat(windows.stats().finalizedWindows()).isEqualTo(3);
    }

    @Test
    void advanceToClosesTheLastWindowNotAMillisecondBeforeEndPlusLateness() {
      ManualClock c = new ManualClock();
      TumblingWindows<String, Long, Long> w =
          TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
              .allowedLateness(Duration.ofMinutes(2))
              .clock(c)
              .build();
      long end = Duration.ofMinutes(5).toMillis();
      w.add("p", end - 1, "k", 1L);
      w.advanceTo(end + Duration.ofMinutes(2).toMillis() - 1);
      assertThat(w.pollFinalized()).isEmpty();
      w.advanceTo(end + Duration.ofMinutes(2).toMillis());
      assertThat(w.pollFinalized()).extracting(WindowResult::end).containsExactly(end);
    }

    @Test
    void removeRefreshHeartbeatAndSeedFinalizeWindowsTheyPass() {
      windows.add("slow", 5, "k", 1L);
      windows.add("fast", 50, "k", 1L);
      assertThat(windows.remove("slow")).isTrue();
      assertThat(windows.pollFinalized()).extracting(WindowResult::end).containsExactly(10L);

      windows.add("fast", 60, "k", 1L);
      clock.advance(Duration.ofMillis(1_001));
      windows.refresh();
      assertThat(windows.activeSources()).isZero();

      clock.advanceMillis(10_000);
      windows.seedWatermark(70);
      assertThat(windows.pollFinalized()).extracting(WindowResult::end).containsExactly(60L, 70L);
      windows.heartbeat("fast");
      assertThat(windows.activeSources()).isEqualTo(1);
      assertThat(windows.frontier("fast")).isEqualTo(60);
    }

    @Test
    void removeReportsWhetherTheSourceWasKnown() {
      windows.add("p", 5, "k", 1L);
      assertThat(windows.remove("unknown")).isFalse();
      assertThat(windows.remove("p")).isTrue();
      assertThat(windows.remove("p")).isFalse();
    }

    @Test
    void aSourceIsActiveUntilItIsSilentForLongerThanTheIdleTimeout() {
      assertThat(windows.isActive("p")).as("unknown").isFalse();
      windows.add("p", 5, "k", 1L);
      assertThat(windows.isActive("p")).isTrue();
      clock.advance(Duration.ofMillis(1_001));
      windows.refresh();
      assertThat(windows.isActive("p")).isFalse();
    }

    /** An aggregator may return a new accumulator from each {@code add}: the new one is kept. */
    @Test
    void anAggregatorThatReturnsANewAccumulatorPerValueKeepsEveryValue() {
      Aggregator<String, String, String> concat =
          new Aggregator<>() {
            @Override
            public String create() {
              return "";
            }

            @Override
            public String add(String accumulator, String value) {
              return accumulator + value;
            }

            @Override
            public String result(String accumulator) {
              return accumulator;
            }
          };
      TumblingWindows<String, String, String> w =
          TumblingWindows.builder(Duration.ofMillis(10), concat)
              .allowedLateness(Duration.ZERO)
              .clock(clock)
              .build();
      w.add("p", 1, "k", "a");
      w.add("p", 2, "k", "b");
      w.add("p", 3, "k", "c");
      w.finish();
      assertThat(w.pollFinalized()).containsExactly(new WindowResult<>(0, 10, "k", "abc"));
    }

    @Test
    void aResultTaggedWithASourceKeepsItsWindowKeyAndValue() {
      WindowResult<String, Long> merged = new WindowResult<>(0, 10, "k", 3L);
      assertThat(merged.source()).isNull();
      assertThat(merged.withSource("p0")).isEqualTo(new WindowResult<>(0, 10, "k", 3L, "p0"));
    }

    @Test
    void pollFinalizedWithNothingFinalizedReturnsAnEmptyList() {
      assertThat(windows.pollFinalized()).isEmpty();
      windows.add("p", 5, "k", 1L);
      assertThat(windows.pollFinalized()).isEmpty();
    }
  }

  @Nested
  class Stats {

    @Test
    void statsCountAcceptedLateOpenAndFinalized() {
      windows.register("hold");
      windows.add("p", 1, "a", 1L);
      windows.add("p", 2, "b", 1L);
      windows.add("p", 12, "a", 1L);
      WindowStats stats = windows.stats();
      assertThat(stats.accepted()).isEqualTo(3);
      assertThat(stats.late()).isZero();
      assertThat(stats.openWindows()).isEqualTo(2);
      assertThat(stats.openEntries()).isEqualTo(3);
      assertThat(stats.finalizedWindows()).isZero();
      assertThat(stats.watermark()).isEqualTo(NO_WATERMARK);
      windows.remove("hold");
      stats = windows.stats();
      assertThat(stats.openWindows()).isEqualTo(1);
      assertThat(stats.openEntries()).isEqualTo(1);
      assertThat(stats.finalizedWindows()).isEqualTo(1);
      assertThat(stats.watermark()).isEqualTo(12);
      assertThat(windows.toString()).contains("accepted=3");
    }
  }

  @Nested
  class BadInput {

    @Test
    void nullArgumentsAreRejectedByNameAndChangeNothing() {
      windows.add("p", 5, "k", 1L);
      WindowStats before = windows.stats();
      assertThatThrownBy(() -> windows.add(null, 6, "k", 1L))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("source");
      assertThatThrownBy(() -> windows.add("p", 6, null, 1L)).hasMessage("key");
      assertThatThrownBy(() -> windows.add("p", 6, "k", null)).hasMessage("value");
      assertThatThrownBy(() -> windows.add(6, null, 1L)).hasMessage("key");
      assertThatThrownBy(() -> windows.register(null)).hasMessage("source");
      assertThat(windows.stats()).isEqualTo(before);
      assertThat(windows.watermark()).isEqualTo(5);
    }

    @Test
    void aggregatorOverflowIsRejectedAndChangesNothing() {
      windows.add("p", 5, "k", Long.MAX_VALUE);
      WindowStats before = windows.stats();
      assertThatThrownBy(() -> windows.add("p", 6, "k", 1L))
          .isInstanceOf(ArithmeticException.class);
      assertThat(windows.stats()).isEqualTo(before);
      windows.advanceTo(100);
      assertThat(windows.pollFinalized())
          .extracting(WindowResult::value)
          .containsExactly(Long.MAX_VALUE);
    }

    @Test
    void throwingAggregatorOnANewWindowOpensNothing() {
      Aggregator<Long, long[], Long> picky =
          Aggregators.of(
              () -> new long[1],
              (acc, v) -> {
                if (v < 0) {
                  throw new IllegalArgumentException("negative: " + v);
                }
                acc[0] += v;
                return acc;
              },
              acc -> acc[0]);
      TumblingWindows<String, Long, Long> w =
          TumblingWindows.builder(Duration.ofMillis(10), picky).clock(clock).build();
      assertThatThrownBy(() -> w.add(5, "k", -1L)).hasMessage("negative: -1");
      assertThat(w.stats().openWindows()).isZero();
      assertThat(w.stats().accepted()).isZero();
      assertThat(w.watermark()).isEqualTo(NO_WATERMARK);
    }

    @Test
    void windowSizeMustBeAtLeastOneMillisecond() {
      assertThatThrownBy(() -> TumblingWindows.builder(Duration.ZERO, Aggregators.sumLong()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("size must be >= 1 ms: PT0S");
      assertThatThrownBy(
              () -> TumblingWindows.builder(Duration.ofMinutes(-5), Aggregators.sumLong()))
          .hasMessage("size must be >= 1 ms: PT-5M");
      assertThatThrownBy(
              () -> TumblingWindows.builder(Duration.ofNanos(999_999), Aggregators.sumLong()))
          .hasMessage("size must be >= 1 ms: PT0.000999999S");
      assertThatThrownBy(() -> TumblingWindows.builder((Duration) null, Aggregators.sumLong()))
          .hasMessage("size");
      assertThatThrownBy(() -> TumblingWindows.builder(Duration.ofMinutes(1), null))
          .hasMessage("aggregator");
    }

    @Test
    void oneMillisecondIsTheSmallestWindowAndTheBuiltValuesAreReportedBack() {
      TumblingWindows<String, Long, Long> w =
          TumblingWindows.builder(Duration.ofMillis(1), Aggregators.sumLong())
              .allowedLateness(Duration.ofMinutes(2))
              .clock(clock)
              .build();
      assertThat(w.sizeMillis()).isEqualTo(1);
      assertThat(w.allowedLatenessMillis()).isEqualTo(120_000);
      assertThat(w.windowEnd(0)).isEqualTo(1);
      assertThat(w.windowEnd(-1)).isZero();
    }

    @Test
    void builderOptionsAreValidatedAndSetAtMostOnce() {
      TumblingWindows.Builder<Long, Long> b =
          TumblingWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong());
      assertThatThrownBy(() -> b.allowedLateness(Duration.ofMillis(-5)))
          .hasMessage("allowedLateness must be >= 0: PT-0.005S");
      assertThatThrownBy(() -> b.idleTimeout(Duration.ZERO))
          .hasMessage("idleTimeout must be > 0: PT0S");
      assertThatThrownBy(() -> b.lateEventHandler(null)).hasMessage("lateEventHandler");
      b.lateEventHandler((s, t, e, w, k, v) -> {});
      assertThatThrownBy(() -> b.lateEventHandler((s, t, e, w, k, v) -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("lateEventHandler was already set");
      b.idleTimeout(Duration.ofSeconds(5));
      assertThatThrownBy(() -> b.idleTimeout(Duration.ofSeconds(6)))
          .hasMessage("idleTimeout was already set to PT5S");
    }
  }

  @Nested
  class BuiltInAggregators {

    @Test
    void builtInAggregatorsNameTheirFactoryMethod() {
      assertThat(Aggregators.count()).hasToString("Aggregators.count()");
      assertThat(Aggregators.sumLong()).hasToString("Aggregators.sumLong()");
      assertThat(Aggregators.minLong()).hasToString("Aggregators.minLong()");
      assertThat(Aggregators.maxLong()).hasToString("Aggregators.maxLong()");
    }

    @Test
    void countMinMaxAndCustomAggregate() {
      TumblingWindows<String, Long, Long> count =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.count()).clock(clock).build();
      TumblingWindows<String, Long, Long> min =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.minLong())
              .clock(clock)
              .build();
      TumblingWindows<String, Long, Long> max =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.maxLong())
              .clock(clock)
              .build();
      TumblingWindows<String, String, String> concat =
          TumblingWindows.builder(
                  Duration.ofMillis(10),
                  Aggregators.<String, StringBuilder, String>of(
                      StringBuilder::new, StringBuilder::append, StringBuilder::toString))
              .clock(clock)
              .build();
      for (long v : new long[] {7, -3, 12}) {
        count.add(1, "k", v);
        min.add(1, "k", v);
        max.add(1, "k", v);
        concat.add(1, "k", Long.toString(v));
      }
      count.advanceTo(Long.MAX_VALUE);
      min.advanceTo(Long.MAX_VALUE);
      max.advanceTo(Long.MAX_VALUE);
      concat.advanceTo(Long.MAX_VALUE);
      assertThat(count.pollFinalized().get(0).value()).isEqualTo(3);
      assertThat(min.pollFinalized().get(0).value()).isEqualTo(-3);
      assertThat(max.pollFinalized().get(0).value()).isEqualTo(12);
      assertThat(concat.pollFinalized().get(0).value()).isEqualTo("7-312");
      assertThat(Aggregators.sumLong()).hasToString("Aggregators.sumLong()");
    }
  }
}
