package io.github.lowwater.testing;

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
 *
 * <p>The one synthetic feed of the tests and the demo (public, in the test-jar, because the demo in
 * {@code examples/} uses it too). The benchmarks keep their own precomputed arrays ({@code
 * benchmarks/.../Feed}): a JMH input is laid out for the hot loop, and changing it would change
 * every recorded number.
 */
public final class SyntheticFeed {

  /** The start of the feed's event time: an ordinary weekday morning. */
  public static final long BASE_MILLIS = Instant.parse("2026-03-02T06:00:00Z").toEpochMilli();

  public static final String[] LINES = {"line:L1", "line:L2", "line:L3", "line:L4"};

  /** One event: a partition, an event time, a key; the value is always 1 (a count). */
  /**
   * One event: a partition, an event time, a key; the value is always 1 (a count).
   *
   * @param partition the partition
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param key the key
   */
  public record Event(int partition, long eventTimeMillis, String key) {}

  private SyntheticFeed() {}

  /**
   * Generates {@code durationMillis} of events on each of partitions {@code 0..partitions-1},
   * starting at {@code startMillis}, with keys from {@link #LINES}.
   *
   * @return one list per partition, each in event-time order
   */
  public static List<List<Event>> generate(
      int partitions, long startMillis, long durationMillis, long intervalMillis, long seed) {
    int[] ids = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      ids[p] = p;
    }
    return generate(ids, LINES, startMillis, startMillis + durationMillis, intervalMillis, seed);
  }

  /**
   * Generates, on each listed partition, events from {@code startMillis} (inclusive) to {@code
   * endMillis}: one every {@code intervalMillis} on average (between half and one and a half of it
   * apart), each with a key drawn from {@code keys}.
   *
   * @return one list per listed partition, in the order listed, each in event-time order
   */
  public static List<List<Event>> generate(
      int[] partitions,
      String[] keys,
      long startMillis,
      long endMillis,
      long intervalMillis,
      long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<List<Event>> feed = new ArrayList<>();
    for (int p : partitions) {
      List<Event> events = new ArrayList<>();
      for (long t = startMillis + random.nextLong(intervalMillis);
          t < endMillis;
          t += intervalMillis / 2 + random.nextLong(intervalMillis)) {
        events.add(new Event(p, t, keys[random.nextInt(keys.length)]));
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
  public static List<Event> arrivalOrder(List<Event> events, long maxDelayMillis, long seed) {
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
  public static TreeMap<Long, TreeMap<String, Long>> truth(
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

  /**
   * The ground truth of a flat list of events: the count per (window start, key).
   *
   * @return window start to key to count, windows in ascending order
   */
  public static TreeMap<Long, TreeMap<String, Long>> truthOf(
      List<Event> events, long windowMillis) {
    return truth(List.of(events), windowMillis);
  }

  /** Sums the counts of one window over its keys. */
  public static long total(Map<String, Long> window) {
    long sum = 0;
    for (long v : window.values()) {
      sum += v;
    }
    return sum;
  }
}
