package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.record;
import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.FutureEventPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The options of {@link KafkaWindows.Builder} that the issue "Hopping and session windows" found
 * missing or unsafe, each reproduced as a new user would meet it: a live builder as the driver's
 * configuration, an optional consumer, no future guard or strategy, and no record that only moves
 * time.
 */
class KafkaWindowsOptionsTest {

  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
  static final long MINUTE = 60_000;

  final ManualClock clock = new ManualClock(Instant.ofEpochMilli(T0 + 30 * MINUTE));

  KafkaWindows.Builder<Long, Long> builder() {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .clock(clock)
        .consumer(new MockConsumer<String, String>("earliest"));
  }

  /**
   * The driver kept its live builder as its configuration: {@code allowedLateness(3h)} called on
   * the builder after {@code build()} gave the partitions assigned later 3 h of lateness.
   */
  @Test
  void aBuilderChangedAfterBuildChangesNothingInTheDriverItBuilt() {
    KafkaWindows.Builder<Long, Long> builder = builder();
    KafkaWindows<String, Long, Long> windows = builder.build();
    builder.allowedLateness(Duration.ofHours(3));
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    windows.onPoll(
        records(record(P0, 0, T0 + 10 * MINUTE), record(P0, 1, T0 + MINUTE)),
        ConsumerRecord::key,
        r -> 1L);
    assertThat(windows.stats().late()).as("the default lateness, 2 min: 9 min behind").isOne();
  }

  /**
   * {@code consumer(...)} was optional: without it no checkpoint was read and no rewind happened,
   * silently (a restart overwrote a written row's value 3 with 1).
   */
  @Test
  void buildingWithoutTheConsumerIsRejectedWithTheReason() {
    assertThatThrownBy(
            () -> KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("consumer is required: set consumer(...)")
        .hasMessageContaining("overwrites written rows");
  }

  /**
   * There was no {@code maxFutureSkew}: one device a day fast made the in-order readings of its
   * partition after it late, and {@code lowwater.events.future} could never move.
   */
  @Test
  void theFutureGuardKeepsADeviceADayFastFromMakingItsPartitionsNextRecordsLate() {
    KafkaWindows<String, Long, Long> windows =
        builder().maxFutureSkew(Duration.ofMinutes(1)).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    long now = clock.wallMillis();
    windows.onPoll(
        records(
            record(P0, 0, now - MINUTE),
            record(P0, 1, now + 24 * 60 * MINUTE), // a day fast
            record(P0, 2, now - MINUTE + 1_000),
            record(P0, 3, now - MINUTE + 2_000)),
        ConsumerRecord::key,
        r -> 1L);
    assertThat(windows.stats().futureEvents()).isOne();
    // The day-fast record itself goes to the late path (FutureEventPolicy.LATE, the only policy
    // of KafkaWindows: issue 32), the in-order records after it do not.
    assertThat(windows.stats().late()).isOne();
    assertThat(windows.stats().accepted()).isEqualTo(3);
    assertThat(windows.frontier(P0)).isEqualTo(now - MINUTE + 2_000);
  }

  /**
   * The policy reaches every partition's windows, and a record it sends to the late path goes to
   * the late-record handler, as every record that goes into no window does: the driver asks the
   * windows' own verdict ({@code isLate}) before adding, where it used to judge by the watermark
   * alone and never handed such a record over.
   */
  @Test
  void theFutureEventPolicyReachesEveryPartitionsWindowsAndTheLateRecordHandler() {
    List<String> handed = new ArrayList<>();
    KafkaWindows<String, Long, Long> windows =
        builder()
            .maxFutureSkew(Duration.ZERO)
            .futureEventPolicy(FutureEventPolicy.LATE)
            .lateRecordHandler((r, reason, t, end, wm) -> handed.add(reason + "@" + r.offset()))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    windows.onPoll(
        records(record(P0, 0, clock.wallMillis() + 1), record(P0, 1, clock.wallMillis())),
        ConsumerRecord::key,
        r -> 1L);
    assertThat(windows.stats().late()).isOne();
    assertThat(windows.stats().accepted()).isOne();
    assertThat(handed).containsExactly("LATE@0");
  }

  /**
   * A mapper could not say "this record only moves time", so the punctuated strategy the README
   * lists could not be used through {@code KafkaWindows}: markers now move each partition's
   * watermark, and nothing else does.
   */
  @Test
  void underThePunctuatedStrategyOnlyMarkerRecordsMoveThePartitionsWatermark() {
    KafkaWindows<String, Long, Long> windows =
        builder().strategy(WatermarkStrategy.PUNCTUATED).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    RecordMapper<String, String, String, Long> mapper =
        (r, out) -> {
          if (r.offset() % 2 == 1) {
            out.punctuate(r.timestamp()); // a marker: "nothing older follows"
          } else {
            out.emit(r.timestamp(), r.key(), 1L);
          }
        };
    windows.onPoll(records(record(P0, 0, T0 + MINUTE), record(P0, 2, T0 + 9 * MINUTE)), mapper);
    assertThat(windows.watermark(P0)).isEqualTo(WatermarkTracker.NO_WATERMARK);
    windows.onPoll(records(record(P0, 3, T0 + 5 * MINUTE)), mapper);
    assertThat(windows.watermark(P0)).isEqualTo(T0 + 5 * MINUTE);
    assertThat(windows.pollFinalized()).hasSize(1);
    assertThat(windows.stats().accepted()).isEqualTo(2);
    assertThat(windows.skippedRecords()).isZero();
  }

  /** A heartbeat record moves its partition's frontier and watermark and goes into no window. */
  @Test
  void aTimeOnlyRecordMovesThePartitionsWatermarkAndGoesIntoNoWindow() {
    KafkaWindows<String, Long, Long> windows = builder().allowedLateness(Duration.ZERO).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    RecordMapper<String, String, String, Long> mapper =
        (r, out) -> {
          if (r.offset() == 1) {
            out.observe(r.timestamp()); // a heartbeat
          } else {
            out.emit(r.timestamp(), r.key(), 1L);
          }
        };
    windows.onPoll(records(record(P0, 0, T0 + MINUTE), record(P0, 1, T0 + 6 * MINUTE)), mapper);
    assertThat(windows.watermark(P0)).isEqualTo(T0 + 6 * MINUTE);
    assertThat(windows.pollFinalized()).hasSize(1);
    assertThat(windows.stats().accepted()).isOne();
    assertThat(windows.stats().late()).isZero();
    assertThat(windows.skippedRecords()).isZero();
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(2);
  }
}
