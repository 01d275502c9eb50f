package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.WindowStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions {@link KafkaWindows} considers assigned, in assignment order, and the snapshot of
 * them that other threads read: republished as one volatile write on every assignment change, with
 * the counters of the partitions already handed over, so that a reader never sees a partition twice
 * or its counters lost between two maps. The map itself is the polling thread's.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PartitionTable<K, V, R> {

  /** Counters that count nothing. */
  static final WindowStats NO_STATS = new WindowStats(0, 0, 0, 0, 0, 0, 0);

  private static final EventTimeWindows<?, ?, ?>[] NO_WINDOWS = new EventTimeWindows<?, ?, ?>[0];

  /**
   * What another thread reads: the assigned partitions' windows, each set once (several partitions
   * share one in {@code MERGED} and in a {@code CO_PARTITIONED} task), the counters of partitions
   * no longer assigned, and the partitions; and the instance's readings over them.
   */
  record View(
      EventTimeWindows<?, ?, ?>[] windows,
      WindowStats retired,
      Map<TopicPartition, PartitionState<?, ?, ?>> partitions) {

    /** The minimum of the windows' watermarks; none while one has none, or there are none. */
    long minWatermark() {
      if (windows.length == 0) {
        return WatermarkTracker.NO_WATERMARK;
      }
      long min = Long.MAX_VALUE;
      for (EventTimeWindows<?, ?, ?> w : windows) {
        min = Math.min(min, w.watermark());
      }
      return min;
    }

    /** The counters of the windows and of the retired partitions, at the minimum watermark. */
    WindowStats stats() {
      StatsTotal total = new StatsTotal().add(retired);
      long openWindows = 0;
      long openEntries = 0;
      for (EventTimeWindows<?, ?, ?> w : windows) {
        WindowStats s = w.stats();
        openWindows += s.openWindows();
        openEntries += s.openEntries();
        total.add(s);
      }
      return total.snapshot(openWindows, openEntries, minWatermark());
    }

    /** The active sources of the windows: one per active partition. */
    int activeSources() {
      int active = 0;
      for (EventTimeWindows<?, ?, ?> w : windows) {
        active += w.activeSources();
      }
      return active;
    }
  }

  private final Map<TopicPartition, PartitionState<K, V, R>> assigned = new LinkedHashMap<>();

  /** The same map, read-only: one view for the table's life, not one per call. */
  private final Map<TopicPartition, PartitionState<K, V, R>> readOnly =
      Collections.unmodifiableMap(assigned);

  private volatile View view = new View(NO_WINDOWS, NO_STATS, Map.of());

  /** The state of an assigned partition, or {@code null}. Polling thread. */
  PartitionState<K, V, R> get(TopicPartition tp) {
    return assigned.get(tp);
  }

  /** Whether the partition is assigned. Polling thread. */
  boolean contains(TopicPartition tp) {
    return assigned.containsKey(tp);
  }

  /** The assigned partitions' states, in assignment order. Polling thread. */
  Collection<PartitionState<K, V, R>> states() {
    return assigned.values();
  }

  /** The assigned partitions, in assignment order, as a read-only map. Polling thread. */
  Map<TopicPartition, PartitionState<K, V, R>> byPartition() {
    return readOnly;
  }

  /** Adds a newly assigned partition; published by the next {@link #publish}. */
  void put(PartitionState<K, V, R> p) {
    assigned.put(p.partition, p);
  }

  /** Removes a partition; published by the next {@link #publish}. */
  PartitionState<K, V, R> remove(TopicPartition tp) {
    return assigned.remove(tp);
  }

  /** How many partitions are assigned. Polling thread. */
  int size() {
    return assigned.size();
  }

  /**
   * Publishes the current partitions for other threads, adding {@code retiring} (the counters of
   * the partitions just removed) to those already retired.
   */
  void publish(WindowStats retiring) {
    Set<EventTimeWindows<?, ?, ?>> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    List<EventTimeWindows<?, ?, ?>> order = new ArrayList<>(assigned.size());
    for (PartitionState<K, V, R> p : assigned.values()) {
      if (distinct.add(p.windows)) {
        order.add(p.windows);
      }
    }
    EventTimeWindows<?, ?, ?>[] windows = order.toArray(new EventTimeWindows<?, ?, ?>[0]);
    Map<TopicPartition, PartitionState<?, ?, ?>> partitions = new LinkedHashMap<>(assigned);
    view = // one volatile write: readers see the partitions and the counters together
        new View(windows, sum(view.retired(), retiring), Collections.unmodifiableMap(partitions));
  }

  /** The last published snapshot. Any thread. */
  View view() {
    return view;
  }

  /** The counters that survive a partition's departure: the totals, not the open windows. */
  static WindowStats sum(WindowStats r, WindowStats s) {
    return new StatsTotal().add(r).add(s).snapshot(0, 0, 0);
  }
}
