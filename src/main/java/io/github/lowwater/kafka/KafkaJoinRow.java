package io.github.lowwater.kafka;

import io.github.lowwater.join.JoinRow;
import java.util.Objects;

/**
 * One row of a {@link KafkaJoin}: a pair, or an unmatched left or right record, with the identity
 * of the records it was computed from.
 *
 * <p>The identity ({@link #task()}, {@link #leftOffset()}, {@link #rightOffset()}) is the same
 * whichever instance of the group computes the row, so a sink that upserts by it is exact through
 * hand-overs and through crashes between its write and the commit (the rows written since the last
 * commit come again, the same). The offset of a side the row does not have is {@code -1}.
 *
 * @param <K> the key type
 * @param <O> the joiner's result type
 */
public final class KafkaJoinRow<K, O> {

  private final JoinRow.Kind kind;
  private final K key;
  private final long timeMillis;
  private final O value;
  private final int task;
  private final long leftOffset;
  private final long rightOffset;

  KafkaJoinRow(
      JoinRow.Kind kind,
      K key,
      long timeMillis,
      O value,
      int task,
      long leftOffset,
      long rightOffset) {
    this.kind = kind;
    this.key = key;
    this.timeMillis = timeMillis;
    this.value = value;
    this.task = task;
    this.leftOffset = leftOffset;
    this.rightOffset = rightOffset;
  }

  /**
   * Returns what the row is.
   *
   * @return {@code PAIR}, {@code LEFT_ONLY} or {@code RIGHT_ONLY}
   */
  public JoinRow.Kind kind() {
    return kind;
  }

  /**
   * Returns the key.
   *
   * @return the key both records share (or the unmatched record's)
   */
  public K key() {
    return key;
  }

  /**
   * Returns the row's time: the later of the two records' times for a pair, the record's time for
   * an unmatched row (rule 67).
   *
   * @return epoch milliseconds
   */
  public long timeMillis() {
    return timeMillis;
  }

  /**
   * Returns the joiner's result.
   *
   * @return the value the joiner returned for this row
   */
  public O value() {
    return value;
  }

  /**
   * Returns the task: the partition number the two input topics share.
   *
   * @return the partition number of both records
   */
  public int task() {
    return task;
  }

  /**
   * Returns the left record's offset in partition {@link #task()} of the left topic.
   *
   * @return the offset, or {@code -1} for a {@code RIGHT_ONLY} row
   */
  public long leftOffset() {
    return leftOffset;
  }

  /**
   * Returns the right record's offset in partition {@link #task()} of the right topic.
   *
   * @return the offset, or {@code -1} for a {@code LEFT_ONLY} row
   */
  public long rightOffset() {
    return rightOffset;
  }

  /**
   * Returns the row's identity as a string, {@code task/leftOffset/rightOffset}: a sink's primary
   * key.
   *
   * @return for example {@code "3/1041/-1"}
   */
  public String id() {
    return task + "/" + leftOffset + "/" + rightOffset;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KafkaJoinRow<?, ?> other
        && kind == other.kind
        && task == other.task
        && leftOffset == other.leftOffset
        && rightOffset == other.rightOffset
        && timeMillis == other.timeMillis
        && key.equals(other.key)
        && Objects.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, task, leftOffset, rightOffset);
  }

  @Override
  public String toString() {
    return kind + "(" + id() + " " + key + " @" + timeMillis + " = " + value + ")";
  }
}
