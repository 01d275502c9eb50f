package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link FutureGuard} against exact {@link BigInteger} arithmetic for its limit and a
 * {@link HashMap} of counts, on seeded random checks, records and forgets, with the {@code long}
 * bounds. (The tracker's use of the guard is pinned by {@code FutureGuardTest}.) A failure names
 * its seed and step.
 */
class FutureGuardModelTest {

  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Test
  void matchesExactArithmeticAndAMapOfCountsOnRandomOperations() {
    for (long seed = 1; seed <= Trials.of(200); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      long[] skews = {0, 1, 300_000, Long.MAX_VALUE / 2, Long.MAX_VALUE - 1, FutureGuard.OFF};
      long skew = skews[random.nextInt(skews.length)];
      FutureGuard guard = new FutureGuard(skew);
      assertThat(guard.isOn()).as("seed %d on", seed).isEqualTo(skew != FutureGuard.OFF);
      Map<Object, Long> reference = new HashMap<>();
      for (int step = 0; step < 1_000; step++) {
        String where = "seed " + seed + " step " + step;
        long wall = anyTime(random);
        long t = random.nextBoolean() ? anyTime(random) : wall + random.nextInt(-5, 5) + skew;
        BigInteger limit =
            skew == FutureGuard.OFF
                ? MAX
                : BigInteger.valueOf(wall).add(BigInteger.valueOf(skew)).min(MAX);
        assertThat(guard.limitMillis(wall))
            .as(where + " limit at " + wall)
            .isEqualTo(limit.longValue());
        assertThat((t > guard.limitMillis(wall)))
            .as(where + " " + t + " beyond at " + wall)
            .isEqualTo(BigInteger.valueOf(t).compareTo(limit) > 0);
        String key = "s" + random.nextInt(8);
        if (random.nextInt(4) == 0) {
          guard.forget(key);
          reference.remove(key);
        } else {
          guard.record(key);
          reference.merge(key, 1L, Long::sum);
        }
        String probe = "s" + random.nextInt(8);
        assertThat(guard.count(probe))
            .as(where + " count of " + probe)
            .isEqualTo(reference.getOrDefault(probe, 0L));
      }
    }
  }

  private static long anyTime(SplittableRandom random) {
    int dice = random.nextInt(10);
    return dice == 0 ? Long.MAX_VALUE : dice == 1 ? Long.MIN_VALUE : random.nextLong();
  }

  @Test
  void anEventExactlyAtTheLimitIsNotBeyondOneMillisecondMoreIs() {
    FutureGuard guard = new FutureGuard(5_000);
    assertThat((1_005_000 > guard.limitMillis(1_000_000))).isFalse();
    assertThat((1_005_001 > guard.limitMillis(1_000_000))).isTrue();
    assertThat((Long.MAX_VALUE > guard.limitMillis(Long.MAX_VALUE - 1))).as("saturated").isFalse();
  }

  @Test
  void aGuardThatIsOffLetsEveryTimeThrough() {
    FutureGuard guard = new FutureGuard(FutureGuard.OFF);
    assertThat(guard.isOn()).isFalse();
    assertThat((Long.MAX_VALUE > guard.limitMillis(Long.MIN_VALUE))).isFalse();
    assertThat(guard.limitMillis(0)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void countsStartAtZeroAndAForgottenSourceStartsAgain() {
    FutureGuard guard = new FutureGuard(0);
    assertThat(guard.count("a")).isZero();
    guard.forget("a"); // before any count: nothing to forget
    guard.record("a");
    guard.record("a");
    guard.record("b");
    assertThat(guard.count("a")).isEqualTo(2);
    assertThat(guard.count("b")).isEqualTo(1);
    guard.forget("a");
    assertThat(guard.count("a")).isZero();
    assertThat(guard.count("b")).isEqualTo(1);
  }
}
