package io.github.lowwater.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Receives every record of {@link KafkaWindows} that does not go into a window: truly late ones,
 * and redelivered ones whose window was already written for their partition. Called on the polling
 * thread, before the record changes any state: if the handler throws, the record counts as not
 * processed, and {@link KafkaWindows#onPoll} rewinds the consumer to it (see there).
 *
 * <p>It may throw any exception, checked ones included, as {@code ResultSink} and the Spring
 * starter's {@code RowWriter} and {@code DeadLetterHandler} may: the callbacks that hand records or
 * rows out of the library (to a table, a topic) declare {@code throws Exception}; those that
 * compute (a {@code RecordMapper}, an aggregator) throw unchecked exceptions only.
 */
@FunctionalInterface
public interface LateRecordHandler {

  /** Why a record did not go into its window. */
  enum Reason {
    /**
     * Its window had closed on this partition's watermark (or the instance's, in {@link
     * ResultScope#MERGED}) before the record arrived: a true late event, counted in {@code
     * stats().late()}. Dead-letter it.
     */
    LATE,

    /**
     * Its window was already written for its partition, by this owner or a previous one (a crash, a
     * rebalance or a restart made the consumer read it again): it is in the written row already,
     * counted in {@link KafkaWindows#redeliveredRecords()} and not as late. Usually ignored.
     */
    REDELIVERED
  }

  /**
   * Handles one record that does not go into a window.
   *
   * @param record the record, with its topic, partition, offset, key, value and headers
   * @param reason {@link Reason#LATE} or {@link Reason#REDELIVERED}
   * @param eventTimeMillis the record's event time, as extracted
   * @param windowEndMillis the end of the record's window, exclusive
   * @param watermarkMillis for {@code LATE}, the watermark the record was judged against; for
   *     {@code REDELIVERED}, the checkpoint's written-through time: every window of the partition
   *     ending at or before it had been written
   * @throws Exception if the record could not be handled (a dead-letter write failed): the poll
   *     fails, the record counts as not processed, and the consumer is rewound to it; {@code
   *     onPoll} throws an unchecked exception as it is, and a checked one wrapped in an {@link
   *     IllegalStateException}
   */
  void onLateRecord(
      ConsumerRecord<?, ?> record,
      Reason reason,
      long eventTimeMillis,
      long windowEndMillis,
      long watermarkMillis)
      throws Exception;
}
