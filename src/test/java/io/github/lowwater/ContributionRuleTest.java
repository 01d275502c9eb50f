package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link ContributionRule} against the rules of {@code docs/semantics.md} (15 to 17)
 * in exact {@link BigInteger} arithmetic, clamped to {@code long} only at the end, on seeded random
 * strategies, lateness and times across the whole {@code long} range. A failure names its seed and
 * step.
 */
class ContributionRuleTest {

  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);

  @Test
  void everyFloorMatchesTheRulesInExactArithmetic() {
    long[] latenesses = {0, 1, 1_000, 120_000, Long.MAX_VALUE / 2, Long.MAX_VALUE};
    for (long seed = 1; seed <= Trials.of(200); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      WatermarkStrategy strategy = WatermarkStrategy.values()[random.nextInt(3)];
      long lateness = latenesses[random.nextInt(latenesses.length)];
      ContributionRule rule = new ContributionRule(strategy, lateness);
      String where = "seed " + seed + " " + strategy + " lateness " + lateness;
      assertThat(rule.strategy()).as(where).isEqualTo(strategy);
      assertThat(rule.allowedLatenessMillis()).as(where).isEqualTo(lateness);
      assertThat(rule.raisesOnActivity())
          .as(where)
          .isEqualTo(strategy == WatermarkStrategy.PROCESSING_TIME);
      for (int step = 0; step < 500; step++) {
        long a = anyTime(random);
        long b = anyTime(random);
        long min = Math.min(a, b);
        long max = Math.max(a, b);
        String at = where + " step " + step + " times " + min + ", " + max;
        long lessLateness = lessLateness(a, lateness);
        assertThat(rule.lessLateness(a)).as(at).isEqualTo(lessLateness);
        assertThat(rule.ofActivity(a)).as(at).isEqualTo(lessLateness);
        assertThat(rule.ofEvent(a))
            .as(at)
            .isEqualTo(
                strategy == WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS
                    ? lessLateness
                    : WatermarkTracker.UNSEEN);
        assertThat(rule.ofLookahead(min, max))
            .as(at)
            .isEqualTo(Math.min(min, lessLateness(max, lateness)));
      }
    }
  }

  private static long lessLateness(long time, long lateness) {
    return BigInteger.valueOf(time).subtract(BigInteger.valueOf(lateness)).max(MIN).longValue();
  }

  private static long anyTime(SplittableRandom random) {
    int dice = random.nextInt(10);
    return dice == 0 ? Long.MAX_VALUE : dice == 1 ? Long.MIN_VALUE : random.nextLong();
  }

  @Test
  void anEventAtTheBottomOfTimeRaisesNothingAndTheTopLessLatenessIsExact() {
    ContributionRule rule = new ContributionRule(WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS, 10);
    assertThat(rule.ofEvent(Long.MIN_VALUE)).isEqualTo(WatermarkTracker.UNSEEN);
    assertThat(rule.ofEvent(Long.MIN_VALUE + 10)).isEqualTo(Long.MIN_VALUE);
    assertThat(rule.ofEvent(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE - 10);
    assertThat(rule.ofLookahead(100, 105)).as("the batch's first event").isEqualTo(95);
    assertThat(rule.ofLookahead(100, 200)).as("the first event bounds it").isEqualTo(100);
  }

  @Test
  void onlyBoundedOutOfOrdernessEventsRaiseAndOnlyProcessingTimeActivityDoes() {
    ContributionRule punctuated = new ContributionRule(WatermarkStrategy.PUNCTUATED, 0);
    assertThat(punctuated.ofEvent(1_000)).isEqualTo(WatermarkTracker.UNSEEN);
    assertThat(punctuated.raisesOnActivity()).isFalse();
    ContributionRule processing = new ContributionRule(WatermarkStrategy.PROCESSING_TIME, 5);
    assertThat(processing.ofEvent(1_000)).isEqualTo(WatermarkTracker.UNSEEN);
    assertThat(processing.raisesOnActivity()).isTrue();
    assertThat(processing.ofActivity(1_000)).isEqualTo(995);
  }
}
