package io.github.lowwater.spring;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Receives a record that the listener's mapper could not map (a poison record): publish it to a
 * dead-letter topic, store it, or log it. The record is then skipped: it goes into no window, is
 * counted once in {@code KafkaWindows.skippedRecords()}, and the rest of its poll goes on. Called
 * on the consumer's thread, while {@code onPoll} maps the poll's records.
 *
 * <p>At least once: if another failure of the same poll (an aggregator's, a late handler's) rewinds
 * the partition before the poll's commit, the record is mapped, and handed here, again. If this
 * handler throws, the poll fails as a mapper failure would: the partition is rewound to the record,
 * and the next poll delivers it again.
 *
 * @param <KR> the record key type
 * @param <VR> the record value type
 */
@FunctionalInterface
public interface DeadLetterHandler<KR, VR> {

  /**
   * Takes a record the mapper failed on.
   *
   * @param record the record
   * @param failure what the mapper threw
   * @throws Exception to fail the poll instead of skipping the record
   */
  void accept(ConsumerRecord<KR, VR> record, Exception failure) throws Exception;
}
