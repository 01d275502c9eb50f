package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.WatermarkTracker;
import org.junit.jupiter.api.Test;

/** The quiet-period rule at its edges. */
class QuietAdvanceTest {

  static final long AFTER = 90_000_000_000L; // 90 s in nanoseconds
  static final long MAX_LAG = 3_600_000; // 1 h in milliseconds
  static final long WALL = 1_767_225_600_000L;

  @Test
  void dueOnceQuietForExactlyTheQuietPeriodNotOneNanosecondBefore() {
    QuietAdvance quiet = new QuietAdvance(AFTER, MAX_LAG, "p0", 1_000);
    assertThat(quiet.due(1_000 + AFTER - 1, WALL - 60_000, WALL)).isFalse();
    assertThat(quiet.due(1_000 + AFTER, WALL - 60_000, WALL)).isTrue();
  }

  @Test
  void activityStartsTheQuietPeriodAgain() {
    QuietAdvance quiet = new QuietAdvance(AFTER, MAX_LAG, "p0", 0);
    quiet.activity(AFTER);
    assertThat(quiet.due(AFTER, WALL - 60_000, WALL)).isFalse();
    assertThat(quiet.due(2 * AFTER, WALL - 60_000, WALL)).isTrue();
  }

  /** Regression: an empty topic logged "the watermark -9223372036854775808 lags ...". */
  @Test
  void noWatermarkIsNothingToAdvanceNotALag() {
    QuietAdvance quiet = new QuietAdvance(AFTER, MAX_LAG, "p0", 0);
    assertThat(quiet.due(10 * AFTER, WatermarkTracker.NO_WATERMARK, WALL)).isFalse();
  }

  @Test
  void aLagOfExactlyTheBoundStillAdvancesOneMillisecondMoreDoesNot() {
    QuietAdvance quiet = new QuietAdvance(AFTER, MAX_LAG, "p0", 0);
    assertThat(quiet.due(AFTER, WALL - MAX_LAG, WALL)).isTrue();
    assertThat(quiet.due(AFTER, WALL - MAX_LAG - 1, WALL)).isFalse();
    assertThat(quiet.due(AFTER, Long.MIN_VALUE + 1, Long.MAX_VALUE)).isFalse(); // saturates
  }
}
