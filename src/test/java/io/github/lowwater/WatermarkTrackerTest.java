package io.github.lowwater;

import static io.github.lowwater.WatermarkTracker.NO_WATERMARK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The rules of {@link WatermarkTracker}, each at its edge, with a {@link ManualClock}. */
class WatermarkTrackerTest {

  private static final long LATENESS = 10_000;
  private static final Duration IDLE = Duration.ofMinutes(1);

  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final WatermarkTracker tracker =
      WatermarkTracker.builder()
          .allowedLateness(Duration.ofMillis(LATENESS))
          .idleTimeout(IDLE)
          .clock(clock)
          .build();

  @Nested
  class Frontiers {

    @Test
    void watermarkIsNoWatermarkBeforeAnyEvent() {
      assertThat(tracker.watermark()).isEqualTo(NO_WATERMARK).isEqualTo(Long.MIN_VALUE);
      assertThat(tracker.activeSources()).isZero();
    }

    @Test
    void oneSourceGivesItsFrontierMinusLateness() {
      tracker.observe("p0", 100_000);
      assertThat(tracker.watermark()).isEqualTo(90_000);
      assertThat(tracker.frontier("p0")).isEqualTo(100_000);
    }

    /** Ported from the original engine: the watermark follows the slowest active partition. */
    @Test
    void watermarkFollowsTheSlowestActiveSource() {
      tracker.observe("p0", 100_000);
      tracker.observe("p1", 40_000);
      assertThat(tracker.watermark()).isEqualTo(90_000); // p1 arrived after the first candidate
      tracker.observe("p0", 500_000);
      assertThat(tracker.watermark()).isEqualTo(90_000); // p1 (40s) now holds it
      tracker.observe("p1", 200_000);
      assertThat(tracker.watermark()).isEqualTo(190_000);
      tracker.observe("p1", 900_000);
      assertThat(tracker.watermark()).isEqualTo(490_000); // p0 is the slowest now
    }

    @Test
    void slowestSourceHoldsTheWatermarkFromItsFirstEvent() {
      tracker.observe("p0", 40_000);
      tracker.observe("p1", 500_000);
      tracker.observe("p0", 60_000);
      assertThat(tracker.watermark()).isEqualTo(50_000);
    }

    @Test
    void watermarkNeverMovesBackwards() {
      tracker.observe("p0", 100_000);
      assertThat(tracker.watermark()).isEqualTo(90_000);
      tracker.observe("p1", 10_000); // a slower source appears: the candidate drops, not the mark
      assertThat(tracker.watermark()).isEqualTo(90_000);
      tracker.observe("p0", 5_000); // out of order on p0: frontier stays
      assertThat(tracker.frontier("p0")).isEqualTo(100_000);
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void outOfOrderEventDoesNotLowerTheFrontier() {
      tracker.observe("p0", 100_000);
      tracker.observe("p0", 99_999);
      assertThat(tracker.frontier("p0")).isEqualTo(100_000);
    }

    @Test
    void registeredSourceHoldsTheWatermarkUntilItIsSeen() {
      tracker.register("p1");
      tracker.observe("p0", 100_000);
      assertThat(tracker.watermark()).isEqualTo(NO_WATERMARK);
      assertThat(tracker.activeSources()).isEqualTo(2);
      tracker.observe("p1", 50_000);
      assertThat(tracker.watermark()).isEqualTo(40_000);
    }

    @Test
    void registeringAKnownSourceChangesNothing() {
      tracker.observe("p0", 100_000);
      tracker.register("p0");
      assertThat(tracker.frontier("p0")).isEqualTo(100_000);
      assertThat(tracker.watermark()).isEqualTo(90_000);
      assertThat(tracker.activeSources()).isEqualTo(1);
    }

    @Test
    void frontierOfUnknownOrUnseenSourceIsNoWatermark() {
      tracker.register("p1");
      assertThat(tracker.frontier("p1")).isEqualTo(NO_WATERMARK);
      assertThat(tracker.frontier("nope")).isEqualTo(NO_WATERMARK);
    }
  }

  @Nested
  class Handles {

