package io.github.lowwater.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class AdvisorTest {

  private static final long SECOND_NANOS = 1_000_000_000L;
  private static final long DAY_NANOS = 86_400L * SECOND_NANOS;

  /**
   * 10_000 events: 9_990 in order, 9 lagging 100 ms, 1 lagging 200 ms; 1_000 gaps: 997 of 1 s, 2 of
   * 3 s, 1 of 20 min, over one day.
   */
  static DisorderSnapshot handMade() {
    Histogram lag = DisorderRecorder.histogram(1_000_000);
    lag.recordValueWithCount(0, 9_990);
    lag.recordValueWithCount(100, 9);
    lag.recordValue(200);
    Histogram gaps = DisorderRecorder.histogram(DAY_NANOS);
    gaps.recordValueWithCount(SECOND_NANOS, 997);
    gaps.recordValueWithCount(3 * SECOND_NANOS, 2);
    gaps.recordValue(1_200 * SECOND_NANOS);
    return DisorderSnapshot.of(
        new Distribution(lag),
        new Distribution(gaps),
        new Distribution(DisorderRecorder.histogram(2)),
        DAY_NANOS);
  }

  @Test
  void theRecommendedLatenessIsTheSmallestThatKeepsTheLateFractionAtTheTarget() {
    Advice advice = Advisor.withTargetLateFraction(1e-4).advise(handMade());

    assertThat(advice.events()).isEqualTo(10_000);
    assertThat(advice.targetLateFraction()).isEqualTo(1e-4);
    assertThat(advice.lateness())
        .isEqualTo(new LatenessChoice("late <= 1e-4 (lag 100ms)", 100, 1e-4, 100));
    assertThat(advice.latenessChoices())
        .containsExactly(
            new LatenessChoice("late <= 1e-2 (lag 0s)", 0, 1e-3, 0),
            new LatenessChoice("late <= 1e-3 (lag 0s)", 0, 1e-3, 0),
            new LatenessChoice("late <= 1e-4 (lag 100ms)", 100, 1e-4, 100),
            new LatenessChoice("late <= 1e-5 (lag 200ms)", 200, 0, 200),
            new LatenessChoice("no recorded event late (lag 200ms)", 200, 0, 200));
  }

  /** A lag snapshot of {@code inOrder} events lagging 0 and {@code lagging} lagging {@code lag}. */
  static DisorderSnapshot lags(long inOrder, long lagging, long lagMillis) {
    Histogram lag = DisorderRecorder.histogram(DisorderRecorder.DEFAULT_MAX_LAG.toMillis());
    lag.recordValueWithCount(0, inOrder);
    lag.recordValueWithCount(lagMillis, lagging);
    return DisorderSnapshot.of(
        new Distribution(lag),
        new Distribution(DisorderRecorder.histogram(2)),
        new Distribution(DisorderRecorder.histogram(2)),
        0);
  }

  /**
   * Regression (issue 16): a lag in the histogram bucket of the lateness, but above it, counted as
   * not late. With 1,000 of 2,000 events lagging 1,001 ms (the bucket [1000, 1003]), 1 s was
   * recommended with "expected 0.00e+00", while half the events lag it; the same at 60.1 s (the
   * bucket [59904, 60159]) gave 1 min.
   */
  @Test
  void aLagAboveTheLatenessInItsHistogramBucketCountsAsLate() {
    Advice oneSecond = Advisor.defaults().advise(lags(1_000, 1_000, 1_001));
    assertThat(oneSecond.lateness())
        .isEqualTo(new LatenessChoice("late <= 1e-4 (lag 1s3ms)", 2_000, 0, 2_000));
    assertThat(oneSecond.latenessChoices())
        .extracting(LatenessChoice::allowedLatenessMillis)
        .containsOnly(2_000L);
    assertThat(oneSecond.recommendation())
        .startsWith("recommended: allowed lateness 2s (late fraction <= 1e-4, expected 0.00e+00,");
    assertThat(Advisor.latenessFor(lags(1_000, 1_000, 1_001).lagMillis(), 0.5))
        .isEqualTo(new LatenessChoice("late <= 5e-1 (lag 0s)", 0, 0.5, 0));

    Advice oneMinute = Advisor.defaults().advise(lags(1_000, 1_000, 60_100));
    assertThat(oneMinute.lateness().allowedLatenessMillis()).isEqualTo(120_000);
    assertThat(oneMinute.lateness().expectedLateFraction()).isZero();
  }

  /**
   * The recommended lateness is the first round value (0, the ladder, then whole hours) whose upper
   * bound {@code countAbove} meets the target, as a walk up the round values finds it, and that
   * bound is at least the fraction of raw lags above it: random lags up to 4.7 hours, seeded,
   * against that reference.
   */
  @Test
  void theRecommendedLatenessIsTheFirstRoundValueWhoseBoundMeetsTheTargetOnRandomLags() {
    for (long seed = 1; seed <= Trials.of(200); seed++) {
      Random random = new Random(seed);
      Histogram lag = DisorderRecorder.histogram(DisorderRecorder.DEFAULT_MAX_LAG.toMillis());
      int n = 1 + random.nextInt(2_000);
      long[] raw = new long[n];
      long scale = 1L << random.nextInt(25); // up to 4.7 hours: the ladder and whole hours
      for (int i = 0; i < n; i++) {
        raw[i] = random.nextInt(3) == 0 ? 0 : (long) (random.nextDouble() * scale);
        lag.recordValue(raw[i]);
      }
      Distribution d = new Distribution(lag);
      for (double target : new double[] {0.5, 1e-2, 1e-3, 1e-4, 0}) {
        long allowed = Distribution.allowedAbove(target, n);
        long expected = 0;
        while (d.countAbove(expected) > allowed) {
          expected = Advisor.roundAtLeast(expected + 1);
        }
        LatenessChoice c = Advisor.latenessFor(d, target);
        String trace = "seed " + seed + ", target " + target + ", lags " + n + " up to " + scale;
        assertThat(c.allowedLatenessMillis()).as(trace).isEqualTo(expected);
        long rawAbove = 0;
        for (long r : raw) {
          rawAbove += r > expected ? 1 : 0;
        }
        assertThat(d.countAbove(expected)).as(trace).isGreaterThanOrEqualTo(rawAbove);
        assertThat(c.expectedLateFraction()).as(trace).isLessThanOrEqualTo(target);
      }
    }
  }

  /**
   * Regression (issue 16): the search for the lateness stepped one hour at a time up to the largest
   * lag, reading the histogram at each step. With {@code maxLag(FOREVER)} and one event from a
   * device clock reading the year 2999 it ran for minutes; with lags of {@code Long.MAX_VALUE} it
   * would not have ended, and its last whole hour would have overflowed.
   */
  @Test
  void anEventFromTheFarFutureIsAdvisedAtOnce() {
    ManualClock clock = new ManualClock();
    DisorderRecorder recorder =
        DisorderRecorder.builder().clock(clock).maxLag(ChronoUnit.FOREVER.getDuration()).build();
    SourceDisorder p0 = recorder.source("p0");
    long now = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    long future = Instant.parse("2999-01-01T00:00:00Z").toEpochMilli();
    recorder.record(p0, now);
    recorder.record(p0, future);
    recorder.record(p0, now + 1_000); // lags the year 2999 by 973 years
    DisorderSnapshot snapshot = recorder.snapshot();

    Advice advice =
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> Advisor.defaults().advise(snapshot));
    long lateness = advice.lateness().allowedLatenessMillis();
    assertThat(lateness % 3_600_000).isZero();
    assertThat(lateness).isGreaterThanOrEqualTo(snapshot.lagMillis().max());
    assertThat(lateness - 3_600_000).isLessThan(snapshot.lagMillis().max());
    assertThat(advice.lateness().expectedLateFraction()).isZero();

    DisorderRecorder ends =
        DisorderRecorder.builder().clock(clock).maxLag(ChronoUnit.FOREVER.getDuration()).build();
    SourceDisorder s = ends.source("s");
    ends.record(s, Long.MAX_VALUE);
    ends.record(s, Long.MIN_VALUE); // lags by more than Long.MAX_VALUE: saturated
    Advice forever =
        assertTimeoutPreemptively(
            Duration.ofSeconds(2), () -> Advisor.defaults().advise(ends.snapshot()));
    assertThat(forever.lateness().allowedLatenessMillis()).isEqualTo(Long.MAX_VALUE);
    assertThat(forever.recommendation()).startsWith("recommended: allowed lateness forever (");
  }

  @Test
  void aTargetOutsideTheTableIsAddedToItInOrder() {
    Advice advice = Advisor.withTargetLateFraction(5e-4).advise(handMade());
    assertThat(advice.latenessChoices()).hasSize(6);
    assertThat(advice.latenessChoices().get(2))
        .isEqualTo(new LatenessChoice("late <= 5e-4 (lag 100ms)", 100, 1e-4, 100));
    assertThat(advice.lateness()).isSameAs(advice.latenessChoices().get(2));
  }

  @Test
  void theRecommendedIdleTimeoutIsTheFirstRoundValueAboveTheP999GapWithItsFlapsPerDay() {
    Advice advice = Advisor.defaults().advise(handMade());

    List<IdleTimeoutChoice> idle = advice.idleTimeoutChoices();
    assertThat(idle)
        .extracting(IdleTimeoutChoice::idleTimeoutMillis)
        .containsExactly(2_000L, 5_000L, 1_800_000L, 1_800_000L);
    assertThat(idle)
        .extracting(IdleTimeoutChoice::expectedFlapsPerDay)
        .containsExactly(3.0, 1.0, 0.0, 0.0);
    assertThat(idle)
        .extracting(IdleTimeoutChoice::expectedResultDelayMillis)
        .containsExactly(2_000L, 5_000L, 1_800_000L, 1_800_000L);
    assertThat(idle)
        .extracting(IdleTimeoutChoice::basis)
        .containsExactly(
            "> p99 gap (1s3ms)",
            "> p99.9 gap (3s4ms)",
            "> p99.99 gap (20m2s591ms)",
            "> max gap (20m2s591ms)");
    assertThat(advice.idleTimeout()).contains(idle.get(1));
  }

  @Test
  void anIdleTimeoutThatWouldFlapMoreThanOnceAnHourGivesWayToTheNextPercentile() {
    DisorderSnapshot d = handMade(); // 1 flap above the p99.9 choice, 0 above the p99.99 one
    DisorderSnapshot oneDay =
        DisorderSnapshot.of(d.lagMillis(), d.gapNanos(), d.lateBehindMillis(), DAY_NANOS / 24);
    assertThat(Advisor.defaults().advise(oneDay).idleTimeout().orElseThrow().idleTimeoutMillis())
        .isEqualTo(5_000); // 24 flaps a day: still one an hour
    DisorderSnapshot shorter =
        DisorderSnapshot.of(d.lagMillis(), d.gapNanos(), d.lateBehindMillis(), DAY_NANOS / 25);
    Advice advice = Advisor.defaults().advise(shorter);
    assertThat(advice.idleTimeoutChoices().get(1).expectedFlapsPerDay()).isEqualTo(25.0);
    assertThat(advice.idleTimeout()).contains(advice.idleTimeoutChoices().get(2)); // 30m
  }

  @Test
  void withFlapsAtEveryPercentileTheLargestGapsChoiceIsRecommended() {
    Histogram gaps = DisorderRecorder.histogram(DAY_NANOS);
    gaps.recordValueWithCount(1_000_000L, 100_000); // 1 ms
    gaps.recordValueWithCount(10 * SECOND_NANOS, 100); // p99.9: 10 s, timeout 15 s, 11 above
    gaps.recordValueWithCount(100 * SECOND_NANOS, 10); // p99.99: 100 s, timeout 2m, 1 above
    gaps.recordValue(1_000 * SECOND_NANOS); // max: 16m40s, timeout 30m
    DisorderSnapshot d = handMade();
    DisorderSnapshot halfHour =
        DisorderSnapshot.of(
            d.lagMillis(), new Distribution(gaps), d.lateBehindMillis(), DAY_NANOS / 48);
    Advice advice = Advisor.defaults().advise(halfHour);
    assertThat(advice.idleTimeoutChoices())
        .extracting(IdleTimeoutChoice::idleTimeoutMillis, IdleTimeoutChoice::expectedFlapsPerDay)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1_000L, 111.0 * 48),
            org.assertj.core.groups.Tuple.tuple(15_000L, 11.0 * 48),
            org.assertj.core.groups.Tuple.tuple(120_000L, 48.0),
            org.assertj.core.groups.Tuple.tuple(1_800_000L, 0.0));
    assertThat(advice.idleTimeout()).contains(advice.idleTimeoutChoices().get(3));
  }

  @Test
  void flapsPerDayScaleWithTheObservedTime() {
    DisorderSnapshot d = handMade();
    DisorderSnapshot halfDay =
        DisorderSnapshot.of(d.lagMillis(), d.gapNanos(), d.lateBehindMillis(), DAY_NANOS / 2);
    assertThat(Advisor.idleTimeoutFor(halfDay, 99).expectedFlapsPerDay()).isEqualTo(6.0);
    DisorderSnapshot instant =
        DisorderSnapshot.of(d.lagMillis(), d.gapNanos(), d.lateBehindMillis(), 0);
    assertThat(Advisor.idleTimeoutFor(instant, 99).expectedFlapsPerDay()).isZero();
  }

  @Test
  void withoutAGapThereIsNoIdleRecommendation() {
    ManualClock clock = new ManualClock();
    DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
    recorder.record(recorder.source("p0"), 1_000);
    recorder.record(recorder.source("p1"), 2_000);

    Advice advice = Advisor.defaults().advise(recorder.snapshot());
    assertThat(advice.idleTimeout()).isEmpty();
    assertThat(advice.idleTimeoutChoices()).isEmpty();
    assertThat(advice.lateness().allowedLatenessMillis()).isZero();
    assertThat(advice.recommendation())
        .isEqualTo(
            "recommended: allowed lateness 0s (late fraction <= 1e-4, expected 0.00e+00, results"
                + " 0s after the window end); idle timeout: no gap measured (no source had two"
                + " records)");
  }

  @Test
  void anIdleTimeoutIsNeverBelowOneSecond() {
    ManualClock clock = new ManualClock();
    DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
    SourceDisorder p0 = recorder.source("p0");
    for (int i = 0; i < 100; i++) {
      recorder.record(p0, i);
      clock.advance(Duration.ofMillis(3));
    }
    assertThat(Advisor.defaults().advise(recorder.snapshot()).idleTimeout().orElseThrow())
        .isEqualTo(new IdleTimeoutChoice("> p99.9 gap (4ms)", 1_000, 0, 1_000));
  }

  @Test
  void theAdviceRendersBothTablesAndTheRecommendation() {
    assertThat(Advisor.defaults().advise(handMade()))
        .hasToString(
            String.join(
                "\n",
                "advice from 10,000 events",
                "allowed lateness   late fraction  result delay  basis",
                "              0s        1.00e-03            0s  late <= 1e-2 (lag 0s)",
                "              0s        1.00e-03            0s  late <= 1e-3 (lag 0s)",
                "           100ms        1.00e-04         100ms  late <= 1e-4 (lag 100ms)",
                "           200ms        0.00e+00         200ms  late <= 1e-5 (lag 200ms)",
                "           200ms        0.00e+00         200ms  no recorded event late (lag 200ms)",
                "    idle timeout  idle flaps/day   quiet delay  basis",
                "              2s             3.0            2s  > p99 gap (1s3ms)",
                "              5s             1.0            5s  > p99.9 gap (3s4ms)",
                "             30m             0.0           30m  > p99.99 gap (20m2s591ms)",
                "             30m             0.0           30m  > max gap (20m2s591ms)",
                "recommended: allowed lateness 100ms (late fraction <= 1e-4, expected 1.00e-04,"
                    + " results 100ms after the window end); idle timeout 5s (> p99.9 gap"
                    + " (3s4ms), 1.0 idle flaps/day)"));
  }

  @Test
  void roundValuesAreTheLadderThenWholeHours() {
    assertThat(Advisor.roundAtLeast(-5)).isZero();
    assertThat(Advisor.roundAtLeast(0)).isZero();
    assertThat(Advisor.roundAtLeast(1)).isEqualTo(1);
    assertThat(Advisor.roundAtLeast(3)).isEqualTo(5);
    assertThat(Advisor.roundAtLeast(501)).isEqualTo(1_000);
    assertThat(Advisor.roundAtLeast(15_000)).isEqualTo(15_000);
    assertThat(Advisor.roundAtLeast(3_600_000)).isEqualTo(3_600_000);
    assertThat(Advisor.roundAtLeast(3_600_001)).isEqualTo(7_200_000);
    assertThat(Advisor.roundAtLeast(7_200_000)).isEqualTo(7_200_000);
    assertThat(Advisor.roundAtLeast(Long.MAX_VALUE / 3_600_000 * 3_600_000))
        .isEqualTo(Long.MAX_VALUE / 3_600_000 * 3_600_000); // the last whole hour
    assertThat(Advisor.roundAtLeast(Long.MAX_VALUE / 3_600_000 * 3_600_000 + 1))
        .isEqualTo(Long.MAX_VALUE); // saturated: forever
    assertThat(Advisor.roundAtLeast(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(Advisor.roundAbove(0)).isEqualTo(1_000);
    assertThat(Advisor.roundAbove(1_000)).isEqualTo(2_000);
    assertThat(Advisor.roundAbove(119_999)).isEqualTo(120_000);
    assertThat(Advisor.roundAbove(120_000)).isEqualTo(300_000);
    assertThat(Advisor.ceilMillis(1_000_000)).isEqualTo(1);
    assertThat(Advisor.ceilMillis(1_000_001)).isEqualTo(2);
    assertThat(Advisor.ceilMillis(0)).isZero();
  }

  @Test
  void theTargetAndTheSnapshotAreChecked() {
    assertThatThrownBy(() -> Advisor.withTargetLateFraction(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("targetLateFraction must be in [0, 1): 1.0");
    assertThatThrownBy(() -> Advisor.withTargetLateFraction(-1e-4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Advisor.withTargetLateFraction(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Advisor.withTargetLateFraction(0).targetLateFraction()).isZero();
    assertThat(Advisor.defaults().targetLateFraction()).isEqualTo(1e-4);
    assertThat(Advisor.defaults()).hasToString("Advisor{targetLateFraction=1e-4}");
    assertThatThrownBy(() -> Advisor.defaults().advise(DisorderSnapshot.EMPTY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("snapshot has no event: ");
    assertThatThrownBy(() -> Advisor.defaults().advise(null)).hasMessage("snapshot");
  }

  @Test
  void choicesRejectNegativeDurationsByName() {
    assertThatThrownBy(() -> new LatenessChoice("b", -1, 0, 0))
        .hasMessage("allowedLatenessMillis must be >= 0: -1");
    assertThatThrownBy(() -> new LatenessChoice("b", 0, 0, -2))
        .hasMessage("expectedResultDelayMillis must be >= 0: -2");
    assertThatThrownBy(() -> new IdleTimeoutChoice("b", -1, 0, 0))
        .hasMessage("idleTimeoutMillis must be >= 0: -1");
    assertThatThrownBy(() -> new IdleTimeoutChoice("b", 0, 0, -2))
        .hasMessage("expectedResultDelayMillis must be >= 0: -2");
    assertThatThrownBy(() -> new LatenessChoice(null, 0, 0, 0)).hasMessage("basis");
    assertThatThrownBy(() -> new IdleTimeoutChoice(null, 0, 0, 0)).hasMessage("basis");
  }

  @Test
  void durationsAreWrittenAsTheReplayToolReadsThem() {
    assertThat(DurationText.format(0)).isEqualTo("0s");
    assertThat(DurationText.format(250)).isEqualTo("250ms");
    assertThat(DurationText.format(150_000)).isEqualTo("2m30s");
    assertThat(DurationText.format(3_600_000)).isEqualTo("1h");
    assertThat(DurationText.format(90_061_001)).isEqualTo("1d1h1m1s1ms");
    assertThat(DurationText.format(Long.MAX_VALUE)).isEqualTo("forever");
    assertThatThrownBy(() -> DurationText.format(-1)).hasMessage("millis must be >= 0: -1");
    assertThat(Advisor.formatFraction(0)).isEqualTo("0");
    assertThat(Advisor.formatFraction(1e-2)).isEqualTo("1e-2");
    assertThat(Advisor.formatFraction(5e-4)).isEqualTo("5e-4");
  }
}
