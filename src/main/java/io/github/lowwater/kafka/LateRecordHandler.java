package io.github.lowwater.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Receives every record of {@link KafkaWindows} that does not go into a window: truly late ones,
 * and redelivered ones whose window was already written for their partition. Called on the polling
 * thread, before the record changes any state: if the handler throws, the record counts as not
 * processed, and {@link KafkaWindows#onPoll} rewinds the consumer to it (see there).
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
   */
  void onLateRecord(
      ConsumerRecord<?, ?> record,
      Reason reason,
      long eventTimeMillis,
      long windowEndMillis,
      long watermarkMillis);
}
