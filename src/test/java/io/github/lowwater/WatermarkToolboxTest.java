package io.github.lowwater;

import static io.github.lowwater.WatermarkTracker.NO_WATERMARK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Strategies, punctuation, lookahead, timers, the future-timestamp guard and the lag. */
class WatermarkToolboxTest {

  private static final long LATENESS = 10_000;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));

  private WatermarkTracker.Builder builder() {
    return WatermarkTracker.builder()
        .allowedLateness(Duration.ofMillis(LATENESS))
        .idleTimeout(Duration.ofMinutes(1))
        .clock(clock);
  }

  @Test
  void strategyIsReportedAndDefaultsToBoundedOutOfOrderness() {
    assertThat(builder().build().strategy()).isEqualTo(WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS);
    assertThat(builder().strategy(WatermarkStrategy.PUNCTUATED).build().strategy())
        .isEqualTo(WatermarkStrategy.PUNCTUATED);
  }

  @Nested
  class Punctuation {

    @Test
    void punctuationRaisesTheSourceWithoutSubtractingLateness() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      t.observe("p1", 100_000);
      assertThat(t.watermark()).isEqualTo(90_000);
      t.punctuate("p0", 150_000);
      t.punctuate("p1", 120_000);
      assertThat(t.watermark()).isEqualTo(120_000);
      assertThat(t.frontier("p1")).as("no event was seen").isEqualTo(100_000);
    }

    @Test
    void punctuationNeverLowersAContribution() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      t.punctuate("p0", 5);
      assertThat(t.watermark()).isEqualTo(90_000);
    }

    @Test
    void punctuatedStrategyIgnoresEventTimesForTheWatermark() {
      WatermarkTracker t = builder().strategy(WatermarkStrategy.PUNCTUATED).build();
      t.observe("p0", 100_000);
      assertThat(t.watermark()).isEqualTo(NO_WATERMARK);
      assertThat(t.frontier("p0")).isEqualTo(100_000);
      t.punctuate("p0", 42_000);
      assertThat(t.watermark()).isEqualTo(42_000);
    }

    @Test
    void punctuationCountsAsActivity() {
      WatermarkTracker t = builder().build();
      t.observe("quiet", 10_000);
      t.observe("busy", 100_000);
      clock.advance(Duration.ofSeconds(50));
      t.punctuate("quiet", 10_000);
      clock.advance(Duration.ofSeconds(50));
      t.refresh();
      assertThat(t.isActive("quiet")).isTrue();
    }
  }

  @Nested
  class ProcessingTime {

    @Test
    void processingTimeStrategyFollowsTheWallClockOfTheLastActivity() {
      WatermarkTracker t = builder().strategy(WatermarkStrategy.PROCESSING_TIME).build();
      long wall = clock.wallMillis();
      t.observe("p0", 5); // an ancient event: irrelevant to processing time
      assertThat(t.watermark()).isEqualTo(wall - LATENESS);
      clock.advance(Duration.ofSeconds(30));
      t.refresh();
      assertThat(t.watermark())
          .as("no activity: still the last one's wall time")
          .isEqualTo(wall - LATENESS);
      t.heartbeat("p0");
      assertThat(t.watermark()).isEqualTo(wall + 30_000 - LATENESS);
    }
  }

  @Nested
  class Lookahead {

    @Test
    void lookaheadReleasesTheWatermarkUpToTheBatchStart() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      t.observe("p1", 500_000);
      assertThat(t.watermark()).isEqualTo(90_000);
      // p0's next batch is fetched: events 100_001 .. 300_000.
      t.lookahead("p0", 100_001, 300_000);
      assertThat(t.watermark()).isEqualTo(100_001);
      assertThat(t.frontier("p0")).isEqualTo(100_000);
    }

    @Test
    void lookaheadOnAShortBatchIsBoundedByItsMaxMinusLateness() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      t.lookahead("p0", 100_500, 101_000);
      assertThat(t.watermark()).isEqualTo(91_000);
    }

    @Test
    void lookaheadNeverDeclaresAnInOrderEventLate() {
      for (long seed = 1; seed <= 200; seed++) {
        SplittableRandom random = new SplittableRandom(seed);
        WatermarkTracker t = builder().build();
        int sources = 1 + random.nextInt(5);
        long[] next = new long[sources];
        for (int s = 0; s < sources; s++) {
          t.register(s); // known from the start, as assigned partitions are
        }
        for (int step = 0; step < 300; step++) {
          int s = random.nextInt(sources);
          int n = 1 + random.nextInt(20);
          long[] batch = new long[n];
          long min = Long.MAX_VALUE;
          long max = Long.MIN_VALUE;
          for (int i = 0; i < n; i++) {
            next[s] += random.nextInt(3_000);
            batch[i] = next[s];
            min = Math.min(min, batch[i]);
            max = Math.max(max, batch[i]);
          }
          t.lookahead(s, min, max);
          for (long e : batch) {
            assertThat(e)
                .as("seed %d: in-order event behind the watermark", seed)
                .isGreaterThanOrEqualTo(t.watermark());
            t.observe(s, e);
          }
        }
      }
    }

    @Test
    void lookaheadRejectsAnInvertedRangeAndChangesNothing() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      assertThatThrownBy(() -> t.lookahead("p0", 5, 4))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("minEventTimeMillis must be <= maxEventTimeMillis: 5 > 4");
      assertThatThrownBy(() -> t.lookahead(null, 4, 5)).hasMessage("source");
      assertThat(t.watermark()).isEqualTo(90_000);
    }
  }

  @Nested
  class Timers {

    @Test
    void timersFireOnceInTimeOrderWhenTheWatermarkReachesThem() {
      WatermarkTracker t = builder().build();
      List<String> fired = new ArrayList<>();
      t.registerTimer(50_000, (time, wm) -> fired.add("b@" + time + "/" + wm));
      t.registerTimer(20_000, (time, wm) -> fired.add("a@" + time + "/" + wm));
      t.registerTimer(90_000, (time, wm) -> fired.add("c@" + time + "/" + wm));
      t.observe("p0", 59_999); // watermark 49_999
      assertThat(fired).containsExactly("a@20000/49999");
      t.observe("p0", 60_000); // watermark 50_000: reached exactly
      assertThat(fired).containsExactly("a@20000/49999", "b@50000/50000");
      t.observe("p0", 60_001);
      assertThat(fired).hasSize(2);
      assertThat(t.pendingTimers()).isEqualTo(1);
      t.advanceTo(Long.MAX_VALUE);
      assertThat(fired).hasSize(3);
      assertThat(t.pendingTimers()).isZero();
    }

    @Test
    void tiesFireInRegistrationOrder() {
      WatermarkTracker t = builder().build();
      List<Integer> fired = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int id = i;
        t.registerTimer(1_000, (time, wm) -> fired.add(id));
      }
      t.advanceTo(LATENESS + 1_000);
      assertThat(fired)
          .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
    }

    @Test
    void aSeedThatReachesATimerFiresItBeforeReturning() {
      WatermarkTracker t = builder().build();
      long bound = clock.wallMillis() - LATENESS;
      List<Long> fired = new ArrayList<>();
      t.registerTimer(bound, (time, wm) -> fired.add(wm));
      t.seedWatermark(bound - 1);
      assertThat(fired).isEmpty();
      t.seedWatermark(bound);
      assertThat(fired).containsExactly(bound);
      assertThat(t.pendingTimers()).isZero();
    }

    @Test
    void finishFiresEveryPendingTimerBeforeReturning() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      List<Long> fired = new ArrayList<>();
      t.registerTimer(Long.MAX_VALUE, (time, wm) -> fired.add(time));
      t.registerTimer(200_000, (time, wm) -> fired.add(time));
      t.finish();
      assertThat(fired).containsExactly(200_000L, Long.MAX_VALUE);
      assertThat(t.pendingTimers()).isZero();
    }

    @Test
    void timerAtOrBelowTheWatermarkFiresBeforeRegisterReturns() {
      WatermarkTracker t = builder().build();
      t.observe("p0", 100_000);
      List<Long> fired = new ArrayList<>();
      t.registerTimer(90_000, (time, wm) -> fired.add(time));
      assertThat(fired).containsExactly(90_000L);
    }

    @Test
    void callbackMayRegisterTimersAndMoveTheWatermarkAndOrderHolds() {
      WatermarkTracker t = builder().build();
      List<Long> fired = new ArrayList<>();
      t.registerTimer(
          10,
          (time, wm) -> {
            fired.add(time);
            t.registerTimer(5, (tt, w) -> fired.add(tt)); // already due: fires next
            t.registerTimer(500, (tt, w) -> fired.add(tt));
            t.observe("p0", 600 + LATENESS); // moves the watermark to 600 from inside
          });
      t.registerTimer(1_000, (time, wm) -> fired.add(time));
      t.observe("p0", 100 + LATENESS);
      assertThat(fired).containsExactly(10L, 5L, 500L);
      assertThat(t.watermark()).isEqualTo(600);
    }

    @Test
    void exceptionFromACallbackPropagatesAndTheRestFireLater() {
      WatermarkTracker t = builder().build();
      List<Long> fired = new ArrayList<>();
      t.registerTimer(
          1,
          (time, wm) -> {
            throw new IllegalStateException("boom");
          });
      t.registerTimer(2, (time, wm) -> fired.add(time));
      assertThatThrownBy(() -> t.observe("p0", 100 + LATENESS)).hasMessage("boom");
      assertThat(t.watermark()).isEqualTo(100);
      assertThat(t.pendingTimers()).isEqualTo(1);
      t.refresh();
      assertThat(fired).containsExactly(2L);
    }

    @Test
    void nullTimerIsRejected() {
      WatermarkTracker t = builder().build();
      assertThatThrownBy(() -> t.registerTimer(1, null)).hasMessage("timer");
      assertThat(t.pendingTimers()).isZero();
    }

    @Test
    void manyTimersFireInSortedOrder() {
      WatermarkTracker t = builder().build();
      SplittableRandom random = new SplittableRandom(7);
      List<Long> fired = new ArrayList<>();
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < 5_000; i++) {
        long time = random.nextLong(1_000_000);
        expected.add(time);
        t.registerTimer(time, (tt, w) -> fired.add(tt));
      }
      for (long e = 0; e <= 1_000_000 + LATENESS; e += 12_345) {
        t.observe("p0", e);
      }
      t.advanceTo(Long.MAX_VALUE);
      expected.sort(null);
      assertThat(fired).isEqualTo(expected);
    }
  }

  @Nested
  class FutureGuard {

    @Test
    void eventExactlyAtWallPlusSkewMovesTheFrontierOneMoreDoesNot() {
      WatermarkTracker t = builder().maxFutureSkew(Duration.ofMinutes(5)).build();
      long limit = clock.wallMillis() + Duration.ofMinutes(5).toMillis();
      assertThat(t.futureLimitMillis()).isEqualTo(limit);
      t.observe("device-1", limit);
      assertThat(t.frontier("device-1")).isEqualTo(limit);
      t.observe("device-2", limit - 60_000);
      t.observe("device-2", limit + 1);
      assertThat(t.frontier("device-2")).isEqualTo(limit - 60_000);
      assertThat(t.futureEvents()).isEqualTo(1);
      assertThat(t.futureEvents("device-2")).isEqualTo(1);
      assertThat(t.futureEvents("device-1")).isZero();
    }

    /** One device with a fast clock must not make the whole fleet's data late. */
    @Test
    void aFastDeviceClockCannotRunTheWatermarkAhead() {
      WatermarkTracker t = builder().maxFutureSkew(Duration.ofSeconds(30)).build();
      long now = clock.wallMillis();
      t.observe("fleet", now);
      t.observe("broken", now + Duration.ofDays(1).toMillis());
      t.remove("fleet");
      assertThat(t.watermark()).as("not a day ahead").isEqualTo(now - LATENESS);
      assertThat(t.isActive("broken")).as("future events are not activity").isFalse();
      assertThat(t.knownSources()).isEqualTo(1);
    }

    @Test
    void withoutAGuardNothingIsFuture() {
      WatermarkTracker t = builder().build();
      t.observe("p0", Long.MAX_VALUE);
      assertThat(t.futureEvents()).isZero();
      assertThat(t.futureLimitMillis()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void negativeSkewIsRejectedWithItsValue() {
      assertThatThrownBy(() -> WatermarkTracker.builder().maxFutureSkew(Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxFutureSkew must be >= 0: PT-1S");
      assertThatThrownBy(() -> WatermarkTracker.builder().strategy(null)).hasMessage("strategy");
      assertThatThrownBy(
              () ->
                  WatermarkTracker.builder()
                      .strategy(WatermarkStrategy.PUNCTUATED)
                      .strategy(WatermarkStrategy.PUNCTUATED))
          .hasMessage("strategy was already set to PUNCTUATED");
    }
  }

  @Nested
  class Lag {

    @Test
    void lagIsWallClockMinusWatermarkAndSaturatesBeforeTheFirstWatermark() {
      WatermarkTracker t = builder().build();
      assertThat(t.watermarkLagMillis()).isEqualTo(Long.MAX_VALUE);
      t.observe("p0", clock.wallMillis() - 5_000);
      assertThat(t.watermarkLagMillis()).isEqualTo(15_000);
      clock.advance(Duration.ofSeconds(3));
      assertThat(t.watermarkLagMillis()).isEqualTo(18_000);
    }
  }
}
