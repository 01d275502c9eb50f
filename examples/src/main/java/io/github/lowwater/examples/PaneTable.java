package io.github.lowwater.examples;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Early rows and late updates for one window (issue 18): the demo's feed, read in polls that take
 * turns between the partitions, through windows with {@code earlyResults(1 min)} and {@code grace(1
 * min)}; the table lists every row of one window and key, in the order the windows gave them,
 * against the truth of that window. The same feed and options always give the same rows.
 */
final class PaneTable {

  static final Duration EARLY = Duration.ofMinutes(1);
  static final Duration GRACE = Duration.ofMinutes(1);
  static final int POLL_RECORDS = 500;

  /** The window shown: the third of the feed. */
  static final long WINDOW_INDEX = 2;

  private PaneTable() {}

  static void print(PrintStream out) {
    Duration window = InMemoryDemo.WINDOW;
    List<List<Event>> feed =
        SyntheticFeed.generate(
            InMemoryDemo.PARTITIONS,
            SyntheticFeed.BASE_MILLIS,
            InMemoryDemo.FEED.toMillis(),
            InMemoryDemo.INTERVAL_MILLIS,
            InMemoryDemo.SEED);
    TreeMap<Long, TreeMap<String, Long>> truth = SyntheticFeed.truth(feed, window.toMillis());
    long start = truth.firstKey() + WINDOW_INDEX * window.toMillis();
    Map.Entry<String, Long> busiest = null;
    for (Map.Entry<String, Long> e : truth.get(start).entrySet()) {
      if (busiest == null || e.getValue() > busiest.getValue()) {
        busiest = e;
      }
    }
    String key = busiest.getKey();

    ManualClock clock = new ManualClock(Instant.ofEpochMilli(SyntheticFeed.BASE_MILLIS));
    clock.advance(InMemoryDemo.FEED);
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(window, Aggregators.count())
            .allowedLateness(Duration.ZERO) // prompt on-time rows; the grace period takes the rest
            .earlyResults(EARLY)
            .grace(GRACE)
            .idleTimeout(InMemoryDemo.IDLE)
            .clock(clock)
            .build();
    List<WindowResult<String, Long>> rows = new ArrayList<>();
    int[] position = new int[feed.size()];
    boolean more = true;
    while (more) {
      more = false;
      for (int p = 0; p < feed.size(); p++) {
        List<Event> events = feed.get(p);
        int end = Math.min(events.size(), position[p] + POLL_RECORDS);
        for (int i = position[p]; i < end; i++) {
          Event e = events.get(i);
          windows.add(p, e.eventTimeMillis(), e.key(), 1L);
        }
        more |= end < events.size();
        position[p] = end;
        keep(windows.pollFinalized(), start, key, rows);
      }
    }
    windows.finish();
    keep(windows.pollFinalized(), start, key, rows);

    out.printf(
        "%nThe rows of one window with early results (earlyResults %d min, grace %d min, no"
            + " allowed lateness): [%s, +%d min) key %s, truth %d%n",
        EARLY.toMinutes(),
        GRACE.toMinutes(),
        Instant.ofEpochMilli(start),
        window.toMinutes(),
        key,
        busiest.getValue());
    out.printf("  %-8s %5s %7s %6s%n", "timing", "index", "count", "final");
    for (WindowResult<String, Long> r : rows) {
      out.printf("  %-8s %5d %7d %6s%n", r.timing(), r.index(), r.value(), r.isFinal());
    }
    WindowResult<String, Long> last = rows.get(rows.size() - 1);
    out.printf(
        "  the last row %s the truth; %,d early rows and %,d late updates over the whole feed%n",
        last.value().equals(busiest.getValue()) ? "equals" : "DIFFERS FROM",
        windows.stats().earlyRows(),
        windows.stats().lateUpdates());
  }

  private static void keep(
      List<WindowResult<String, Long>> results,
      long start,
      String key,
      List<WindowResult<String, Long>> into) {
    for (WindowResult<String, Long> r : results) {
      if (r.start() == start && r.key().equals(key)) {
        into.add(r);
      }
    }
  }
}
