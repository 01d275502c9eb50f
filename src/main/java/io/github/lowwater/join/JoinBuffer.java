package io.github.lowwater.join;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The records of one side of a {@link StreamJoin} that may still pair: per key, in arrival order,
 * and a heap that hands them out in the order their waiting ends ({@code closeMillis}, then
 * arrival). Not thread-safe. O(log records) per {@link #add} and {@link #removeFirst}; {@link #of}
 * is O(1). One entry object per record; a key's list is dropped with its last record.
 *
 * <p><b>Invariant.</b> Every entry is in exactly one key list and in the heap, or in neither.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class JoinBuffer<K, V> {

  /** One buffered record. */
  static final class Entry<K, V> {
    final K key;
    final long timeMillis;
    final V value;
    final long closeMillis;
    final long sequence;

    /** Whether it paired with at least one record of the other side. */
    boolean matched;

    Entry(K key, long timeMillis, V value, long closeMillis, long sequence) {
      this.key = key;
      this.timeMillis = timeMillis;
      this.value = value;
      this.closeMillis = closeMillis;
      this.sequence = sequence;
    }
  }

  private final Map<K, List<Entry<K, V>>> byKey = new HashMap<>();
  private final PriorityQueue<Entry<K, V>> byClose =
      new PriorityQueue<>(
          (a, b) ->
              a.closeMillis != b.closeMillis
                  ? Long.compare(a.closeMillis, b.closeMillis)
                  : Long.compare(a.sequence, b.sequence));
  private long nextSequence;

  /** Buffers a record and returns its entry. */
  Entry<K, V> add(K key, long timeMillis, V value, long closeMillis) {
    Entry<K, V> e = new Entry<>(key, timeMillis, value, closeMillis, nextSequence++);
    byKey.computeIfAbsent(key, k -> new ArrayList<>(2)).add(e);
    byClose.add(e);
    return e;
  }

  /** Returns the records of a key in arrival order, or an empty list; do not modify it. */
  List<Entry<K, V>> of(K key) {
    List<Entry<K, V>> list = byKey.get(key);
    return list == null ? List.of() : list;
  }

  /**
   * Returns the entry whose waiting ends first if it ends at or below {@code watermark}, or null.
   */
  Entry<K, V> firstClosed(long watermarkMillis) {
    Entry<K, V> first = byClose.peek();
    return first != null && first.closeMillis <= watermarkMillis ? first : null;
  }

  /** Removes the entry {@link #firstClosed} returned. */
  void removeFirst() {
    Entry<K, V> e = byClose.poll();
    List<Entry<K, V>> list = byKey.get(e.key);
    // Entries of a key close in roughly arrival order: search from the front.
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == e) {
        list.remove(i);
        break;
      }
    }
    if (list.isEmpty()) {
      byKey.remove(e.key);
    }
  }

  /** Returns the number of buffered records. */
  int size() {
    return byClose.size();
  }

  /** Returns the number of keys with a buffered record. */
  int keys() {
    return byKey.size();
  }
}
