package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Argument checks and the broker-free behaviour of {@link KafkaWindows}. */
class KafkaWindowsBuilderTest {

  static KafkaWindows.Builder<Long, Long> builder() {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
  }

  @Test
  void argumentChecksNameTheParameterAndTheValue() {
    assertThatThrownBy(() -> builder().maxDrift(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDrift must be > 0: PT0S");
    assertThatThrownBy(() -> builder().quietAdvanceAfter(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quietAdvanceAfter must be > 0: PT-1S");
    assertThatThrownBy(() -> builder().quietAdvanceMaxLag(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quietAdvanceMaxLag must be >= 0: PT-1S");
    assertThatThrownBy(() -> builder().allowedLateness(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("allowedLateness must be >= 0: PT-1S");
    assertThatThrownBy(() -> builder().idleTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleTimeout must be > 0: PT0S");
    assertThatThrownBy(() -> builder().clock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
    assertThatThrownBy(() -> KafkaWindows.builder(Duration.ZERO, Aggregators.sumLong()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder().groupWatermarkInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("groupWatermarkInterval must be > 0: PT0S");
    assertThatThrownBy(() -> builder().resultScope(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("resultScope");
    assertThatThrownBy(() -> builder().lateRecordHandler(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("lateRecordHandler");
  }

  @Test
  void settingAnOptionTwiceIsRejected() {
    KafkaWindows.Builder<Long, Long> b = builder().quietAdvanceAfter(Duration.ofSeconds(30));
    assertThatThrownBy(() -> b.quietAdvanceAfter(Duration.ofSeconds(60)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("quietAdvanceAfter was already set");
    KafkaWindows.Builder<Long, Long> scoped = builder().resultScope(ResultScope.MERGED);
    assertThatThrownBy(() -> scoped.resultScope(ResultScope.PER_PARTITION))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("resultScope was already set to MERGED");
  }

  /** The value type of {@code count()} is inferred from the assignment: no type witness. */
  @Test
  void countNeedsNoTypeWitness() {
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .clock(new ManualClock())
            .consumer(new MockConsumer<>("earliest"))
            .build();
    TopicPartition p0 = new TopicPartition("t", 0);
    windows.onPoll(
        records(record(p0, 0, 1_000), record(p0, 1, 2_000)), ConsumerRecord::key, r -> 7L);
    windows.finishAll();
    assertThat(windows.pollFinalized()).extracting(r -> r.value()).containsExactly(2L);
  }

  @Test
  void perPartitionIsTheDefaultScope() {
    assertThat(builder().consumer(new MockConsumer<>("earliest")).build().resultScope())
        .isEqualTo(ResultScope.PER_PARTITION);
  }

  @Test
  void maxDriftIsForTheMergedScopeOnly() {
    org.apache.kafka.clients.consumer.MockConsumer<String, String> consumer =
        new org.apache.kafka.clients.consumer.MockConsumer<>("earliest");
    assertThatThrownBy(() -> builder().consumer(consumer).maxDrift(Duration.ofMinutes(10)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxDrift needs resultScope(MERGED)");
    assertThat(
            builder()
                .resultScope(ResultScope.MERGED)
                .consumer(consumer)
                .maxDrift(Duration.ofMinutes(10))
                .build()
                .resultScope())
        .isEqualTo(ResultScope.MERGED);
  }

  @Test
  void maxDriftNeedsTheConsumerAndAtLeastTheAllowedLateness() {
    assertThatThrownBy(
            () ->
                builder().resultScope(ResultScope.MERGED).maxDrift(Duration.ofMinutes(10)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("consumer");
    org.apache.kafka.clients.consumer.MockConsumer<String, String> consumer =
        new org.apache.kafka.clients.consumer.MockConsumer<>("earliest");
    assertThatThrownBy(
            () ->
                builder()
                    .resultScope(ResultScope.MERGED)
                    .allowedLateness(Duration.ofMinutes(2))
                    .consumer(consumer)
                    .maxDrift(Duration.ofMinutes(2).minusMillis(1))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxDrift must be >= allowedLateness (PT2M): PT1M59.999S");
    assertThat(
            builder()
                .resultScope(ResultScope.MERGED)
                .allowedLateness(Duration.ofMinutes(2))
                .consumer(consumer)
                .maxDrift(Duration.ofMinutes(2))
                .build()
                .pauses())
        .as("maxDrift exactly the allowed lateness is accepted")
        .isZero();
  }

  /** The commit offsets hold back the oldest record of each window not yet returned. */
  @Test
  void committableOffsetsHoldTheOldestRecordOfEachUnreturnedWindow() {
    ManualClock clock = new ManualClock();
    KafkaWindows<String, Long, Long> windows =
        builder()
            .resultScope(ResultScope.MERGED)
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    TopicPartition p0 = new TopicPartition("t", 0);
    TopicPartition p1 = new TopicPartition("t", 1);
    windows.rebalanceListener().onPartitionsAssigned(List.of(p0, p1));
    long min = 60_000;
    windows.onPoll(
        records(
            record(p0, 10, 1 * min),
            record(p0, 11, 6 * min),
            record(p1, 20, 2 * min),
            record(p1, 21, 7 * min)),
        ConsumerRecord::key,
        r -> 1L);
    // Watermark = min(6, 7) min: window [0, 5) is finalized but not returned yet.
    assertThat(windows.watermark()).isEqualTo(6 * min);
    assertThat(offsets(windows.committableOffsets())).isEqualTo(Map.of(p0, 10L, p1, 20L));
    assertThat(windows.pollFinalized()).hasSize(1);
    assertThat(offsets(windows.committableOffsets())).isEqualTo(Map.of(p0, 11L, p1, 21L));
  }

  /**
   * Regression: an eager rebalance revokes every partition at once; removing the slowest first
   * raised the watermark to the next-slowest partition and made the slowest one's records late
   * after re-assignment (seen on the real broker in the catch-up scenario).
   */
  @Test
  void revokingEveryPartitionAtOnceDoesNotRaiseTheWatermark() {
    ManualClock clock = new ManualClock();
    KafkaWindows<String, Long, Long> windows =
        builder()
            .resultScope(ResultScope.MERGED)
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    TopicPartition slow = new TopicPartition("t", 0);
    TopicPartition fast = new TopicPartition("t", 1);
    windows.rebalanceListener().onPartitionsAssigned(List.of(slow, fast));
    windows.onPoll(
        records(record(slow, 0, 60_000), record(fast, 0, 40 * 60_000)),
        ConsumerRecord::key,
        r -> 1L);
    long before = windows.watermark();
    windows.rebalanceListener().onPartitionsRevoked(List.of(slow, fast));
    assertThat(windows.watermark()).isEqualTo(before);
    assertThat(windows.assignedPartitions()).isEmpty();
    assertThat(windows.frontier(slow)).isEqualTo(WatermarkTracker.NO_WATERMARK);
  }

  @Test
  void recordsWithoutAKeyOrValueAreCountedAsSkippedNotDropped() {
    ManualClock clock = new ManualClock();
    KafkaWindows<String, Long, Long> windows =
        builder()
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    TopicPartition p0 = new TopicPartition("t", 0);
    windows.onPoll(
        records(record(p0, 0, 1_000), record(p0, 1, 2_000), record(p0, 2, 3_000)),
        ConsumerRecord::key,
        r -> r.offset() == 1 ? null : 1L);
    assertThat(windows.skippedRecords()).isEqualTo(1);
    assertThat(windows.stats().accepted()).isEqualTo(2);
    assertThat(windows.frontier(p0)).isEqualTo(3_000);
  }

  static Map<TopicPartition, Long> offsets(Map<TopicPartition, OffsetAndMetadata> committable) {
    Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
    committable.forEach((tp, om) -> offsets.put(tp, om.offset()));
    return offsets;
  }

  static ConsumerRecord<String, String> record(TopicPartition tp, long offset, long timestamp) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        timestamp,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME,
        0,
        0,
        "k",
        "v",
        new org.apache.kafka.common.header.internals.RecordHeaders(),
        java.util.Optional.empty());
  }

  @SafeVarargs
  static ConsumerRecords<String, String> records(ConsumerRecord<String, String>... rs) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition =
        new java.util.LinkedHashMap<>();
    for (ConsumerRecord<String, String> r : rs) {
      byPartition
          .computeIfAbsent(
              new TopicPartition(r.topic(), r.partition()), k -> new java.util.ArrayList<>())
          .add(r);
    }
    return new ConsumerRecords<>(byPartition, Map.of());
  }
}
