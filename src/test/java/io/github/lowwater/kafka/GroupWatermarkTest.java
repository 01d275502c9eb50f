package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.WatermarkTracker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The group watermark: the minimum committed written-through time, read at an interval. */
class GroupWatermarkTest {

  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);

  /** A checkpoint written through {@code e}, whose watermark before the offset is 30 s older. */
  static OffsetAndMetadata committed(long e) {
    return new OffsetAndMetadata(5, new Checkpoint(e, e + 60_000, e - 30_000, 5).encode());
  }

  /**
   * Issue 16, defect 7: the group watermark was the minimum of {@code w}, the watermark before the
   * committed offset, which lags what is written by the windows still open at that offset (a user
   * saw every window up to 16:07:30 written and a group watermark of 16:04:29). Every window ending
   * at or before {@code e} is written: the claim can be that tight.
   */
  @Test
  void itIsTheWrittenThroughTimeNotTheWatermarkBeforeTheCommittedOffset() {
    OffsetAndMetadata p0 =
        new OffsetAndMetadata(9, new Checkpoint(480_000, 470_000, 269_000, 12).encode());
    OffsetAndMetadata p1 =
        new OffsetAndMetadata(4, new Checkpoint(450_000, 455_000, 10_000, 7).encode());
    assertThat(GroupWatermark.minimum(Set.of(P0, P1), Map.of(P0, p0, P1, p1))).isEqualTo(450_000);
  }

  @Test
  void theMinimumOfTheCommittedWatermarks() {
    assertThat(
            GroupWatermark.minimum(
                Set.of(P0, P1), Map.of(P0, committed(7_000), P1, committed(3_000))))
        .isEqualTo(3_000);
  }

  @Test
  void aPartitionThatNeverCommittedHoldsItAtNoWatermark() {
    assertThat(GroupWatermark.minimum(Set.of(P0, P1), Map.of(P0, committed(7_000))))
        .isEqualTo(WatermarkTracker.NO_WATERMARK);
  }

  @Test
  void aPartitionWithForeignMetadataHoldsItAtNoWatermark() {
    assertThat(
            GroupWatermark.minimum(
                Set.of(P0, P1),
                Map.of(P0, committed(7_000), P1, new OffsetAndMetadata(5, "{\"tool\":1}"))))
        .isEqualTo(WatermarkTracker.NO_WATERMARK);
  }

  @Test
  void itIsReadFromTheCommittedOffsetsAtMostOncePerInterval() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    Node node = new Node(0, "localhost", 9092);
    consumer.updatePartitions(
        "t",
        List.of(
            new PartitionInfo("t", 0, node, new Node[0], new Node[0]),
            new PartitionInfo("t", 1, node, new Node[0], new Node[0])));
    consumer.assign(List.of(P0, P1));
    consumer.commitSync(Map.of(P0, committed(7_000), P1, committed(3_000)));
    GroupWatermark group = new GroupWatermark(consumer, 1_000);
    assertThat(group.value()).isEqualTo(WatermarkTracker.NO_WATERMARK);
    group.maybeRefresh(0);
    assertThat(group.value()).isEqualTo(3_000);
    consumer.commitSync(Map.of(P1, committed(9_000)));
    group.maybeRefresh(999);
    assertThat(group.value()).as("within the interval").isEqualTo(3_000);
    group.maybeRefresh(1_000);
    assertThat(group.value()).isEqualTo(7_000);
  }

  /** A read that times out (a rebalance pending at the coordinator) keeps the previous value. */
  @Test
  void aFailedReadKeepsThePreviousValueAndTheNextIntervalReadsAgain() {
    boolean[] timeout = {false};
    MockConsumer<String, String> consumer =
        new MockConsumer<>("earliest") {
          @Override
          public synchronized Map<TopicPartition, OffsetAndMetadata> committed(
              Set<TopicPartition> partitions, java.time.Duration t) {
            if (timeout[0]) {
              timeout[0] = false;
              throw new org.apache.kafka.common.errors.TimeoutException("rebalance pending");
            }
            return super.committed(partitions, t);
          }
        };
    Node node = new Node(0, "localhost", 9092);
    consumer.updatePartitions(
        "t", List.of(new PartitionInfo("t", 0, node, new Node[0], new Node[0])));
    consumer.assign(List.of(P0));
    consumer.commitSync(Map.of(P0, committed(7_000)));
    GroupWatermark group = new GroupWatermark(consumer, 1_000);
    group.maybeRefresh(0);
    consumer.commitSync(Map.of(P0, committed(9_000)));
    timeout[0] = true;
    group.maybeRefresh(1_000);
    assertThat(group.value()).isEqualTo(7_000);
    group.maybeRefresh(2_000);
    assertThat(group.value()).isEqualTo(9_000);
  }
}
