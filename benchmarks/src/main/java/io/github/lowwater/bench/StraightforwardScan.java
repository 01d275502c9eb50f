package io.github.lowwater.bench;

import java.util.ArrayList;
import java.util.HashMap;

/**
 * The baseline a developer writes by hand: per event, read the clock, update the source's frontier
 * and last-seen time in a {@link HashMap}, then scan every partition for the minimum frontier of
 * the active ones. Same rules as Lowwater's tracker (idle when silent for more than the idle
 * timeout, watermark = min active frontier - allowed lateness, never backwards), O(sources) per
 * event. Written here, for the benchmarks only.
 */
final class StraightforwardScan {

  private static final class Partition {
    long frontier = Long.MIN_VALUE;
    long lastSeenNanos;
  }

  private final HashMap<Object, Partition> bySource = new HashMap<>();
  private final ArrayList<Partition> all = new ArrayList<>();
  private final long allowedLatenessMillis;
  private final long idleTimeoutNanos;
  private long watermark = Long.MIN_VALUE;

  StraightforwardScan(long allowedLatenessMillis, long idleTimeoutNanos) {
    this.allowedLatenessMillis = allowedLatenessMillis;
    this.idleTimeoutNanos = idleTimeoutNanos;
  }

  long observe(Object source, long eventTimeMillis) {
    long now = System.nanoTime();
    Partition p = bySource.get(source);
    if (p == null) {
      p = new Partition();
      bySource.put(source, p);
      all.add(p);
    }
    if (eventTimeMillis > p.frontier) {
      p.frontier = eventTimeMillis;
    }
    p.lastSeenNanos = now;
    long min = Long.MAX_VALUE;
    boolean any = false;
    for (int i = 0, n = all.size(); i < n; i++) {
      Partition q = all.get(i);
      if (now - q.lastSeenNanos <= idleTimeoutNanos) {
        any = true;
        if (q.frontier < min) {
          min = q.frontier;
        }
      }
    }
    if (any) {
      long candidate =
          min < Long.MIN_VALUE + allowedLatenessMillis
              ? Long.MIN_VALUE
              : min - allowedLatenessMillis;
      if (candidate > watermark) {
        watermark = candidate;
      }
    }
    return watermark;
  }
}
