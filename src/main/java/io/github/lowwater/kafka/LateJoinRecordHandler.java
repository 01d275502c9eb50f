package io.github.lowwater.kafka;

import io.github.lowwater.join.JoinSide;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Receives the records a {@link KafkaJoin} did not join because they arrived behind their
 * partition's watermark (semantics rule 68), with the {@link ConsumerRecord} itself, so that a
 * dead-letter table can be keyed by topic, partition and offset as {@link LateRecordHandler}'s can.
 * Set with {@link KafkaJoin.Builder#lateRecordHandler}, in place of the core's {@link
 * io.github.lowwater.join.LateJoinHandler}, which gets the partition but not the offset.
 *
 * <p>Called on the polling thread, inside {@code onPoll}, once per late record: a record a new
 * owner re-reads below the position its predecessor's checkpoint claims is not handed over again
 * (it was, with the same verdict); one read after the last commit is handed over again by its next
 * reader, as its rows are emitted again. An exception thrown here rewinds every task to its last
 * commit and propagates from {@code onPoll} (rule 74).
 */
@FunctionalInterface
public interface LateJoinRecordHandler {

  /**
   * Handles one late record.
   *
   * @param side the record's side: {@code LEFT} for the left topic
   * @param record the record, with its topic, partition, offset, key and headers
   * @param eventTimeMillis the record's event time, below {@code watermarkMillis}
   * @param watermarkMillis the watermark it was judged against: its partition's newest time less
   *     the allowed lateness
   * @throws Exception if the record could not be handled (a dead-letter write failed): every task
   *     is rewound to its last commit and {@code onPoll} throws, an unchecked exception as it is
   *     and a checked one wrapped in an {@link IllegalStateException} that names the record, as
   *     {@link LateRecordHandler} does (issue 45, item 3: one convention for every handler)
   */
  void onLateRecord(
      JoinSide side, ConsumerRecord<?, ?> record, long eventTimeMillis, long watermarkMillis)
      throws Exception;
}
