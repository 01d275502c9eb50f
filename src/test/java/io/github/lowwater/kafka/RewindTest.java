package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.record;
import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.records;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** {@link Rewind}: the failed partition to its first record not processed, the later ones whole. */
class RewindTest {

  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);
  static final TopicPartition P2 = new TopicPartition("t", 2);

  @Test
  void theFailedPartitionResumesAtItsFirstUnprocessedRecordAndTheLaterOnesAtTheirFirst() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P1, P2);
    consumer.seek(P0, 12);
    consumer.seek(P1, 9);
    consumer.seek(P2, 7);
    Rewind.afterFailure(
        consumer,
        records(
            record(P0, 10, 1),
            record(P0, 11, 2), // processed whole
            record(P1, 5, 3),
            record(P1, 6, 4),
            record(P1, 7, 5),
            record(P1, 8, 6),
            record(P2, 4, 7),
            record(P2, 5, 8),
            record(P2, 6, 9)),
        P1,
        7);
    assertThat(consumer.position(P0)).isEqualTo(12);
    assertThat(consumer.position(P1)).isEqualTo(7);
    assertThat(consumer.position(P2)).isEqualTo(4);
  }

  /**
   * Regression: when the seek of the failed partition itself threw (it was revoked meanwhile), the
   * partitions after it were not rewound, and their unprocessed records were skipped by the running
   * consumer.
   */
  @Test
  void aSeekThatFailsIsLoggedAndTheOthersStillHappen() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P2); // P1 was revoked
    consumer.seek(P2, 7);
    Rewind.afterFailure(
        consumer, records(record(P0, 10, 1), record(P1, 5, 3), record(P2, 4, 7)), P1, 5);
    assertThat(consumer.position(P2)).isEqualTo(4);
  }
}
