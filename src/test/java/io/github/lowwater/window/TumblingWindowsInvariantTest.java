package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Invariants of {@link TumblingWindows} over seeded random traces. A failure names its seed; rerun
 * {@link #run(long)} with it to replay.
 *
 * <ul>
 *   <li>the watermark never decreases;
 *   <li>{@code accepted + late == added}, and each counter matches the return values of add;
 *   <li>every window is emitted exactly once, in ascending end order, and never ahead of the
 *       watermark;
 *   <li>an in-order event on a source that was registered before any event and never went idle is
 *       never late (traces without advanceTo/seed, which may legitimately overtake a source);
 *   <li>after {@code advanceTo} far ahead, every accepted value is in exactly one emitted window.
 * </ul>
 */
class TumblingWindowsInvariantTest {

  @Test
  void invariantsHoldOnRandomTraces() {
    for (long seed = 1; seed <= Trials.of(300); seed++) {
      run(seed);
    }
  }

  private static void run(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    boolean wallMoves = random.nextBoolean(); // with advanceTo/seed, or without them
    long size = 1 + random.nextInt(2_000);
    long lateness = random.nextInt(3) == 0 ? 0 : random.nextInt(5_000);
    long idleMillis = 1 + random.nextInt(3_000);
    int sources = 1 + random.nextInt(8);
    ManualClock clock = new ManualClock();
    TumblingWindows<Integer, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(lateness))
            .idleTimeout(Duration.ofMillis(idleMillis))
            .clock(clock)
            .build();
    io.github.lowwater.WatermarkTracker.Source[] handles =
        new io.github.lowwater.WatermarkTracker.Source[sources];
    for (int s = 0; s < sources; s++) {
      if (random.nextBoolean()) {
        windows.register(s);
      }
      handles[s] = windows.source(s); // registers the rest
    }

    long[] frontier = new long[sources];
    long[] lastSeenMillis = new long[sources]; // on the monotonic clock, in ms (ManualClock)
    boolean[] wentIdle = new boolean[sources];
    long origin = random.nextLong(-1L << 42, 1L << 42);
    long[] next = new long[sources];
    for (int s = 0; s < sources; s++) {
      frontier[s] = Long.MIN_VALUE;
      next[s] = origin;
    }

    Map<Long, Map<Integer, Long>> acceptedTruth = new HashMap<>();
    Set<Long> emittedWindows = new HashSet<>();
    long lastEmittedEnd = Long.MIN_VALUE;
    long added = 0;
    long acceptedCount = 0;
    long lateCount = 0;
    long previousWatermark = windows.watermark();
    String where = "seed " + seed;

    for (int step = 0; step < 2_000; step++) {
      long nowMillis = clock.monotonicNanos() / 1_000_000;
      for (int s = 0; s < sources; s++) {
        if (nowMillis - lastSeenMillis[s] > idleMillis) {
          wentIdle[s] = true; // conservative: eligible, whether or not it was evaluated idle
        }
      }
      int dice = random.nextInt(100);
      if (dice < 80) {
        int s = random.nextInt(sources);
        boolean inOrder = random.nextInt(5) > 0;
        long t;
        if (inOrder) {
          next[s] += random.nextInt((int) Math.min(3 * size, Integer.MAX_VALUE));
          t = next[s];
        } else {
          t = next[s] - random.nextInt(10_000);
        }
        boolean protectedEvent = !wallMoves && !wentIdle[s] && t >= frontier[s];
        int key = random.nextInt(5);
        long value = random.nextInt(100);
        boolean accepted =
            random.nextBoolean()
                ? windows.add(handles[s], t, key, value)
                : windows.add(s, t, key, value);
        added++;
        if (accepted) {
          acceptedCount++;
          long start = t - Math.floorMod(t, size);
          acceptedTruth.computeIfAbsent(start, k -> new HashMap<>()).merge(key, value, Long::sum);
        } else {
          lateCount++;
          assertThat(protectedEvent)
              .as(
                  "%s step %d: in-order event %d of never-idle source %d was late (wm %d)",
                  where, step, t, s, windows.watermark())
              .isFalse();
        }
        frontier[s] = Math.max(frontier[s], t);
        lastSeenMillis[s] = nowMillis;
      } else if (dice < 90) {
        clock.advanceMillis(random.nextInt((int) idleMillis + 2));
      } else if (dice < 95) {
        windows.refresh();
      } else if (wallMoves && dice < 98) {
        windows.advanceTo(TimeMath.saturatedAdd(origin, random.nextInt(100_000)));
      } else if (wallMoves) {
        windows.seedWatermark(TimeMath.saturatedAdd(origin, random.nextInt(100_000)));
      }
      long watermark = windows.watermark();
      assertThat(watermark)
          .as("%s step %d: monotonic watermark", where, step)
          .isGreaterThanOrEqualTo(previousWatermark);
      previousWatermark = watermark;
      WindowStats stats = windows.stats();
      assertThat(stats.accepted()).as(where).isEqualTo(acceptedCount);
      assertThat(stats.late()).as(where).isEqualTo(lateCount);
      assertThat(stats.added()).as(where).isEqualTo(added);
      if (random.nextInt(4) == 0) {
        lastEmittedEnd =
            drain(windows, emittedWindows, lastEmittedEnd, acceptedTruth, watermark, where);
      }
    }
    windows.advanceTo(Long.MAX_VALUE);
    drain(windows, emittedWindows, lastEmittedEnd, acceptedTruth, Long.MAX_VALUE, where);
    assertThat(acceptedTruth).as("%s: accepted values never emitted", where).isEmpty();
    assertThat(windows.stats().openWindows()).isZero();
    assertThat(windows.stats().finalizedWindows()).isEqualTo(emittedWindows.size());
  }

  /** Drains results, checking order and uniqueness and removing them from the accepted truth. */
  private static long drain(
      TumblingWindows<Integer, Long, Long> windows,
      Set<Long> emittedWindows,
      long lastEmittedEnd,
      Map<Long, Map<Integer, Long>> acceptedTruth,
      long watermark,
      String where) {
    long previousStart = Long.MIN_VALUE;
    boolean first = true;
    for (WindowResult<Integer, Long> r : windows.pollFinalized()) {
      assertThat(r.end())
          .as(where)
          .isGreaterThanOrEqualTo(lastEmittedEnd)
          .isLessThanOrEqualTo(watermark);
      lastEmittedEnd = r.end();
      if (first || r.start() != previousStart) {
        assertThat(emittedWindows.add(r.start()))
            .as("%s: window %d emitted twice", where, r.start())
            .isTrue();
      }
      first = false;
      previousStart = r.start();
      Map<Integer, Long> truth = acceptedTruth.get(r.start());
      assertThat(truth)
          .as("%s: emitted window %d has no accepted value", where, r.start())
          .isNotNull();
      assertThat(truth.remove(r.key()))
          .as("%s: window %d key %d", where, r.start(), r.key())
          .isEqualTo(r.value());
      if (truth.isEmpty()) {
        acceptedTruth.remove(r.start());
      }
    }
    return lastEmittedEnd;
  }
}
