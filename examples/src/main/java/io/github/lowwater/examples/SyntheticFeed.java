package io.github.lowwater.examples;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A synthetic six-partition feed of arrival predictions: on each partition, events in event-time
 * order, one every {@code intervalMillis} give or take a little jitter, each for one of a few bus
 * lines. Deterministic for a given seed.
 */
final class SyntheticFeed {

  /** The start of the feed's event time: an ordinary weekday morning. */
  static final long BASE_MILLIS = Instant.parse("2026-03-02T06:00:00Z").toEpochMilli();

  static final String[] LINES = {"line:L1", "line:L2", "line:L3", "line:L4"};

  /** One event: a partition, an event time, a key; the value is always 1 (a count). */
  record Event(int partition, long eventTimeMillis, String key) {}

  private SyntheticFeed() {}

  /**
   * Generates {@code durationMillis} of events on each partition, starting at {@code startMillis}.
   *
   * @return one list per partition, each in event-time order
   */
  static List<List<Event>> generate(
      int partitions, long startMillis, long durationMillis, long intervalMillis, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<List<Event>> feed = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      List<Event> events = new ArrayList<>();
      long t = startMillis + random.nextLong(intervalMillis);
      while (t < startMillis + durationMillis) {
        events.add(new Event(p, t, LINES[random.nextInt(LINES.length)]));
        t += intervalMillis / 2 + random.nextLong(intervalMillis);
      }
      feed.add(Collections.unmodifiableList(events));
    }
    return feed;
  }

  /**
   * Returns one partition's events in the order they arrive when each is delayed by up to {@code
   * maxDelayMillis} (uniformly, independently): out of event-time order by at most that much.
   * Deterministic for a given seed.
   *
   * @param events one partition's events, in event-time order
   * @return a new list of the same events in arrival order
   */
  static List<Event> arrivalOrder(List<Event> events, long maxDelayMillis, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] arrival = new long[events.size()];
    Integer[] order = new Integer[events.size()];
    for (int i = 0; i < arrival.length; i++) {
      arrival[i] = events.get(i).eventTimeMillis() + random.nextLong(maxDelayMillis + 1);
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingLong((Integer i) -> arrival[i]));
    List<Event> arrived = new ArrayList<>(order.length);
    for (int i : order) {
      arrived.add(events.get(i));
    }
    return arrived;
  }

  /**
   * The ground truth: the count per (window start, key) of every event of the feed.
   *
   * @return window start to key to count, windows in ascending order
   */
  static TreeMap<Long, TreeMap<String, Long>> truth(
      List<? extends List<Event>> feed, long windowMillis) {
    TreeMap<Long, TreeMap<String, Long>> truth = new TreeMap<>();
    for (List<Event> partition : feed) {
      for (Event e : partition) {
        long start = Math.floorDiv(e.eventTimeMillis(), windowMillis) * windowMillis;
        truth.computeIfAbsent(start, s -> new TreeMap<>()).merge(e.key(), 1L, Long::sum);
      }
    }
    return truth;
  }

  /** Sums the counts of one window over its keys. */
  static long total(Map<String, Long> window) {
    long sum = 0;
    for (long v : window.values()) {
      sum += v;
    }
    return sum;
  }
}
