package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.GlobalMaxWindows;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Regression test for the failure this library exists for: during a catch-up after a restart the
 * broker drained six partitions unevenly, a global-max watermark ("newest event time seen minus
 * allowed lateness") raced ahead of the slow partitions, and 169,000 perfectly good events were
 * declared late in 40 minutes. Here: six partitions, each in order, 40 minutes of data each,
 * drained in batches of up to 2,000 with one partition more than 15 minutes ahead of another.
 */
class CatchUpScenarioTest {

  private static final int PARTITIONS = 6;
  private static final long START = Instant.parse("2026-11-28T22:00:00Z").toEpochMilli();
  private static final long SPAN = Duration.ofMinutes(40).toMillis();
  private static final long EVENT_EVERY_MILLIS = 100; // 24,000 events per partition
  private static final long WINDOW = Duration.ofMinutes(5).toMillis();
  private static final long LATENESS = Duration.ofMinutes(2).toMillis();

  @Test
  void unevenDrainMakesGlobalMaxDeclareThousandsLateAndLowwaterNone() {
    long[][] feed = new long[PARTITIONS][];
    Map<Long, Map<String, Long>> truth = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int n = (int) (SPAN / EVENT_EVERY_MILLIS);
      feed[p] = new long[n];
      for (int i = 0; i < n; i++) {
        long t = START + i * EVENT_EVERY_MILLIS + p; // in order within the partition
        feed[p][i] = t;
        truth
            .computeIfAbsent(Math.floorDiv(t, WINDOW) * WINDOW, k -> new HashMap<>())
            .merge(key(p, i), 1L, Long::sum);
      }
    }

    ManualClock clock =
        new ManualClock(Instant.ofEpochMilli(START + SPAN + Duration.ofHours(1).toMillis()));
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMillis(WINDOW), Aggregators.count())
            .allowedLateness(Duration.ofMillis(LATENESS))
            .idleTimeout(Duration.ofMinutes(2))
            .clock(clock)
            .build();
    for (int p = 0; p < PARTITIONS; p++) {
      windows.register("topic-" + p); // the consumer's assignment, before the first poll
    }
    GlobalMaxWindows globalMax = new GlobalMaxWindows(WINDOW, LATENESS);
    Map<Long, Map<String, Long>> emitted = new HashMap<>();

    // Drain unevenly: partition 0 is fetched six times as often as partition 5.
    SplittableRandom random = new SplittableRandom(169_000);
    int[] position = new int[PARTITIONS];
    long maxSkew = 0;
    int remaining = PARTITIONS;
    while (remaining > 0) {
      int p = pickPartition(random, position, feed);
      int batch = 1 + random.nextInt(2_000);
      int end = Math.min(position[p] + batch, feed[p].length);
      for (int i = position[p]; i < end; i++) {
        String source = "topic-" + p;
        assertThat(windows.add(source, feed[p][i], key(p, i), 1L))
            .as("partition %d event %d at %d: watermark %d", p, i, feed[p][i], windows.watermark())
            .isTrue();
        globalMax.add(feed[p][i], key(p, i));
      }
      position[p] = end;
      if (end == feed[p].length) {
        remaining--;
      }
      maxSkew = Math.max(maxSkew, skew(position, feed));
      clock.advance(Duration.ofMillis(20)); // a catch-up poll loop is fast
      collect(windows, emitted);
    }
    windows.advanceTo(clock.wallMillis());
    collect(windows, emitted);

    assertThat(maxSkew)
        .as("the drain really was skewed")
        .isGreaterThan(Duration.ofMinutes(15).toMillis());
    assertThat(globalMax.late()).as("global-max false-late events").isGreaterThan(1_000);
    assertThat(windows.stats().late()).isZero();
    assertThat(windows.stats().accepted()).isEqualTo(PARTITIONS * SPAN / EVENT_EVERY_MILLIS);
    assertThat(emitted).isEqualTo(truth);
  }

  private static String key(int partition, int index) {
    return "line:L" + ((index + partition) % 7);
  }

  private static int pickPartition(SplittableRandom random, int[] position, long[][] feed) {
    while (true) {
      // weights 6, 5, 4, 3, 2, 1 for partitions 0..5
      int ticket = random.nextInt(21);
      int p = 0;
      for (int w = 6; ticket >= w; w--) {
        ticket -= w;
        p++;
      }
      if (position[p] < feed[p].length) {
        return p;
      }
    }
  }

  private static long skew(int[] position, long[][] feed) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int p = 0; p < position.length; p++) {
      if (position[p] > 0 && position[p] < feed[p].length) {
        long frontier = feed[p][position[p] - 1];
        min = Math.min(min, frontier);
        max = Math.max(max, frontier);
      }
    }
    return max >= min ? max - min : 0;
  }

  private static void collect(
      TumblingWindows<String, Long, Long> windows, Map<Long, Map<String, Long>> emitted) {
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      Long previous =
          emitted.computeIfAbsent(r.start(), k -> new HashMap<>()).put(r.key(), r.value());
      assertThat(previous).as("window %d key %s emitted twice", r.start(), r.key()).isNull();
    }
  }
}
