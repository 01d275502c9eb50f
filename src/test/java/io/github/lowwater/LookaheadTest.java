package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.testing.Trials;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Lookahead on a fetched batch (rule 17). */
class LookaheadTest extends TrackerFixture {

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
    for (long seed = 1; seed <= Trials.of(200); seed++) {
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
