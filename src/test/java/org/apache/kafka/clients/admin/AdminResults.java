package org.apache.kafka.clients.admin;

import java.util.Map;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Builds an Admin call's result, whose constructor the client keeps to its package, for a
 * hand-written fake {@code Admin} in Lowwater's tests (kafka-clients ships no public fake of it).
 */
public final class AdminResults {

  private AdminResults() {}

  public static AlterConsumerGroupOffsetsResult alterConsumerGroupOffsets(
      KafkaFuture<Map<TopicPartition, Errors>> future) {
    return new AlterConsumerGroupOffsetsResult(future);
  }
}
