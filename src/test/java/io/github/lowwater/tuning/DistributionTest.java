package io.github.lowwater.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class DistributionTest {

  /** A distribution of the given values, each recorded once, up to 1_000_000. */
  static Distribution of(long... values) {
    Histogram h = DisorderRecorder.histogram(1_000_000);
    for (long v : values) {
      h.recordValue(v);
    }
    return new Distribution(h);
  }

  @Test
  void anEmptyDistributionReadsZeroEverywhere() {
    Distribution d = of();
    assertThat(d.count()).isZero();
    assertThat(d.max()).isZero();
    assertThat(d.valueAtPercentile(99)).isZero();
    assertThat(d.countAbove(-1)).isZero();
    assertThat(d.fractionAbove(0)).isZero();
    assertThat(d.smallestValueWithFractionAbove(0)).isZero();
    assertThat(d).hasToString("Distribution{empty}");
  }

  @Test
  void smallValuesAreExactAndPercentilesCountFromBelow() {
    Distribution d = of(0, 0, 0, 0, 0, 0, 0, 10, 20, 30);
    assertThat(d.count()).isEqualTo(10);
    assertThat(d.max()).isEqualTo(30);
    assertThat(d.valueAtPercentile(70)).isZero();
    assertThat(d.valueAtPercentile(80)).isEqualTo(10);
    assertThat(d.valueAtPercentile(100)).isEqualTo(30);
    assertThat(d.countAbove(-1)).isEqualTo(10);
    assertThat(d.countAbove(0)).isEqualTo(3);
    assertThat(d.countAbove(10)).isEqualTo(2);
    assertThat(d.countAbove(29)).isEqualTo(1);
    assertThat(d.countAbove(30)).isZero();
    assertThat(d.countAbove(Long.MAX_VALUE)).isZero();
    assertThat(d.fractionAbove(10)).isEqualTo(0.2);
    assertThat(d).hasToString("Distribution{count=10, p50=0, p99=30, p99.9=30, max=30}");
  }

  @Test
  void theSmallestValueWithAFractionAboveLeavesAtMostThatFractionAboveIt() {
    Distribution d = of(0, 0, 0, 0, 0, 0, 0, 10, 20, 30);
    assertThat(d.smallestValueWithFractionAbove(1)).isZero();
    assertThat(d.smallestValueWithFractionAbove(0.3)).isZero();
    assertThat(d.smallestValueWithFractionAbove(0.29)).isEqualTo(10);
    assertThat(d.smallestValueWithFractionAbove(0.2)).isEqualTo(10);
    assertThat(d.smallestValueWithFractionAbove(0.1)).isEqualTo(20);
    assertThat(d.smallestValueWithFractionAbove(0.05)).isEqualTo(30);
    assertThat(d.smallestValueWithFractionAbove(0)).isEqualTo(30);
  }

  /**
   * Regression (issue 16): a value in the same bucket as {@code value} but above it counted as not
   * above, so {@code countAbove} was no upper bound: 1,001 (bucket [1000, 1003]) was not above
   * 1,000. A bucket that straddles {@code value} now counts as above it.
   */
  @Test
  void largeValuesAreRoundedUpToTheirBucketAndABucketThatStraddlesTheValueCountsAsAbove() {
    Distribution d = of(1_001);
    assertThat(d.max()).isEqualTo(1_003); // two significant digits: buckets of 4 at 1_000
    assertThat(d.countAbove(999)).isEqualTo(1); // 999 is in [996, 999]
    assertThat(d.countAbove(1_000)).isEqualTo(1); // [1000, 1003] may hold values above 1_000
    assertThat(d.fractionAbove(1_000)).isEqualTo(1);
    assertThat(d.countAbove(1_002)).isEqualTo(1);
    assertThat(d.countAbove(1_003)).isZero(); // the whole bucket is at or below it
    assertThat(d.smallestValueWithFractionAbove(0)).isEqualTo(1_003);
    assertThat(d.fractionAbove(d.smallestValueWithFractionAbove(0))).isZero();
  }

  @Test
  void aValueRecordedAtTheHighestTrackableValueIsNotAboveIt() {
    Distribution d = of(1_000_000, 1_000_000);
    assertThat(d.countAbove(999_999)).isEqualTo(2);
    assertThat(d.countAbove(1_000_000)).isZero(); // nothing is recorded above the maximum
  }

  @Test
  void percentilesAndFractionsOutsideTheirRangeAreRejected() {
    Distribution d = of(1);
    assertThatThrownBy(() -> d.valueAtPercentile(100.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentile must be in [0, 100]: 100.5");
    assertThatThrownBy(() -> d.valueAtPercentile(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.valueAtPercentile(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(d.valueAtPercentile(0)).isEqualTo(1);
    assertThatThrownBy(() -> d.smallestValueWithFractionAbove(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fraction must be in [0, 1]: 1.5");
    assertThatThrownBy(() -> d.smallestValueWithFractionAbove(-0.1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.smallestValueWithFractionAbove(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
