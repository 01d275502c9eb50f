package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The error handler neither acknowledges, nor seeks, nor retries: it waits, and polls again. */
class MemberErrorHandlerTest {

  private static final TopicPartition P0 = new TopicPartition("in", 0);

  @Test
  void aFailedPollIsNotAcknowledgedSoughtOrRetriedOnlyWaitedFor() {
    Member<String, String, String, Long, Long> member =
        new Member<>(
            LowwaterListenerTest.builder()
                .mapper(ConsumerRecord::key, r -> 1L)
                .rowWriter(rows -> {})
                .build(),
            0,
            Map.of(),
            (l, i, w) -> () -> {});
    MemberErrorHandler handler = new MemberErrorHandler(member, Duration.ofMillis(200));
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    consumer.commitSync(Map.of(P0, new OffsetAndMetadata(3, "lw1;before")));
    consumer.seek(P0, 5);
    int[] retries = {0};

    assertThat(handler.isAckAfterHandle()).isFalse();
    assertThat(handler.seeksAfterHandling()).isTrue(); // the container keeps no remaining records
    long start = System.nanoTime();
    handler.handleBatch(
        new IllegalStateException("the sink is down"),
        ConsumerRecords.empty(),
        consumer,
        null,
        () -> retries[0]++);
    long waitedMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(retries[0]).as("the batch is not run again in memory").isZero();
    assertThat(consumer.committed(Set.of(P0)).get(P0))
        .isEqualTo(new OffsetAndMetadata(3, "lw1;before"));
    assertThat(consumer.position(P0)).isEqualTo(5);
    assertThat(waitedMillis).isBetween(200L, 5_000L);
  }
}
