package io.github.lowwater.kafka;

/**
 * What a {@link RecordMapper} made of one record: an event (time, key, value), a time-only record
 * (a heartbeat), a marker (a watermark), or nothing (skipped). One instance is reused for every
 * record; {@link #reset()} drops the mapper's objects so that none is kept beyond its record. Not
 * thread-safe; polling thread. Allocation-free.
 *
 * @param <K> the window key type
 * @param <V> the value type
 */
final class MappedRecord<K, V> implements RecordMapper.Output<K, V> {

  /** The mapper emitted nothing: the record is skipped. */
  static final int NOTHING = 0;

  /** {@link #emit}: an event for a window. */
  static final int EVENT = 1;

  /** {@link #observe}: a time-only record. */
  static final int TIME = 2;

  /** {@link #punctuate}: a watermark marker. */
  static final int MARKER = 3;

  int kind;
  long eventTimeMillis;
  K key;
  V value;

  void reset() {
    kind = NOTHING;
    key = null;
    value = null;
  }

  /** Whether the record is an event with both a key and a value. */
  boolean isEvent() {
    return kind == EVENT && key != null && value != null;
  }

  @Override
  public void emit(long eventTimeMillis, K key, V value) {
    this.kind = EVENT;
    this.eventTimeMillis = eventTimeMillis;
    this.key = key;
    this.value = value;
  }

  @Override
  public void observe(long eventTimeMillis) {
    reset();
    this.kind = TIME;
    this.eventTimeMillis = eventTimeMillis;
  }

  @Override
  public void punctuate(long watermarkMillis) {
    reset();
    this.kind = MARKER;
    this.eventTimeMillis = watermarkMillis;
  }
}
