package io.github.lowwater.kafka;

import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The records of one partition's poll, each mapped once, kept in arrays: what the mapper made of
 * each (kind, time, key, value), so that the windows can look every key up ahead ({@code
 * KeyLookAhead}) before the records are decided one by one. The arrays grow to the largest batch of
 * a partition seen (at most {@code max.poll.records}) and are reused; {@link #clear()} drops the
 * mapper's objects once the batch is processed, so that none is kept beyond its poll. Not
 * thread-safe: the polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 */
final class MappedBatch<K, V> {

  private int[] kinds = new int[0];
  private long[] times = new long[0];
  private Object[] keys = new Object[0];
  private Object[] values = new Object[0];
  private int size;

  /** What the mapper threw at record {@link #size()}, or null: the records before it are mapped. */
  private Throwable failure;

  /**
   * Maps {@code records} in order with {@code mapper} through {@code out}, until the end or the
   * first record whose mapper throws: that exception is kept ({@link #failure()}), not thrown, and
   * {@link #size()} is that record's index. An event without a key or a value is kept as skipped.
   */
  <KR, VR> void map(
      List<ConsumerRecord<KR, VR>> records,
      RecordMapper<KR, VR, K, V> mapper,
      MappedRecord<K, V> out) {
    int n = records.size();
    if (kinds.length < n) {
      int capacity = Math.max(n, kinds.length * 2);
      kinds = new int[capacity];
      times = new long[capacity];
      keys = new Object[capacity];
      values = new Object[capacity];
    }
    size = 0;
    failure = null;
    for (int i = 0; i < n; i++) {
      out.reset();
      try {
        mapper.map(records.get(i), out);
      } catch (RuntimeException | Error e) {
        out.reset();
        failure = e;
        return;
      }
      boolean event = out.isEvent();
      kinds[i] = out.kind == MappedRecord.EVENT && !event ? MappedRecord.NOTHING : out.kind;
      times[i] = out.eventTimeMillis;
      keys[i] = event ? out.key : null;
      values[i] = event ? out.value : null;
      size = i + 1;
    }
    out.reset();
  }

  /** Returns the number of records mapped. */
  int size() {
    return size;
  }

  /** Returns what the mapper threw at record {@link #size()}, or null if it mapped them all. */
  Throwable failure() {
    return failure;
  }

  /** Returns the keys: {@code [0, size())}, null where the record is not an event. */
  Object[] keys() {
    return keys;
  }

  /** Returns the event times: {@code [0, size())}, meaningful where the record is an event. */
  long[] times() {
    return times;
  }

  /** Puts record {@code i} back into {@code out}, as the mapper made it. */
  @SuppressWarnings("unchecked") // stored from the mapper's K and V
  void load(int i, MappedRecord<K, V> out) {
    out.reset();
    out.kind = kinds[i];
    out.eventTimeMillis = times[i];
    out.key = (K) keys[i];
    out.value = (V) values[i];
  }

  /** Drops the mapper's objects: none is kept beyond the poll. */
  void clear() {
    Arrays.fill(keys, 0, size, null);
    Arrays.fill(values, 0, size, null);
    size = 0;
    failure = null;
  }
}
