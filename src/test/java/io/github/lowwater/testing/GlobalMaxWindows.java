package io.github.lowwater.testing;

import java.util.TreeMap;

/**
 * The watermark this library replaces, kept for comparison: the newest event time seen on any
 * partition minus the allowed lateness. Counts per (window, key); an event whose window ended at or
 * before the watermark is late and dropped (counted). The one copy of the tests and the demo.
 */
public final class GlobalMaxWindows {

  private final long windowMillis;
  private final long allowedLatenessMillis;
  private long maxEventTimeMillis = Long.MIN_VALUE;
  private long watermarkMillis = Long.MIN_VALUE;
  private long late;
  private long accepted;

  /** Open and closed windows: start to key to count. */
  private final TreeMap<Long, TreeMap<String, Long>> windows = new TreeMap<>();

  public GlobalMaxWindows(long windowMillis, long allowedLatenessMillis) {
    this.windowMillis = windowMillis;
    this.allowedLatenessMillis = allowedLatenessMillis;
  }

  /** Adds an event; returns false if it was late. */
  public boolean add(long eventTimeMillis, String key) {
    long start = Math.floorDiv(eventTimeMillis, windowMillis) * windowMillis;
    boolean isLate = start + windowMillis <= watermarkMillis;
    if (isLate) {
      late++;
    } else {
      accepted++;
      windows.computeIfAbsent(start, s -> new TreeMap<>()).merge(key, 1L, Long::sum);
    }
    if (eventTimeMillis > maxEventTimeMillis) {
      maxEventTimeMillis = eventTimeMillis;
      watermarkMillis = Math.max(watermarkMillis, eventTimeMillis - allowedLatenessMillis);
    }
    return !isLate;
  }

  /** The quiet-period advance of the original loop. */
  public void advanceTo(long wallMillis) {
    watermarkMillis = Math.max(watermarkMillis, wallMillis - allowedLatenessMillis);
  }

  public long watermark() {
    return watermarkMillis;
  }

  public long late() {
    return late;
  }

  public long accepted() {
    return accepted;
  }

  /** Every window that has received an event, finalized or not. */
  public TreeMap<Long, TreeMap<String, Long>> windows() {
    return windows;
  }
}
