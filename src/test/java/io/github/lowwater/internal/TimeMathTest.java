package io.github.lowwater.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimeMathTest {

  private static final long[] EDGES = {
    Long.MIN_VALUE, Long.MIN_VALUE + 1, -2, -1, 0, 1, 2, Long.MAX_VALUE - 1, Long.MAX_VALUE
  };

  @Test
  void addAndSubtractMatchBigIntegerClampedAtTheEdges() {
    for (long a : EDGES) {
      for (long b : EDGES) {
        assertThat(TimeMath.saturatedAdd(a, b))
            .as("%d + %d", a, b)
            .isEqualTo(clamp(big(a).add(big(b))));
        assertThat(TimeMath.saturatedSubtract(a, b))
            .as("%d - %d", a, b)
            .isEqualTo(clamp(big(a).subtract(big(b))));
      }
    }
  }

  @Test
  void addAndSubtractMatchBigIntegerClampedOnRandomValues() {
    long seed = 42;
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < 100_000; i++) {
      long a = random.nextLong();
      long b = random.nextLong();
      assertThat(TimeMath.saturatedAdd(a, b))
          .as("seed %d: %d + %d", seed, a, b)
          .isEqualTo(clamp(big(a).add(big(b))));
      assertThat(TimeMath.saturatedSubtract(a, b))
          .as("seed %d: %d - %d", seed, a, b)
          .isEqualTo(clamp(big(a).subtract(big(b))));
    }
  }

  @Test
  void durationConversionsSaturate() {
    Duration forever = ChronoUnit.FOREVER.getDuration();
    assertThat(TimeMath.toMillisSaturated(forever)).isEqualTo(Long.MAX_VALUE);
    assertThat(TimeMath.toNanosSaturated(forever)).isEqualTo(Long.MAX_VALUE);
    assertThat(TimeMath.toNanosSaturated(forever.negated())).isEqualTo(Long.MIN_VALUE);
    assertThat(TimeMath.toMillisSaturated(Duration.ofSeconds(3))).isEqualTo(3_000);
    assertThat(TimeMath.toNanosSaturated(Duration.ofSeconds(3))).isEqualTo(3_000_000_000L);
  }

  /** The log format of docs/semantics.md: the number, then the instant; "none" for no time. */
  @Test
  void describeMillisGivesTheNumberAndTheInstantOrNoneForNoTime() {
    assertThat(TimeMath.describeMillis(1_767_225_600_000L))
        .isEqualTo("1767225600000 (2026-01-01T00:00:00Z)");
    assertThat(TimeMath.describeMillis(-1)).isEqualTo("-1 (1969-12-31T23:59:59.999Z)");
    assertThat(TimeMath.describeMillis(Long.MIN_VALUE)).isEqualTo("none");
    assertThat(TimeMath.describeMillis(Long.MAX_VALUE))
        .startsWith(Long.MAX_VALUE + " (+292278994-");
  }

  private static BigInteger big(long v) {
    return BigInteger.valueOf(v);
  }

  private static long clamp(BigInteger v) {
    if (v.compareTo(big(Long.MAX_VALUE)) > 0) {
      return Long.MAX_VALUE;
    }
    if (v.compareTo(big(Long.MIN_VALUE)) < 0) {
      return Long.MIN_VALUE;
    }
    return v.longValueExact();
  }
}
