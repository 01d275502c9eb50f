package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link TumblingAssigner}: {@code [floorDiv(t, size) * size, + size)}, compared with exact
 * arithmetic (BigInteger, clamped to the long bounds) on random times and sizes, negative times,
 * zero and the long bounds included.
 */
class TumblingAssignerTest {

  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private static long clamp(BigInteger v) {
    return v.max(MIN).min(MAX).longValueExact();
  }

  private static void check(long t, long size) {
    BigInteger bt = BigInteger.valueOf(t);
    BigInteger bs = BigInteger.valueOf(size);
    BigInteger start = bt.subtract(bt.mod(bs));
    TumblingAssigner a = new TumblingAssigner(size);
    assertThat(a.startOf(t)).as("start of %d, size %d", t, size).isEqualTo(clamp(start));
    assertThat(a.endOf(t)).as("end of %d, size %d", t, size).isEqualTo(clamp(start.add(bs)));
  }

  @Test
  void theWindowOfATimeIsExactAndSaturatesAtTheLongBounds() {
    long[] edges = {
      Long.MIN_VALUE,
      Long.MIN_VALUE + 1,
      -1_001,
      -1_000,
      -999,
      -1,
      0,
      1,
      999,
      1_000,
      Long.MAX_VALUE - 1,
      Long.MAX_VALUE
    };
    long[] sizes = {1, 2, 1_000, 300_000, Long.MAX_VALUE};
    for (long t : edges) {
      for (long size : sizes) {
        check(t, size);
      }
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < Trials.of(10_000); i++) {
      check(random.nextLong(), 1 + random.nextLong(Long.MAX_VALUE));
      check(random.nextLong(-10_000_000, 10_000_000), 1 + random.nextInt(100_000));
    }
  }

  @Test
  void aTimeAtAWindowsStartBelongsToThatWindowAndTheEndIsExclusive() {
    TumblingAssigner a = new TumblingAssigner(1_000);
    assertThat(a.startOf(2_000)).isEqualTo(2_000);
    assertThat(a.endOf(2_000)).isEqualTo(3_000);
    assertThat(a.endOf(2_999)).isEqualTo(3_000);
    assertThat(a.startOf(-1)).isEqualTo(-1_000);
    assertThat(a.endOf(-1)).isEqualTo(0);
  }
}
