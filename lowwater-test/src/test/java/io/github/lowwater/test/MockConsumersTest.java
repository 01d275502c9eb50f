package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class MockConsumersTest {

  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);

  /** What a listener saw, and the commits readable inside its onPartitionsAssigned. */
  private static final class Recorder implements ConsumerRebalanceListener {
    private final MockConsumer<String, String> consumer;
    final List<String> calls = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> committedAtAssignment;

    Recorder(MockConsumer<String, String> consumer) {
      this.consumer = consumer;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      calls.add("revoked " + partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      calls.add("assigned " + partitions.size());
      committedAtAssignment = consumer.committed(Set.copyOf(partitions));
    }
  }

  @Test
  void aRestartCarriesTheCommitsAndTheirMetadataAndResumesAtThem() {
    MockConsumer<String, String> old = new MockConsumer<>("earliest");
    old.subscribe(List.of("t"), new Recorder(old));
    old.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    old.rebalance(List.of(P0, P1));
    old.commitSync(Map.of(P0, new OffsetAndMetadata(2, "lw1;checkpoint")));

    List<Recorder> listeners = new ArrayList<>();
    MockConsumer<String, String> next =
        MockConsumers.restart(
            old,
            Set.of(P0, P1),
            "earliest",
            c -> {
              listeners.add(new Recorder(c));
              return listeners.get(0);
            });

    Recorder listener = listeners.get(0);
    assertThat(listener.calls).containsExactly("assigned 2");
    assertThat(listener.committedAtAssignment.get(P0))
        .isEqualTo(new OffsetAndMetadata(2, "lw1;checkpoint"));
    assertThat(listener.committedAtAssignment.get(P1)).isNull();
    assertThat(next.assignment()).containsExactlyInAnyOrder(P0, P1);
    for (int offset = 0; offset < 4; offset++) { // the whole log again
      next.addRecord(new ConsumerRecord<>("t", 0, offset, "k", "v" + offset));
    }
    List<String> values = new ArrayList<>();
    next.poll(Duration.ZERO).forEach(r -> values.add(r.value()));
    assertThat(values).containsExactly("v2", "v3"); // from the commit on
  }

  @Test
  void anOldMockWithoutBeginningOffsetsIsRefusedWithTheFix() {
    MockConsumer<String, String> old = new MockConsumer<>("earliest");
    assertThatThrownBy(() -> MockConsumers.restart(old, Set.of(P0), "earliest", Recorder::new))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("updateBeginningOffsets");
  }
}
