package io.github.lowwater.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The group demo's sink: an in-memory table keyed on (window start, partition, key) that every
 * instance upserts its per-partition window results into (a row marked incomplete only where there
 * is none, as in the README's loop), standing in for a database table with that primary key. It
 * counts what an upsert replaced: the same value again (a partition's next owner recomputing a
 * window its previous owner had written but not committed past, which is expected and harmless) or
 * a different value (a wrong row, which must never happen).
 *
 * <p>Thread-safe; any number of instances upsert concurrently. One map entry per row and O(1) per
 * upsert; {@link #summedOverPartitions()} copies the table.
 */
final class UpsertSink {

  /** The most conflicting rows kept for the report; the count goes on beyond it. */
  private static final int MAX_CONFLICTS_KEPT = 5;

  /** The primary key of a row. */
  record Row(long windowStartMillis, int partition, String key) {}

  private final ConcurrentHashMap<Row, Long> rows = new ConcurrentHashMap<>();
  private final LongAdder upserts = new LongAdder();
  private final LongAdder sameValue = new LongAdder();
  private final LongAdder differentValue = new LongAdder();
  private final List<String> conflicts = new ArrayList<>();

  /**
   * Inserts or replaces one row.
   *
   * @param windowStartMillis the window start, epoch milliseconds
   * @param partition the partition the result covers
   * @param key the window key
   * @param value the count
   */
  void upsert(long windowStartMillis, int partition, String key, long value) {
    Row row = new Row(windowStartMillis, partition, key);
    Long previous = rows.put(row, value);
    upserts.increment();
    if (previous == null) {
      return;
    }
    if (previous == value) {
      sameValue.increment();
    } else {
      differentValue.increment();
      synchronized (conflicts) {
        if (conflicts.size() < MAX_CONFLICTS_KEPT) {
          conflicts.add(row + ": " + previous + " replaced by " + value);
        }
      }
    }
  }

  /**
   * Inserts one row marked incomplete ({@code WindowResult.isComplete()} false: records the reading
   * lacks may belong to it) only where the table has no row yet, so that it never overwrites a
   * complete row; the README's loop does the same.
   *
   * @param windowStartMillis the window start, epoch milliseconds
   * @param partition the partition the result covers
   * @param key the window key
   * @param value the count
   */
  void insertIfAbsent(long windowStartMillis, int partition, String key, long value) {
    rows.putIfAbsent(new Row(windowStartMillis, partition, key), value);
    upserts.increment();
  }

  /** Returns the number of rows in the table. */
  int size() {
    return rows.size();
  }

  /** Returns the number of upserts, new rows and replacements together. */
  long upserts() {
    return upserts.sum();
  }

  /** Returns how many upserts replaced a row with the value it already had. */
  long rewrittenWithSameValue() {
    return sameValue.sum();
  }

  /** Returns how many upserts replaced a row with a different value: wrong results. */
  long overwrittenWithDifferentValue() {
    return differentValue.sum();
  }

  /** Returns the first few rows overwritten with a different value, as evidence. */
  List<String> conflicts() {
    synchronized (conflicts) {
      return List.copyOf(conflicts);
    }
  }

  /**
   * Returns a copy of the table.
   *
   * @return row to value
   */
  Map<Row, Long> rows() {
    return Map.copyOf(rows);
  }

  /**
   * Reads the table as the application would: the rows of each (window, key) summed over the
   * partitions.
   *
   * @return window start to key to count, windows in ascending order
   */
  TreeMap<Long, TreeMap<String, Long>> summedOverPartitions() {
    TreeMap<Long, TreeMap<String, Long>> summed = new TreeMap<>();
    for (Map.Entry<Row, Long> e : rows.entrySet()) {
      Row row = e.getKey();
      summed
          .computeIfAbsent(row.windowStartMillis(), s -> new TreeMap<>())
          .merge(row.key(), e.getValue(), Long::sum);
    }
    return summed;
  }
}
