package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.record;
import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaWindows} without a broker: per-partition results, the quiet-period advance, and the
 * holes of the consumer-group issue, each with the test that failed before its fix.
 */
class KafkaWindowsTest {

  static final long MINUTE = 60_000;
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final long T = NOW.toEpochMilli(); // a multiple of five minutes
  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);

  static KafkaWindows.Builder<Long, Long> builder(ManualClock clock) {
    return builder(clock, Duration.ZERO);
  }

  static KafkaWindows.Builder<Long, Long> builder(ManualClock clock, Duration lateness) {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(lateness)
        .clock(clock);
  }

  static MockConsumer<String, String> assigned(TopicPartition... partitions) {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(partitions));
    Map<TopicPartition, Long> beginning = new java.util.HashMap<>();
    for (TopicPartition tp : partitions) {
      beginning.put(tp, 0L);
    }
    consumer.updateBeginningOffsets(beginning);
    return consumer;
  }

  static void feed(KafkaWindows<String, Long, Long> w, List<ConsumerRecord<String, String>> rs) {
    w.onPoll(recordsOf(rs), ConsumerRecord::key, r -> 1L);
  }

  static ConsumerRecords<String, String> recordsOf(List<ConsumerRecord<String, String>> rs) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition =
        new java.util.LinkedHashMap<>();
    for (ConsumerRecord<String, String> r : rs) {
      byPartition
          .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
          .add(r);
    }
    return new ConsumerRecords<>(byPartition, Map.of());
  }

  @SafeVarargs
  static void feed(KafkaWindows<String, Long, Long> w, ConsumerRecord<String, String>... rs) {
    w.onPoll(records(rs), ConsumerRecord::key, r -> 1L);
  }

  // --- per-partition results -------------------------------------------------------------------

  @Test
  void aPartitionsWindowClosesOnItsOwnWatermarkWhateverTheSlowerPartitionsDo() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    feed(windows, record(P0, 0, T + MINUTE), record(P0, 1, T + 6 * MINUTE));
    feed(windows, record(P1, 0, T + 2 * MINUTE));
    List<WindowResult<String, Long>> results = windows.pollFinalized();
    assertThat(results).containsExactly(new WindowResult<>(T, T + 5 * MINUTE, "k", 1L, P0));
    assertThat(windows.watermark(P0)).isEqualTo(T + 6 * MINUTE);
    assertThat(windows.watermark(P1)).isEqualTo(T + 2 * MINUTE);
    assertThat(windows.watermark()).as("the instance's minimum").isEqualTo(T + 2 * MINUTE);
    assertThat(KafkaWindowsBuilderTest.offsets(windows.committableOffsets()))
        .isEqualTo(Map.of(P0, 1L, P1, 0L));
  }

  /**
   * Regression (the catch-up bug at every failover): a lagging partition handed to a running
   * instance whose watermark is already far ahead had its re-read records declared late.
   */
  @Test
  void aLaggingPartitionHandedToARunningInstanceIsNotLate() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> perPartition =
        builder(clock).consumer(new MockConsumer<>("earliest")).build();
    KafkaWindows<String, Long, Long> merged =
        builder(clock)
            .resultScope(ResultScope.MERGED)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    for (KafkaWindows<String, Long, Long> w : List.of(perPartition, merged)) {
      w.rebalanceListener().onPartitionsAssigned(List.of(P0));
      feed(w, record(P0, 0, T + 60 * MINUTE));
      w.rebalanceListener().onPartitionsAssigned(List.of(P1)); // failover: P1 lags by an hour
      feed(w, record(P1, 0, T + MINUTE), record(P1, 1, T + 2 * MINUTE));
    }
    assertThat(perPartition.stats().late()).isZero();
    assertThat(perPartition.stats().accepted()).isEqualTo(3);
    assertThat(merged.stats().late()).as("what MERGED does, as documented").isEqualTo(2);
  }

  @Test
  void aRevokedPartitionsOpenWindowsAreDroppedNotEmitted() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock).consumer(new MockConsumer<>("earliest")).build();
    ConsumerRebalanceListener listener = windows.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0, P1));
    feed(windows, record(P0, 0, T + MINUTE), record(P1, 0, T + MINUTE));
    listener.onPartitionsRevoked(List.of(P1));
    feed(windows, record(P0, 1, T + 6 * MINUTE));
    assertThat(windows.pollFinalized()).extracting(WindowResult::source).containsExactly(P0);
    assertThat(windows.committableOffsets()).containsOnlyKeys(P0);
    assertThat(windows.stats().openWindows()).isEqualTo(1);
    assertThat(windows.stats().accepted()).as("counters survive the hand-over").isEqualTo(3);
  }

  /** What a metrics reporter reads: the last poll's frontiers, the assignment, any thread. */
  @Test
  void metricsReadingsComeFromTheLastPollAndFollowTheAssignment() throws Exception {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock).consumer(new MockConsumer<>("earliest")).build();
    ConsumerRebalanceListener listener = windows.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0, P1));
    assertThat(windows.partitions()).containsExactly(P0, P1);
    assertThat(windows.frontier(P0)).isEqualTo(io.github.lowwater.WatermarkTracker.UNSEEN);
    feed(windows, record(P0, 0, T + MINUTE), record(P0, 1, T + 3 * MINUTE));
    long[] read = new long[2];
    Thread reporter =
        new Thread(
            () -> {
              read[0] = windows.frontier(P0);
              read[1] = windows.watermark(P0);
            });
    reporter.start();
    reporter.join();
    assertThat(read).containsExactly(T + 3 * MINUTE, T + 3 * MINUTE);
    listener.onPartitionsRevoked(List.of(P0));
    assertThat(windows.partitions()).containsExactly(P1);
    assertThat(windows.frontier(P0)).isEqualTo(io.github.lowwater.WatermarkTracker.UNSEEN);
  }

  // --- the quiet-period advance ----------------------------------------------------------------

  /** A partition that falls silent while the others are busy still closes its last window. */
  @Test
  void aSilentPartitionClosesItsLastWindowThroughItsOwnQuietAdvance() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock, Duration.ofMinutes(1))
            .quietAdvanceAfter(Duration.ofSeconds(90))
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    feed(windows, record(P0, 0, T), record(P1, 0, T));
    long offset = 1;
    List<WindowResult<String, Long>> p1Results = new ArrayList<>();
    long closedAt = -1;
    while (closedAt < 0 && clock.wallMillis() < T + 20 * MINUTE) {
      clock.advance(Duration.ofSeconds(10));
      feed(windows, record(P0, offset++, clock.wallMillis())); // P0 busy, P1 silent
      for (WindowResult<String, Long> r : windows.pollFinalized()) {
        if (r.source().equals(P1)) {
          p1Results.add(r);
          closedAt = clock.wallMillis();
        }
      }
    }
    assertThat(p1Results).containsExactly(new WindowResult<>(T, T + 5 * MINUTE, "k", 1L, P1));
    assertThat(closedAt)
        .as("not before end + allowedLateness, within one poll after it")
        .isGreaterThanOrEqualTo(T + 6 * MINUTE)
        .isLessThan(T + 6 * MINUTE + 10_000);
    assertThat(windows.quietAdvances()).isPositive();
  }

  /**
   * Regression: the quiet period counted from the build, not the assignment; a join that took
   * longer than 90 s advanced the watermark to the wall clock before the first record, and the
   * records of the unwritten windows were late.
   */
  @Test
  void aSlowJoinDoesNotAdvanceTheWatermarkBeforeTheFirstRecord() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock, Duration.ofMinutes(1))
            .resultScope(ResultScope.MERGED)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.seedWatermark(T - 30 * MINUTE); // the sink's newest window
    clock.advance(Duration.ofSeconds(100)); // the group join takes 100 s
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows);
    assertThat(windows.watermark()).isEqualTo(T - 30 * MINUTE);
    feed(windows, record(P0, 0, T - 20 * MINUTE));
    assertThat(windows.stats().late()).isZero();
    assertThat(windows.quietAdvances()).isZero();
  }

  // --- commits ---------------------------------------------------------------------------------

  /**
   * Regression: {@code seedWatermark} after records were added moved the commit past a window the
   * seed closed but that was not returned yet.
   */
  @Test
  void aSeedAfterRecordsDoesNotLetTheCommitSkipAnUnreturnedWindow() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock)
            .resultScope(ResultScope.MERGED)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows, record(P0, 5, T - 20 * MINUTE));
    windows.seedWatermark(T - 10 * MINUTE);
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(5);
    assertThat(windows.pollFinalized()).hasSize(1);
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(6);
  }

  @Test
  void theCommittedMetadataIsTheCheckpointAsOfTheCommittedOffset() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock, Duration.ofMinutes(1)).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows, record(P0, 0, T + MINUTE), record(P0, 1, T + 7 * MINUTE));
    feed(windows, record(P0, 2, T + 11 * MINUTE)); // closes [T, T+5) and [T+5, T+10)
    windows.pollFinalized();
    Checkpoint c = Checkpoint.parse(windows.committableOffsets().get(P0).metadata());
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(2);
    assertThat(c)
        .isEqualTo(
            new Checkpoint(T + 10 * MINUTE, T + 7 * MINUTE, T + 6 * MINUTE, 3)
                .at(2, Checkpoint.COMPLETE) // o: the offset it is committed with
                .configured(MINUTE, Checkpoint.NO_GUARD)); // l: its lateness; no guard, no s
  }

  // --- exceptions inside onPoll ----------------------------------------------------------------

  @Test
  void aThrowingMapperRewindsEveryPartitionToItsFirstUnprocessedRecordAndChangesNothingForIt() {
    ManualClock clock = new ManualClock(NOW);
    MockConsumer<String, String> consumer = assigned(P0, P1);
    KafkaWindows<String, Long, Long> windows = builder(clock).consumer(consumer).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    List<ConsumerRecord<String, String>> batch =
        List.of(
            record(P0, 0, T),
            record(P0, 1, T + 1),
            record(P0, 2, T + 2),
            record(P1, 0, T),
            record(P1, 1, T + 1));
    consumer.seek(P0, 3);
    consumer.seek(P1, 2); // where a real poll leaves the positions
    assertThatThrownBy(
            () ->
                windows.onPoll(
                    recordsOf(batch),
                    (r, out) -> {
                      if (r.partition() == 0 && r.offset() == 1) {
                        throw new IllegalStateException("bad payload");
                      }
                      out.emit(r.timestamp(), r.key(), 1L);
                    }))
        .hasMessage("bad payload");
    assertThat(windows.stats().accepted()).isEqualTo(1);
    assertThat(consumer.position(P0)).isEqualTo(1);
    assertThat(consumer.position(P1)).isEqualTo(0);
    assertThat(KafkaWindowsBuilderTest.offsets(windows.committableOffsets()))
        .isEqualTo(Map.of(P0, 0L));
    // The retry from the rewound positions counts every record once.
    feed(windows, batch.subList(1, 5));
    assertThat(windows.stats().accepted()).isEqualTo(5);
  }

  @Test
  void aThrowingLateHandlerLeavesTheRecordUncountedAndTheConsumerRewoundToIt() {
    ManualClock clock = new ManualClock(NOW);
    MockConsumer<String, String> consumer = assigned(P0);
    List<Long> handed = new ArrayList<>();
    boolean[] down = {true};
    KafkaWindows<String, Long, Long> windows =
        builder(clock)
            .consumer(consumer)
            .lateRecordHandler(
                (record, reason, t, end, watermark) -> {
                  if (down[0]) {
                    throw new IllegalStateException("dead-letter table is down");
                  }
                  handed.add(record.offset());
                  assertThat(reason).isEqualTo(LateRecordHandler.Reason.LATE);
                })
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows, record(P0, 0, T + 6 * MINUTE));
    consumer.seek(P0, 3);
    assertThatThrownBy(() -> feed(windows, record(P0, 1, T), record(P0, 2, T + 7 * MINUTE)))
        .hasMessage("dead-letter table is down");
    assertThat(windows.stats().late()).isZero();
    assertThat(consumer.position(P0)).isEqualTo(1);
    down[0] = false;
    feed(windows, record(P0, 1, T), record(P0, 2, T + 7 * MINUTE));
    assertThat(windows.stats().late()).isEqualTo(1);
    assertThat(handed).containsExactly(1L);
  }

  /**
   * Regression: a timer that threw inside {@code onPoll} left the windows half-finalized, and the
   * commit then passed records of a window never returned.
   */
  @Test
  void aThrowingTimerLosesNoWindowAndTheRecordThatFiredItIsNotReadTwice() {
    ManualClock clock = new ManualClock(NOW);
    MockConsumer<String, String> consumer = assigned(P0);
    KafkaWindows<String, Long, Long> windows =
        builder(clock).resultScope(ResultScope.MERGED).consumer(consumer).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    windows
        .windows()
        .registerTimer(
            T + 5 * MINUTE,
            (time, watermark) -> {
              throw new IllegalStateException("timer failed");
            });
    feed(windows, record(P0, 0, T + MINUTE));
    consumer.seek(P0, 3);
    assertThatThrownBy(
            () -> feed(windows, record(P0, 1, T + 8 * MINUTE), record(P0, 2, T + 9 * MINUTE)))
        .hasMessage("timer failed");
    assertThat(consumer.position(P0)).as("offset 1 was taken").isEqualTo(2);
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(0);
    assertThat(windows.pollFinalized())
        .containsExactly(new WindowResult<>(T, T + 5 * MINUTE, "k", 1L));
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(1);
    feed(windows, record(P0, 2, T + 9 * MINUTE));
    assertThat(windows.stats().accepted()).isEqualTo(3);
  }

  /**
   * Regression: a user listener that threw on revocation skipped the revocation commit but the
   * partition was forgotten, so its records were counted twice.
   */
  @Test
  void aThrowingDelegateOnRevocationStillDropsThePartitionAndCommitsNothing() {
    ManualClock clock = new ManualClock(NOW);
    MockConsumer<String, String> consumer = assigned(P0);
    KafkaWindows<String, Long, Long> windows = builder(clock).consumer(consumer).build();
    ConsumerRebalanceListener listener =
        windows.rebalanceListener(
            new ConsumerRebalanceListener() {
              @Override
              public void onPartitionsAssigned(java.util.Collection<TopicPartition> ps) {}

              @Override
              public void onPartitionsRevoked(java.util.Collection<TopicPartition> ps) {
                throw new IllegalStateException("flush failed");
              }
            });
    listener.onPartitionsAssigned(List.of(P0));
    feed(windows, record(P0, 0, T + MINUTE));
    assertThatThrownBy(() -> listener.onPartitionsRevoked(List.of(P0))).hasMessage("flush failed");
    assertThat(windows.assignedPartitions()).isEmpty();
    assertThat(windows.pollFinalized()).isEmpty();
    assertThat(consumer.committed(java.util.Set.of(P0)).get(P0)).isNull();
  }

  /**
   * An aggregator whose result throws for one partition's window: nothing counts as returned, so
   * the commit stays behind every window, and the next call returns every result once.
   */
  @Test
  void aThrowingResultLosesNoPartitionsWindowAndKeepsTheCommitBehindThem() {
    ManualClock clock = new ManualClock(NOW);
    boolean[] failing = {true};
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(
                Duration.ofMinutes(5),
                Aggregators.<Long, long[], Long>of(
                    () -> new long[1],
                    (acc, v) -> {
                      acc[0] += v;
                      return acc;
                    },
                    acc -> {
                      if (failing[0] && acc[0] == 2) {
                        throw new IllegalStateException("result failed");
                      }
                      return acc[0];
                    }))
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    feed(windows, record(P0, 0, T), record(P0, 1, T + 6 * MINUTE)); // P0 closes a window of 1
    feed(windows, record(P1, 0, T), record(P1, 1, T), record(P1, 2, T + 6 * MINUTE)); // of 2
    assertThatThrownBy(windows::pollFinalized).hasMessage("result failed");
    assertThat(KafkaWindowsBuilderTest.offsets(windows.committableOffsets()))
        .isEqualTo(Map.of(P0, 0L, P1, 0L));
    failing[0] = false;
    assertThat(windows.pollFinalized())
        .containsExactlyInAnyOrder(
            new WindowResult<>(T, T + 5 * MINUTE, "k", 1L, P0),
            new WindowResult<>(T, T + 5 * MINUTE, "k", 2L, P1));
    assertThat(windows.pollFinalized()).isEmpty();
    assertThat(KafkaWindowsBuilderTest.offsets(windows.committableOffsets()))
        .isEqualTo(Map.of(P0, 1L, P1, 2L));
  }

  // --- the end of the input --------------------------------------------------------------------

  /**
   * Regression: {@code finishAll()} advanced to {@code Long.MAX_VALUE - allowedLateness}, which
   * left windows open under {@code allowedLateness(FOREVER)} and near {@code Long.MAX_VALUE}.
   */
  @Test
  void finishAllClosesEveryWindowWithLatenessForeverAndAtTheLongBounds() {
    for (ResultScope scope : ResultScope.values()) {
      ManualClock clock = new ManualClock(NOW);
      KafkaWindows<String, Long, Long> windows =
          KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
              .allowedLateness(ChronoUnit.FOREVER.getDuration())
              .resultScope(scope)
              .clock(clock)
              .consumer(new MockConsumer<>("earliest"))
              .build();
      windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
      feed(windows, record(P0, 0, Long.MIN_VALUE), record(P0, 1, T), record(P0, 2, Long.MAX_VALUE));
      windows.finishAll();
      assertThat(windows.pollFinalized()).as("%s", scope).hasSize(3);
      feed(windows, record(P0, 3, T));
      assertThat(windows.stats().late())
          .as("%s: after the end every record is late", scope)
          .isEqualTo(1);
      Checkpoint c = Checkpoint.parse(windows.committableOffsets().get(P0).metadata());
      assertThat(c.writtenThroughMillis()).as("%s", scope).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Test
  void afterFinishAllTheCheckpointClaimsNoWindowNewerThanTheNewestWithRecords() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        builder(clock).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows, record(P0, 0, T + MINUTE));
    windows.finishAll();
    windows.pollFinalized();
    Checkpoint c = Checkpoint.parse(windows.committableOffsets().get(P0).metadata());
    assertThat(c.writtenThroughMillis()).isEqualTo(T + 5 * MINUTE);
    assertThat(c.watermarkMillis()).isEqualTo(T + 5 * MINUTE);
  }
}
