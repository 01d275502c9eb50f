package io.github.lowwater.kafka;

import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After an exception inside {@code onPoll}: seeks the consumer back so that the next poll delivers
 * again every record of the poll that was not processed. Polling thread; allocation-free. A seek
 * that fails (the partition was revoked meanwhile) is logged at WARN and skipped: that partition's
 * next owner starts from the last commit anyway.
 */
final class Rewind {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private Rewind() {}

  /**
   * Seeks {@code failed} to {@code resumeOffset}, its first record not processed, and every
   * partition of the poll after it (in the poll's order) to its first record: none of theirs was
   * processed. The partitions before it were processed whole.
   *
   * @param consumer the consumer the loop polls
   * @param records the poll's records
   * @param failed the partition whose record threw
   * @param resumeOffset the first offset of {@code failed} not processed
   */
  static <KR, VR> void afterFailure(
      Consumer<?, ?> consumer,
      ConsumerRecords<KR, VR> records,
      TopicPartition failed,
      long resumeOffset) {
    boolean after = false;
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<KR, VR>> batch = records.records(tp);
      try {
        if (tp.equals(failed)) {
          after = true; // first: a failed seek here must not leave the later partitions ahead
          consumer.seek(tp, resumeOffset);
        } else if (after && !batch.isEmpty()) {
          consumer.seek(tp, batch.get(0).offset());
        }
      } catch (RuntimeException e) {
        LOG.warn("could not rewind {} after an exception in onPoll", tp, e);
      }
    }
  }
}
