package io.github.lowwater.window;

import java.util.HashMap;
import java.util.Map;

/**
 * Late and future events per source, kept whether or not a late handler is set, for the lifetime of
 * the windows (a removed source keeps its counts). Not thread-safe; owner thread. One {@code
 * long[2]} per source that ever had such an event, allocated at its first; a lookup per counted
 * event, which is off the accepted path.
 */
final class SourceCounts {

  private static final int LATE = 0;
  private static final int FUTURE = 1;

  private final HashMap<Object, long[]> bySource = new HashMap<>();

  /** Counts a late event of {@code source} (a source key, never a handle). */
  void late(Object source) {
    countsOf(source)[LATE]++;
  }

  /** Counts an event of {@code source} beyond the future guard. */
  void future(Object source) {
    countsOf(source)[FUTURE]++;
  }

  /** Returns a new map of the late counts; sources without late events are absent. */
  Map<Object, Long> lateBySource() {
    return counts(LATE);
  }

  /** Returns a new map of the future counts; sources without future events are absent. */
  Map<Object, Long> futureBySource() {
    return counts(FUTURE);
  }

  private long[] countsOf(Object source) {
    long[] counts = bySource.get(source);
    if (counts == null) {
      counts = new long[2];
      bySource.put(source, counts);
    }
    return counts;
  }

  private Map<Object, Long> counts(int index) {
    Map<Object, Long> result = new HashMap<>();
    for (Map.Entry<Object, long[]> e : bySource.entrySet()) {
      if (e.getValue()[index] > 0) {
        result.put(e.getKey(), e.getValue()[index]);
      }
    }
    return result;
  }
}
