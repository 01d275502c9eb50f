package io.github.lowwater.kafka;

import org.apache.kafka.common.TopicPartition;

/**
 * Thrown by {@link KafkaWindows#onPoll} under {@link MissingRecordsPolicy#FAIL} when a partition's
 * reading may lack records (semantics rule 65). No record of the partition, nor of the partitions
 * after it in the poll, was processed, and the consumer was sought back to them: the state is as
 * before the call. Every later poll that delivers the partition's records throws again. The caller
 * closes the consumer (its partitions go to other members, which decide the same), or builds the
 * windows again with {@link MissingRecordsPolicy#MARK}.
 */
public final class MissingRecordsException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final transient TopicPartition partition;
  private final long committedOffset;
  private final long logStartOffset;
  private final long firstOffset;

  MissingRecordsException(
      String message,
      TopicPartition partition,
      long committedOffset,
      long logStartOffset,
      long firstOffset) {
    super(message);
    this.partition = partition;
    this.committedOffset = committedOffset;
    this.logStartOffset = logStartOffset;
    this.firstOffset = firstOffset;
  }

  /**
   * Returns the partition.
   *
   * @return the partition whose reading may lack records
   */
  public TopicPartition partition() {
    return partition;
  }

  /**
   * Returns the committed offset the partition started from.
   *
   * @return the offset, or -1 when none was committed
   */
  public long committedOffset() {
    return committedOffset;
  }

  /**
   * Returns the partition's log start offset, when it was read.
   *
   * @return the offset, or -1 when it was not read or could not be
   */
  public long logStartOffset() {
    return logStartOffset;
  }

  /**
   * Returns the offset of the first record the consumer delivered.
   *
   * @return the offset
   */
  public long firstOffset() {
    return firstOffset;
  }
}
