package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** {@link CheckpointReader}: what the previous owners committed, and what it decodes to. */
class CheckpointReaderTest {

  @Test
  void readsTheCommittedOffsetsOfThePartitionsThatHaveOneAndNoOthers() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P1);
    Checkpoint written = new Checkpoint(1_000, 900, 800, 42);
    consumer.commitSync(Map.of(P0, new OffsetAndMetadata(40, written.encode())));
    CheckpointReader reader = new CheckpointReader(consumer);

    Map<TopicPartition, OffsetAndMetadata> committed = reader.committed(List.of(P0, P1));

    assertThat(committed).containsOnlyKeys(P0);
    assertThat(committed.get(P0).offset()).isEqualTo(40);
    assertThat(reader.parse(P0, committed.get(P0))).isEqualTo(written);
  }

  @Test
  void metadataThatIsNotACheckpointReadsAsNoneEveryTime() {
    CheckpointReader reader = new CheckpointReader(new MockConsumer<>("earliest"));
    OffsetAndMetadata foreign = new OffsetAndMetadata(7, "committed by another tool");
    assertThat(reader.parse(P0, foreign)).isSameAs(Checkpoint.NONE);
    assertThat(reader.parse(P0, foreign)).as("and again, logged once").isSameAs(Checkpoint.NONE);
    assertThat(reader.parse(P1, new OffsetAndMetadata(7, "lw9;e=1"))).isSameAs(Checkpoint.NONE);
  }
}
