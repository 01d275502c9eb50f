package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.Test;

class WriteThenCommitSyncTest {

  /** A mock whose commits fail with {@code failure} when it is set. */
  static final class Failing extends MockConsumer<String, String> {
    RuntimeException failure;

    Failing() {
      super("earliest");
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
      if (failure != null) {
        throw failure;
      }
      super.commitSync(offsets);
    }
  }

  private static final TopicPartition P0 = new TopicPartition("in", 0);

  @Test
  void commitsThroughTheConsumerAndSkipsOnlyTheCommitsTheReadmesLoopSkips() {
    Failing consumer = new Failing();
    consumer.assign(List.of(P0));
    WriteThenCommitSync<String, Long> sink = new WriteThenCommitSync<>(rows -> {}, consumer);

    sink.commit(Map.of(P0, new OffsetAndMetadata(4, "lw1;x")));
    assertThat(consumer.committed(Set.of(P0)).get(P0)).isEqualTo(new OffsetAndMetadata(4, "lw1;x"));

    consumer.failure = (new RebalanceInProgressException("rebalancing"));
    sink.commit(Map.of(P0, new OffsetAndMetadata(5, "lw1;y"))); // skipped
    consumer.failure = (new CommitFailedException("not a member"));
    sink.commit(Map.of(P0, new OffsetAndMetadata(5, "lw1;y"))); // skipped
    consumer.failure = (new KafkaException("the broker is down"));
    assertThatThrownBy(() -> sink.commit(Map.of(P0, new OffsetAndMetadata(5, "lw1;y"))))
        .isInstanceOf(KafkaException.class); // the rows are written again after the back-off
  }
}
