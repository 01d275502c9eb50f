package io.github.lowwater.examples;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.GlobalMaxWindows;
import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * The catch-up of the original pipeline, replayed in memory with no broker: six partitions with 40
 * minutes of events each are drained unevenly in polls of up to 2,000 records (partitions 0 to 2
 * three times as often as 3 to 5, as a consumer restarting behind does), through a global-max
 * watermark and through Lowwater, side by side.
 */
final class InMemoryDemo {

  static final int PARTITIONS = 6;
  static final Duration FEED = Duration.ofMinutes(40);
  static final long INTERVAL_MILLIS = 250;
  static final int MAX_POLL_RECORDS = 2000;
  static final Duration WINDOW = Duration.ofMinutes(5);
  static final Duration LATENESS = Duration.ofMinutes(2);
  static final Duration IDLE = Duration.ofMinutes(2);
  static final long SEED = 42;

  private InMemoryDemo() {}

  static void run(PrintStream out) {
    List<List<Event>> feed =
        SyntheticFeed.generate(
            PARTITIONS, SyntheticFeed.BASE_MILLIS, FEED.toMillis(), INTERVAL_MILLIS, SEED);
    long total = feed.stream().mapToLong(List::size).sum();
    TreeMap<Long, TreeMap<String, Long>> truth = SyntheticFeed.truth(feed, WINDOW.toMillis());

    ManualClock clock = new ManualClock(Instant.ofEpochMilli(SyntheticFeed.BASE_MILLIS));
    clock.advance(FEED); // the consumer restarts 40 minutes behind
    TumblingWindows<String, Long, Long> lowwater =
        TumblingWindows.builder(WINDOW, Aggregators.sumLong())
            .allowedLateness(LATENESS)
            .idleTimeout(IDLE)
            .clock(clock)
            .build();
    GlobalMaxWindows globalMax = new GlobalMaxWindows(WINDOW.toMillis(), LATENESS.toMillis());
    for (int p = 0; p < PARTITIONS; p++) {
      lowwater.register(p); // assigned partitions hold the watermark from the start
    }

    TreeMap<Long, TreeMap<String, Long>> lowwaterResults = new TreeMap<>();
    int[] position = new int[PARTITIONS];
    long[] frontier = new long[PARTITIONS];
    long maxSkewMillis = 0;
    int polls = 0;
    // Weighted round robin: the fast partitions get three turns for every turn of a slow one.
    int[] schedule = {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5};
    int turn = 0;
    while (remaining(feed, position) > 0) {
      int p = schedule[turn++ % schedule.length];
      List<Event> events = feed.get(p);
      if (position[p] == events.size()) {
        continue;
      }
      int end = Math.min(events.size(), position[p] + MAX_POLL_RECORDS);
      clock.advanceMillis(20); // one poll
      polls++;
      for (int i = position[p]; i < end; i++) {
        Event e = events.get(i);
        lowwater.add(p, e.eventTimeMillis(), e.key(), 1L);
        globalMax.add(e.eventTimeMillis(), e.key());
        frontier[p] = e.eventTimeMillis();
      }
      position[p] = end;
      maxSkewMillis = Math.max(maxSkewMillis, skew(frontier));
      collect(lowwater.pollFinalized(), lowwaterResults);
    }
    // The stream goes quiet: both close their last windows through the wall-clock advance.
    clock.advance(Duration.ofMinutes(10));
    lowwater.advanceTo(clock.wallMillis());
    globalMax.advanceTo(clock.wallMillis());
    collect(lowwater.pollFinalized(), lowwaterResults);

    out.printf(
        "Lowwater demo, in memory: %d partitions x %d min = %,d events, drained in %,d polls of up"
            + " to %,d records;%n",
        PARTITIONS, FEED.toMinutes(), total, polls, MAX_POLL_RECORDS);
    out.printf(
        "partitions 0-2 drained three times as often as 3-5 (largest frontier skew: %.1f min)."
            + " %d-minute windows, allowed lateness %d min.%n%n",
        maxSkewMillis / 60_000.0, WINDOW.toMinutes(), LATENESS.toMinutes());
    Report.sideBySide(
        out,
        truth,
        new Report.Column("global-max watermark", globalMax.late(), globalMax.windows()),
        new Report.Column("Lowwater", lowwater.stats().late(), lowwaterResults));
  }

  private static long remaining(List<List<Event>> feed, int[] position) {
    long remaining = 0;
    for (int p = 0; p < feed.size(); p++) {
      remaining += feed.get(p).size() - position[p];
    }
    return remaining;
  }

  private static long skew(long[] frontier) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long f : frontier) {
      if (f == 0) {
        return 0; // a partition not started yet: no skew to speak of
      }
      min = Math.min(min, f);
      max = Math.max(max, f);
    }
    return max - min;
  }

  static void collect(
      List<WindowResult<String, Long>> results, TreeMap<Long, TreeMap<String, Long>> into) {
    for (WindowResult<String, Long> r : results) {
      into.computeIfAbsent(r.start(), s -> new TreeMap<>()).merge(r.key(), r.value(), Long::sum);
    }
  }
}