    @Test
    void handleObservesLikeItsKey() {
      WatermarkTracker.Source p0 = tracker.source("p0");
      assertThat(p0.key()).isEqualTo("p0");
      assertThat(tracker.activeSources()).as("taking a handle registers").isEqualTo(1);
      tracker.observe(p0, 100_000);
      tracker.observe("p1", 50_000);
      assertThat(tracker.frontier("p0")).isEqualTo(100_000);
      assertThat(tracker.frontier(p0)).isEqualTo(100_000);
      assertThat(tracker.source("p0")).isSameAs(p0);
      tracker.observe((Object) p0, 200_000); // a handle passed as Object is still the handle
      assertThat(tracker.knownSources()).isEqualTo(2);
      assertThat(tracker.frontier("p0")).isEqualTo(200_000);
    }

    @Test
    void removedHandleStartsItsSourceAfresh() {
      WatermarkTracker.Source p0 = tracker.source("p0");
      tracker.observe(p0, 100_000);
      assertThat(tracker.remove(p0)).isTrue();
      assertThat(p0).hasToString("Source{p0, removed}");
      tracker.observe(p0, 5_000);
      assertThat(tracker.frontier("p0")).isEqualTo(5_000);
      assertThat(tracker.isActive("p0")).isTrue();
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void handleOfAnotherTrackerIsRejectedAndChangesNothing() {
      WatermarkTracker other = WatermarkTracker.builder().clock(clock).build();
      WatermarkTracker.Source foreign = other.source("p0");
      assertThatThrownBy(() -> tracker.observe(foreign, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("source handle belongs to another tracker: p0");
      assertThatThrownBy(() -> tracker.source(foreign))
          .hasMessage("source handle belongs to another tracker: p0");
      assertThatThrownBy(() -> tracker.register(foreign))
          .hasMessage("source handle belongs to another tracker: p0");
      assertThatThrownBy(() -> tracker.heartbeat(foreign))
          .hasMessage("source handle belongs to another tracker: p0");
      assertThat(tracker.knownSources()).isZero();
      assertThatThrownBy(() -> tracker.observe((WatermarkTracker.Source) null, 1))
          .hasMessage("source");
    }
  }

  @Nested
  class Idleness {

    @Test
    void sourceSilentForExactlyTheTimeoutIsStillActive() {
      tracker.observe("slow", 10_000);
      tracker.observe("fast", 100_000);
      clock.advance(IDLE);
      tracker.observe("fast", 200_000); // slow: now - lastSeen == idleTimeout, not greater
      assertThat(tracker.isActive("slow")).isTrue();
      assertThat(tracker.watermark()).isEqualTo(0);
    }

    @Test
    void sourceSilentForOneNanosecondMoreThanTheTimeoutGoesIdle() {
      tracker.observe("slow", 10_000);
      tracker.observe("fast", 100_000);
      clock.advance(IDLE.plusNanos(1));
      tracker.observe("fast", 200_000);
      assertThat(tracker.isActive("slow")).isFalse();
      assertThat(tracker.activeSources()).isEqualTo(1);
      assertThat(tracker.watermark()).isEqualTo(190_000);
    }

    /** Ported: an idle partition stops holding the watermark back. */
    @Test
    void idleSourceStopsHoldingTheWatermarkOnRefresh() {
      tracker.observe("quiet", 10_000);
      tracker.observe("busy", 500_000);
      assertThat(tracker.watermark()).isEqualTo(0);
      clock.advance(Duration.ofSeconds(30));
      tracker.observe("busy", 600_000);
      clock.advance(Duration.ofSeconds(31)); // quiet: 61 s silent; busy: 31 s
      assertThat(tracker.watermark()).as("reading has no side effect").isEqualTo(0);
      tracker.refresh();
      assertThat(tracker.watermark()).isEqualTo(590_000);
    }

    @Test
    void idleSourceThatSpeaksAgainHoldsButNeverLowersTheWatermark() {
      tracker.observe("quiet", 10_000);
      tracker.observe("busy", 500_000);
      clock.advance(IDLE.plusSeconds(1));
      tracker.observe("busy", 600_000);
      assertThat(tracker.watermark()).isEqualTo(590_000);
      tracker.observe("quiet", 20_000); // behind the watermark: active again, frontier 20s
      assertThat(tracker.isActive("quiet")).isTrue();
      assertThat(tracker.watermark()).isEqualTo(590_000);
      tracker.observe("busy", 900_000);
      assertThat(tracker.watermark()).as("quiet holds it again").isEqualTo(590_000);
      tracker.observe("quiet", 700_000);
      assertThat(tracker.watermark()).isEqualTo(690_000);
    }

    @Test
    void registeredButUnseenSourceGoesIdleAfterTheTimeout() {
      tracker.register("never");
      clock.advance(Duration.ofSeconds(1));
      tracker.observe("p0", 100_000);
      clock.advance(IDLE.minusSeconds(1));
      tracker.refresh();
      assertThat(tracker.watermark()).isEqualTo(NO_WATERMARK);
      clock.advance(Duration.ofNanos(1));
      tracker.refresh();
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void registeringAnIdleSourceChangesNothing() {
      tracker.observe("quiet", 10_000);
      clock.advance(IDLE.plusNanos(1));
      tracker.observe("busy", 100_000);
      assertThat(tracker.isActive("quiet")).isFalse();
      tracker.register("quiet");
      assertThat(tracker.isActive("quiet")).isFalse();
      assertThat(tracker.frontier("quiet")).isEqualTo(10_000);
    }

    @Test
    void heartbeatKeepsASourceActiveWithoutMovingItsFrontier() {
      tracker.observe("paused", 10_000);
      tracker.observe("busy", 100_000);
      for (int i = 0; i < 10; i++) {
        clock.advance(Duration.ofSeconds(50));
        tracker.heartbeat("paused");
        tracker.observe("busy", 100_000 + i);
      }
      assertThat(tracker.isActive("paused")).isTrue();
      assertThat(tracker.frontier("paused")).isEqualTo(10_000);
      assertThat(tracker.watermark()).isEqualTo(0);
    }

    @Test
    void allSourcesIdleLeavesNoCandidateAndTheWatermarkStays() {
      tracker.observe("p0", 100_000);
      clock.advance(IDLE.plusNanos(1));
      tracker.refresh();
      assertThat(tracker.activeSources()).isZero();
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void foreverTimeoutMeansNoSourceEverGoesIdle() {
      ManualClock c = new ManualClock();
      WatermarkTracker t =
          WatermarkTracker.builder()
              .idleTimeout(ChronoUnit.FOREVER.getDuration())
              .allowedLateness(Duration.ZERO)
              .clock(c)
              .build();
      t.observe("slow", 1);
      c.advance(Duration.ofDays(365 * 200));
      t.observe("fast", 1_000);
      assertThat(t.watermark()).isEqualTo(1);
    }

    @Test
    void clockGoingBackwardsIsClampedSoActivityKeepsItsOrder() {
      long[] nanos = {0};
      WatermarkTracker t = onJumpyClock(nanos);
      nanos[0] = 1_000;
      t.observe("a", 10);
      nanos[0] = 500; // backwards: read as 1_000
      t.observe("b", 20);
      nanos[0] = 1_100; // a and b both at 1_000: exactly the timeout, both active
      t.refresh();
      assertThat(t.activeSources()).isEqualTo(2);
      nanos[0] = 1_101;
      t.refresh();
      assertThat(t.activeSources()).isZero();
    }

    /**
     * A reading behind the last one counts as the last one for the source it times: "b", seen while
     * the clock read 500 after 1,000, is timed from 1,000, so it is still active at exactly the
     * timeout after that.
     */
    @Test
    void aSourceSeenWhileTheClockRanBackwardsIsTimedFromTheClampedReading() {
      long[] nanos = {0};
      WatermarkTracker t = onJumpyClock(nanos);
      nanos[0] = 1_000;
      t.observe("a", 10);
      nanos[0] = 500; // backwards: read as 1_000
      t.observe("b", 20);
      nanos[0] = 1_050;
      t.heartbeat("a"); // "b" is now the least recently active source
      nanos[0] = 1_100; // "b": exactly the timeout since 1_000
      t.refresh();
      assertThat(t.isActive("b")).isTrue();
      assertThat(t.activeSources()).isEqualTo(2);
    }
  }

  @Nested
  class Removal {

    /**
     * The source moved into a removed source's heap slot can be smaller than that slot's parent: it
     * must move up, or a later minimum skips it and the watermark passes an active source. Arrival
     * order lays out the heap [a=1, b=10, c=5, d=11, e=12, f=7, g=6]; removing d moves g (6) under
     * b (10).
     */
    @Test
    void removingASourceFromInsideTheHeapKeepsEveryActiveSourceInTheMinimum() {
      WatermarkTracker t =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ZERO)
              .idleTimeout(IDLE)
              .clock(clock)
              .build();
      String[] keys = {"a", "b", "c", "d", "e", "f", "g"};
      long[] times = {1, 10, 5, 11, 12, 7, 6};
      for (int i = 0; i < keys.length; i++) {
        t.observe(keys[i], times[i]);
      }
      assertThat(t.watermark()).isEqualTo(1);
      t.remove("d");
      t.remove("a");
      assertThat(t.watermark()).isEqualTo(5);
      t.remove("c");
      assertThat(t.watermark()).as("g (6) is the slowest active source, not f (7)").isEqualTo(6);
    }

    @Test
    void removedSourceLeavesTheMinimumAtOnce() {
      tracker.observe("slow", 10_000);
      tracker.observe("fast", 100_000);
      assertThat(tracker.watermark()).isEqualTo(0);
      assertThat(tracker.remove("slow")).isTrue();
      assertThat(tracker.watermark()).isEqualTo(90_000);
      assertThat(tracker.knownSources()).isEqualTo(1);
    }

    @Test
    void removingAnUnknownSourceReturnsFalse() {
      tracker.observe("p0", 100_000);
      assertThat(tracker.remove("p9")).isFalse();
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void removingAnIdleSourceForgetsIt() {
      tracker.observe("quiet", 10_000);
      clock.advance(IDLE.plusNanos(1));
      tracker.refresh();
      assertThat(tracker.remove("quiet")).isTrue();
      assertThat(tracker.knownSources()).isZero();
    }

    @Test
    void removedThenRegisteredSourceStartsAfreshAndHolds() {
      tracker.observe("p0", 100_000);
      tracker.observe("p1", 100_000);
      tracker.remove("p1");
      tracker.register("p1");
      assertThat(tracker.frontier("p1")).isEqualTo(NO_WATERMARK);
      tracker.observe("p0", 300_000);
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }
  }

  @Nested
  class WallClockAdvance {

    /** Ported: advanceTo closes the last window, not a millisecond before end + lateness. */
    @Test
    void advanceToMovesTheWatermarkToWallMinusLatenessExactly() {
      tracker.observe("p0", 100_000);
      tracker.advanceTo(150_000 + LATENESS - 1);
      assertThat(tracker.watermark()).isEqualTo(149_999);
      tracker.advanceTo(150_000 + LATENESS);
      assertThat(tracker.watermark()).isEqualTo(150_000);
    }

    @Test
    void advanceToNeverMovesTheWatermarkBackwards() {
      tracker.observe("p0", 100_000);
      tracker.advanceTo(0);
      assertThat(tracker.watermark()).isEqualTo(90_000);
    }

    @Test
    void advanceToWorksWithoutAnySource() {
      tracker.advanceTo(LATENESS);
      assertThat(tracker.watermark()).isZero();
    }

    @Test
    void advanceToAtTheLongBoundsSaturates() {
      tracker.advanceTo(Long.MIN_VALUE);
      assertThat(tracker.watermark()).isEqualTo(NO_WATERMARK);
      tracker.advanceTo(Long.MAX_VALUE);
      assertThat(tracker.watermark()).isEqualTo(Long.MAX_VALUE - LATENESS);
    }
  }

  @Nested
  class Seed {

    @Test
    void seedBelowTheClampIsTakenAsIs() {
      long now = clock.wallMillis();
      assertThat(tracker.seedWatermark(now - 60_000)).isEqualTo(now - 60_000);
      assertThat(tracker.watermark()).isEqualTo(now - 60_000);
    }

    /** A replay wrote a window in the future: the seed must never pass now - allowedLateness. */
    @Test
    void seedFromTheFutureIsClampedToWallMinusLateness() {
      long now = clock.wallMillis();
      assertThat(tracker.seedWatermark(now + Duration.ofHours(6).toMillis()))
          .isEqualTo(now - LATENESS);
    }

    @Test
    void seedExactlyAtTheClampIsNotClamped() {
      long bound = clock.wallMillis() - LATENESS;
      assertThat(tracker.seedWatermark(bound)).isEqualTo(bound);
      assertThat(tracker.seedWatermark(bound + 1)).isEqualTo(bound);
    }

    @Test
    void seedNeverMovesTheWatermarkBackwards() {
      tracker.observe("p0", clock.wallMillis());
      long before = tracker.watermark();
      assertThat(tracker.seedWatermark(0)).isEqualTo(before);
    }

    @Test
    void seedReadsTheWallClockNotTheMonotonicOne() {
      clock.jumpWall(Duration.ofHours(-1));
      long bound = clock.wallMillis() - LATENESS;
      assertThat(tracker.seedWatermark(Long.MAX_VALUE)).isEqualTo(bound);
    }
  }

  @Nested
  class Bounds {

    @Test
    void eventAtLongMinValueDoesNotWrap() {
      tracker.observe("p0", Long.MIN_VALUE);
      assertThat(tracker.watermark()).isEqualTo(NO_WATERMARK);
      tracker.observe("p0", Long.MIN_VALUE + LATENESS + 1);
      assertThat(tracker.watermark()).isEqualTo(Long.MIN_VALUE + 1);
    }

    @Test
    void eventAtLongMaxValueDoesNotWrap() {
      tracker.observe("p0", Long.MAX_VALUE);
      assertThat(tracker.watermark()).isEqualTo(Long.MAX_VALUE - LATENESS);
    }

    @Test
    void negativeEventTimesWork() {
      tracker.observe("p0", -50_000);
      tracker.observe("p1", -20_000);
      assertThat(tracker.watermark()).isEqualTo(-60_000);
    }

    @Test
    void hugeLatenessSaturatesInsteadOfWrapping() {
      WatermarkTracker t =
          WatermarkTracker.builder()
              .allowedLateness(ChronoUnit.FOREVER.getDuration())
              .clock(clock)
              .build();
      assertThat(t.allowedLatenessMillis()).isEqualTo(Long.MAX_VALUE);
      t.observe("p0", 5);
      assertThat(t.watermark()).isEqualTo(5 - Long.MAX_VALUE);
      t.observe("p0", -5);
      t.advanceTo(Long.MIN_VALUE);
      assertThat(t.watermark()).isEqualTo(5 - Long.MAX_VALUE);
    }
  }

  @Nested
  class EndOfInput {

    @Test
    void finishReEvaluatesIdlenessBeforeItRaisesTheWatermarkToTheEnd() {
      tracker.observe("quiet", 10_000);
      tracker.observe("busy", 100_000);
      clock.advance(IDLE.plusNanos(1));
      tracker.finish();
      assertThat(tracker.watermark()).isEqualTo(Long.MAX_VALUE);
      assertThat(tracker.isActive("quiet")).isFalse();
      assertThat(tracker.activeSources()).isZero();
    }
  }

  @Nested
  class BadInput {

    @Test
    void nullSourceIsRejectedByNameAndChangesNothing() {
      tracker.observe("p0", 100_000);
      assertThatThrownBy(() -> tracker.observe(null, 1))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("source");
      assertThatThrownBy(() -> tracker.register(null)).hasMessage("source");
      assertThatThrownBy(() -> tracker.remove(null)).hasMessage("source");
      assertThatThrownBy(() -> tracker.heartbeat(null)).hasMessage("source");
      assertThat(tracker.watermark()).isEqualTo(90_000);
      assertThat(tracker.knownSources()).isEqualTo(1);
    }

    @Test
    void negativeLatenessIsRejectedWithItsValue() {
      assertThatThrownBy(() -> WatermarkTracker.builder().allowedLateness(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("allowedLateness must be >= 0: PT-0.001S");
    }

    @Test
    void zeroOrNegativeIdleTimeoutIsRejectedWithItsValue() {
      assertThatThrownBy(() -> WatermarkTracker.builder().idleTimeout(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("idleTimeout must be > 0: PT0S");
      assertThatThrownBy(() -> WatermarkTracker.builder().idleTimeout(Duration.ofSeconds(-3)))
          .hasMessage("idleTimeout must be > 0: PT-3S");
    }

    @Test
    void nullBuilderArgumentsAreRejectedByName() {
      WatermarkTracker.Builder b = WatermarkTracker.builder();
      assertThatThrownBy(() -> b.clock(null)).hasMessage("clock");
      assertThatThrownBy(() -> b.allowedLateness(null)).hasMessage("allowedLateness");
      assertThatThrownBy(() -> b.idleTimeout(null)).hasMessage("idleTimeout");
    }

    @Test
    void settingAnOptionTwiceIsRejectedAndKeepsTheFirstValue() {
      WatermarkTracker.Builder b =
          WatermarkTracker.builder().allowedLateness(Duration.ofSeconds(5));
      assertThatThrownBy(() -> b.allowedLateness(Duration.ofSeconds(7)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("allowedLateness was already set to PT5S");
      assertThat(b.build().allowedLatenessMillis()).isEqualTo(5_000);
      b.idleTimeout(Duration.ofSeconds(1));
      assertThatThrownBy(() -> b.idleTimeout(Duration.ofSeconds(1)))
          .hasMessage("idleTimeout was already set to PT1S");
      b.clock(clock);
      assertThatThrownBy(() -> b.clock(clock)).hasMessageStartingWith("clock was already set to");
    }

    @Test
    void rejectedBuilderValueLeavesTheOptionUnset() {
      WatermarkTracker.Builder b = WatermarkTracker.builder();
      assertThatThrownBy(() -> b.idleTimeout(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
      b.idleTimeout(Duration.ofSeconds(3)); // still settable
      assertThat(b.build().idleTimeoutNanos()).isEqualTo(3_000_000_000L);
    }
  }

  @Test
  void defaultsAre120SecondsAndTheSystemClock() {
    WatermarkTracker t = WatermarkTracker.builder().build();
    assertThat(t.allowedLatenessMillis()).isEqualTo(120_000);
    assertThat(t.idleTimeoutNanos()).isEqualTo(120_000_000_000L);
    assertThat(t.clock()).isSameAs(Clock.system());
  }

  @Test
  void readingHasNoSideEffect() {
    tracker.observe("quiet", 10_000);
    tracker.observe("busy", 500_000);
    clock.advance(Duration.ofHours(1));
    for (int i = 0; i < 3; i++) {
      assertThat(tracker.watermark()).isEqualTo(0);
      assertThat(tracker.activeSources()).isEqualTo(2);
      assertThat(tracker.frontier("quiet")).isEqualTo(10_000);
      assertThat(tracker.isActive("quiet")).isTrue();
      assertThat(tracker.toString()).contains("watermark=0");
    }
  }

  /** The unit mistake: event times in seconds or microseconds instead of milliseconds. */
  @Nested
  class TimeUnits {

    @Test
    void aFirstEventThatLooksLikeSecondsOrMicrosecondsIsCountedOncePerSource() {
      ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));
      WatermarkTracker t = WatermarkTracker.builder().clock(clock).build();
      long seconds = clock.wallMillis() / 1_000;
      t.observe("seconds", seconds);
      t.observe("seconds", seconds + 1); // the same source: counted once
      t.observe("micros", clock.wallMillis() * 1_000);
      t.observe("millis", clock.wallMillis());
      assertThat(t.suspectTimeUnits()).isEqualTo(2);
    }

    @Test
    void theBoundsAreExclusiveAndSmallTimesAreFineWhileTheWallClockIsBefore2001() {
      ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));
      WatermarkTracker t = WatermarkTracker.builder().clock(clock).build();
      t.observe("a", WatermarkTracker.SECONDS_SUSPECT_BELOW);
      t.observe("b", WatermarkTracker.MICROS_SUSPECT_ABOVE);
      assertThat(t.suspectTimeUnits()).isZero();
      t.observe("c", WatermarkTracker.SECONDS_SUSPECT_BELOW - 1);
      t.observe("d", WatermarkTracker.MICROS_SUSPECT_ABOVE + 1);
      assertThat(t.suspectTimeUnits()).isEqualTo(2);
      WatermarkTracker early =
          WatermarkTracker.builder()
              .clock(
                  new ManualClock(
                      Instant.ofEpochMilli(WatermarkTracker.WALL_CLOCK_SECONDS_CHECK_FROM)))
              .build();
      early.observe("p", 1_000);
      assertThat(early.suspectTimeUnits()).isZero();
    }
  }

  /**
   * A tracker with a 100 ns idle timeout and no lateness on a clock whose monotonic reading is
   * {@code nanos[0]}, free to go backwards.
   */
  static WatermarkTracker onJumpyClock(long[] nanos) {
    Clock jumpy =
        new Clock() {
          @Override
          public long monotonicNanos() {
            return nanos[0];
          }

          @Override
          public long wallMillis() {
            return 0;
          }
        };
    return WatermarkTracker.builder()
        .idleTimeout(Duration.ofNanos(100))
        .allowedLateness(Duration.ZERO)
        .clock(jumpy)
        .build();
  }
}
