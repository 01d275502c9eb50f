package io.github.lowwater.bench;

import java.util.BitSet;
import java.util.TreeMap;

/**
 * Counts what the {@link WindowsMatrixBenchmark} claims about its input: for each density and key
 * count, the events per window, per (window, key) (events of a window divided by the number of
 * keys) and per open (window, key) (divided by the distinct keys the window holds), and how many
 * windows are open at the start of a poll with the watermark of the minimum over the partitions
 * minus the allowed lateness, as {@code windowsAdd} and {@code byHandMap} keep them, and with the
 * watermark of {@code byHandGlobalMax} (the largest event time of any partition minus the lateness)
 * how many are open and what share of the events is late (dropped). Walks laps 0 to {@link #LAPS} -
 * 1 and counts the whole windows that start in lap 1 or later and end before the last lap ends (the
 * first lap has no history). Run:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.lowwater.bench.MatrixDensity
 * </pre>
 */
public final class MatrixDensity {

  static final int LAPS = 8;

  private MatrixDensity() {}

  /** One window's counts. */
  private static final class Counts {
    long events;
    final BitSet keys = new BitSet();
  }

  public static void main(String[] args) {
    System.out.println(
        "| density | keys | windows counted | events per window | per (window, key) |"
            + " per open (window, key) | open windows at a poll, mean | max |"
            + " global max: open windows, mean | late events |");
    System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (String density : new String[] {"sparse", "dense"}) {
      Feed feed = WindowsMatrixBenchmark.feed(density);
      for (int keys : new int[] {1_000, 100_000}) {
        report(density, feed, keys);
      }
    }
  }

  private static void report(String density, Feed feed, int keys) {
    int[] keyIndex = Feed.keyIndexes(keys);
    long size = WindowsMatrixBenchmark.WINDOW_SIZE_MILLIS;
    TreeMap<Long, Counts> windows = new TreeMap<>();
    TreeMap<Long, Boolean> open = new TreeMap<>();
    long[] max = new long[feed.sources];
    java.util.Arrays.fill(max, Long.MIN_VALUE);
    long polls = 0;
    long openSum = 0;
    int openMax = 0;
    // The same with the watermark of byHandGlobalMax: the largest event time of any partition.
    TreeMap<Long, Boolean> openGlobal = new TreeMap<>();
    long globalMax = Long.MIN_VALUE;
    long globalWatermark = Long.MIN_VALUE;
    long openGlobalSum = 0;
    long lateGlobal = 0;
    for (long c = 0; c < (long) LAPS << Feed.LOG2_LENGTH; c++) {
      int i = (int) c & Feed.MASK;
      if (feed.pollStart[i]) {
        long min = Long.MAX_VALUE;
        for (long m : max) {
          min = Math.min(min, m);
        }
        if (min != Long.MIN_VALUE) {
          long watermark = min - WindowsMatrixBenchmark.ALLOWED_LATENESS_MILLIS;
          while (!open.isEmpty() && open.firstKey() + size <= watermark) {
            open.pollFirstEntry();
          }
        }
        if (globalMax != Long.MIN_VALUE) {
          globalWatermark = globalMax - WindowsMatrixBenchmark.ALLOWED_LATENESS_MILLIS;
          while (!openGlobal.isEmpty() && openGlobal.firstKey() + size <= globalWatermark) {
            openGlobal.pollFirstEntry();
          }
        }
        if (c >= Feed.LENGTH) { // from lap 1 on
          polls++;
          openSum += open.size();
          openMax = Math.max(openMax, open.size());
          openGlobalSum += openGlobal.size();
        }
      }
      long t = feed.eventTimeMillis(c);
      int p = feed.source[i];
      max[p] = Math.max(max[p], t);
      globalMax = Math.max(globalMax, t);
      long start = t - Math.floorMod(t, size);
      open.put(start, Boolean.TRUE);
      if (start + size <= globalWatermark) {
        if (c >= Feed.LENGTH) {
          lateGlobal++;
        }
      } else {
        openGlobal.put(start, Boolean.TRUE);
      }
      Counts counts = windows.computeIfAbsent(start, s -> new Counts());
      counts.events++;
      counts.keys.set(keyIndex[i]);
    }
    long from = Feed.BASE_MILLIS + feed.spanMillis;
    long to = Feed.BASE_MILLIS + LAPS * feed.spanMillis;
    long counted = 0;
    long events = 0;
    long entries = 0;
    for (var e : windows.entrySet()) {
      long start = e.getKey();
      if (start >= from && start + size <= to - feed.spanMillis / 2) {
        counted++;
        events += e.getValue().events;
        entries += e.getValue().keys.cardinality();
      }
    }
    System.out.printf(
        "| %s | %,d | %,d | %,.0f | %.3g | %.3g | %.1f | %d | %.1f | %.1f%% |%n",
        density,
        keys,
        counted,
        events / (double) counted,
        events / (double) counted / keys,
        events / (double) entries,
        openSum / (double) polls,
        openMax,
        openGlobalSum / (double) polls,
        100.0 * lateGlobal / ((long) (LAPS - 1) << Feed.LOG2_LENGTH));
  }
}
