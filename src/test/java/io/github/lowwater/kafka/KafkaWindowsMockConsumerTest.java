package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.test.MockConsumers;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KafkaWindows} in the consumer loop of its javadoc, against a {@link MockConsumer}: no
 * broker, a {@link ManualClock}, a few milliseconds per test. The runnable version of {@code
 * docs/testing.md}.
 *
 * <p>Windows of five minutes count records per key, with one minute of allowed lateness. Event
 * times are minutes after {@link #T0}; the wall clock stands half an hour later.
 */
class KafkaWindowsMockConsumerTest {

  static final String TOPIC = "arrivals";
  static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final Sink sink = new Sink();

  KafkaWindows.Builder<Long, Long> windows() {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(Duration.ofMinutes(1))
        .clock(clock);
  }

  @Test
  void consumerLoopClosesWindowsPerPartitionAndCommitsTheOldestRecordOfAnUnwrittenWindow() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows = windows().consumer(consumer).build();
    join(consumer, windows);
    add(consumer, record(P0, 0, 1, "a"), record(P0, 1, 2, "a"), record(P0, 2, 7, "b"));
    add(consumer, record(P1, 0, 3, "a"), record(P1, 1, 4, "a"));

    // P0's watermark (7 - 1 min) closes its window [0, 5); P1's (4 - 1 min) closes nothing.
    assertThat(pollAndWrite(consumer, windows)).containsExactly(row(0, P0, "a", 2));
    Map<TopicPartition, OffsetAndMetadata> offsets = windows.committableOffsets();
    assertThat(offsets.get(P0).offset()).isEqualTo(2); // [5, 10) of P0 starts at offset 2
    assertThat(offsets.get(P1).offset()).isEqualTo(0); // [0, 5) of P1 is not written yet
    assertThat(offsets.values()).allSatisfy(om -> assertThat(om.metadata()).startsWith("lw1;"));
    consumer.commitSync(offsets);

    add(consumer, record(P1, 2, 9, "b"));
    assertThat(pollAndWrite(consumer, windows)).containsExactly(row(0, P1, "a", 2));
    consumer.commitSync(windows.committableOffsets());
    assertThat(consumer.committed(Set.of(P0, P1)))
        .hasEntrySatisfying(P0, om -> assertThat(om.offset()).isEqualTo(2))
        .hasEntrySatisfying(P1, om -> assertThat(om.offset()).isEqualTo(2));
  }

  @Test
  void rebalanceDropsTheRevokedPartitionsOpenWindowsAndCommitsNothing() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows = windows().consumer(consumer).build();
    join(consumer, windows);
    add(consumer, record(P0, 0, 1, "a"), record(P0, 1, 2, "a"), record(P1, 0, 3, "a"));
    assertThat(pollAndWrite(consumer, windows)).isEmpty();
    consumer.commitSync(windows.committableOffsets());
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.of(P0, P1));

    consumer.rebalance(List.of(P1)); // calls onPartitionsRevoked([P0])
    assertThat(windows.assignedPartitions()).containsExactly(P1);
    add(consumer, record(P1, 1, 9, "b"));
    assertThat(pollAndWrite(consumer, windows)).containsExactly(row(0, P1, "a", 1));

    // P0 comes back (the mock's committed() shows assigned partitions only): nothing was
    // committed, so P0 is read again from offset 0 and its window [0, 5) counted once.
    consumer.rebalance(List.of(P0, P1));
    assertThat(consumer.committed(Set.of(P0, P1))).isEqualTo(committed);
    add(consumer, record(P0, 0, 1, "a"), record(P0, 1, 2, "a"));
    pollAndWrite(consumer, windows);
    windows.finishAll(); // the end of the test input: closes every open window
    pollAndWrite(consumer, windows);
    assertThat(sink.rows())
        .containsExactlyInAnyOrder(row(0, P1, "a", 1), row(0, P0, "a", 2), row(5, P1, "b", 1));
  }

  @Test
  void restartSkipsRecordsOfWrittenWindowsAsRedeliveredNotLate() {
    MockConsumer<String, String> crashed = crashBeforeTheLastCommit();
    List<KafkaWindows<String, Long, Long>> restarted = new ArrayList<>();
    // The test kit's restart (docs/testing.md): the commits carried over, the partitions assigned.
    MockConsumer<String, String> consumer =
        MockConsumers.restart(
            crashed,
            Set.of(P0, P1),
            "earliest",
            c -> {
              restarted.add(windows().consumer(c).build());
              return restarted.get(0).rebalanceListener();
            });
    KafkaWindows<String, Long, Long> windows = restarted.get(0);
    assertThat(windows.assignedPartitions()).containsExactlyInAnyOrder(P0, P1);
    addLogs(consumer); // the mock delivers from the committed offsets on
    add(consumer, record(P1, 3, 16, "a"));

    pollAndWrite(consumer, windows);
    windows.finishAll();
    pollAndWrite(consumer, windows);

    assertThat(windows.redeliveredRecords()).isEqualTo(1); // P0 offset 2, of the written [0, 5)
    assertThat(windows.stats().late()).isZero();
    assertThat(sink.rewrites).isEqualTo(1); // [5, 10) of P0, written after the last commit
    assertThat(sink.rows())
        .containsExactlyInAnyOrder(
            row(0, P0, "a", 1),
            row(0, P0, "b", 1),
            row(5, P0, "a", 2),
            row(10, P0, "b", 1),
            row(0, P1, "a", 1),
            row(5, P1, "a", 1),
            row(5, P1, "b", 1),
            row(15, P1, "a", 1));
  }

  @Test
  void lateRecordHandlerTellsRedeliveredRecordsFromTrulyLateOnes() {
    List<String> handled = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> committed =
        crashBeforeTheLastCommit().committed(Set.of(P0, P1));
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows =
        windows()
            .consumer(consumer)
            .lateRecordHandler(
                (record, reason, eventTimeMillis, windowEndMillis, watermarkMillis) ->
                    handled.add(record.partition() + "@" + record.offset() + " " + reason))
            .build();
    join(consumer, windows, committed);
    addLogs(consumer);
    // A new record at offset 5 whose window [0, 5) closed on P0's own watermark (12 - 1 min).
    add(consumer, record(P0, 5, 3, "c"));

    pollAndWrite(consumer, windows);

    assertThat(handled).containsExactly("0@2 REDELIVERED", "0@5 LATE");
    assertThat(windows.redeliveredRecords()).isEqualTo(1);
    assertThat(windows.stats().late()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"tool\":\"x\"}",
        "lw2;e=0;f=0;w=0;n=9",
        "lw1;e=9223372036854775807;f=0;w=0;n=9;x=1",
        "lw1;e=soon;f=0;w=0;n=9"
      })
  void unreadableMetadataOfAnotherToolStartsThePartitionWithoutACheckpoint(String metadata) {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows = windows().consumer(consumer).build();
    Map<TopicPartition, OffsetAndMetadata> foreign = Map.of(P0, new OffsetAndMetadata(0, metadata));

    assertThatCode(() -> join(consumer, windows, foreign)).doesNotThrowAnyException();

    assertThat(consumer.committed(Set.of(P0))).isEqualTo(foreign); // what the listener read
    assertThat(windows.watermark(P0)).isEqualTo(WatermarkTracker.NO_WATERMARK); // not seeded
    add(consumer, record(P0, 0, 1, "a"));
    pollAndWrite(consumer, windows);
    assertThat(windows.stats().accepted()).isEqualTo(1); // neither redelivered nor late
    consumer.commitSync(windows.committableOffsets());
    assertThat(consumer.committed(Set.of(P0)).get(P0).metadata()).startsWith("lw1;");
  }

  @Test
  void quietPartitionClosesItsLastWindowOnceTheClockPassesTheQuietPeriod() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows =
        windows().quietAdvanceAfter(Duration.ofSeconds(90)).consumer(consumer).build();
    join(consumer, windows);
    add(consumer, record(P0, 0, 1, "a"));
    assertThat(pollAndWrite(consumer, windows)).isEmpty();

    clock.advance(Duration.ofSeconds(89));
    assertThat(pollAndWrite(consumer, windows)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(pollAndWrite(consumer, windows)).containsExactly(row(0, P0, "a", 1));
    assertThat(windows.committableOffsets().get(P0).offset()).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------

  /** Both partitions' logs, read by the instance that crashes and again after its restart. */
  static final List<ConsumerRecord<String, String>> P0_LOG =
      List.of(
          record(P0, 0, 4.0, "a"),
          record(P0, 1, 5.5, "a"), // opens [5, 10): the offset P0 commits
          record(P0, 2, 4.2, "b"), // still in [0, 5): P0's watermark is 4.5
          record(P0, 3, 7.0, "a"), // watermark 6: [0, 5) of P0 is written
          record(P0, 4, 12.0, "b")); // watermark 11: [5, 10) of P0 is written, not committed

  static final List<ConsumerRecord<String, String>> P1_LOG =
      List.of(
          record(P1, 0, 1.0, "a"),
          record(P1, 1, 8.0, "a"), // watermark 7: [0, 5) of P1 is written
          record(P1, 2, 9.0, "b"));

  /**
   * Runs an instance that commits after its first poll, then writes one more window and dies before
   * committing. Returns the offsets it committed, with their metadata.
   */
  MockConsumer<String, String> crashBeforeTheLastCommit() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows = windows().consumer(consumer).build();
    join(consumer, windows);
    add(consumer, P0_LOG.subList(0, 4));
    add(consumer, P1_LOG.subList(0, 2));
    assertThat(pollAndWrite(consumer, windows)).hasSize(3);
    consumer.commitSync(windows.committableOffsets());
    add(consumer, P0_LOG.subList(4, 5));
    add(consumer, P1_LOG.subList(2, 3));
    assertThat(pollAndWrite(consumer, windows)).containsExactly(row(5, P0, "a", 2));
    return consumer; // no commit, no close, no callback: a crash
  }

  /** Adds both logs whole: a {@link MockConsumer} delivers only from its position on. */
  static void addLogs(MockConsumer<String, String> consumer) {
    add(consumer, P0_LOG);
    add(consumer, P1_LOG);
  }

  /** Subscribes with the windows' listener and lets a rebalance assign both partitions. */
  static void join(MockConsumer<String, String> consumer, KafkaWindows<?, ?, ?> windows) {
    join(consumer, windows, Map.of());
  }

  /**
   * Joins a group that has committed {@code groupOffsets}: the listener reads them on assignment.
   * {@code MockConsumer.subscribe} clears the mock's committed offsets, so they go in after it.
   */
  static void join(
      MockConsumer<String, String> consumer,
      KafkaWindows<?, ?, ?> windows,
      Map<TopicPartition, OffsetAndMetadata> groupOffsets) {
    consumer.subscribe(List.of(TOPIC), windows.rebalanceListener());
    consumer.commitSync(groupOffsets);
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    consumer.rebalance(List.of(P0, P1)); // calls onPartitionsAssigned([P0, P1])
  }

  /** One turn of the loop in the {@link KafkaWindows} javadoc, up to the commit. */
  List<WindowResult<String, Long>> pollAndWrite(
      MockConsumer<String, String> consumer, KafkaWindows<String, Long, Long> windows) {
    windows.onPoll(consumer.poll(Duration.ofMillis(100)), ConsumerRecord::key, r -> 1L);
    List<WindowResult<String, Long>> results = windows.pollFinalized();
    results.forEach(sink::upsert);
    return results;
  }

  /**
   * Upserts on (window start, partition, key), as the {@link KafkaWindows} javadoc recommends, and
   * fails a test that rewrites a row with another value.
   */
  static final class Sink {
    final Map<List<Object>, WindowResult<String, Long>> rows = new LinkedHashMap<>();
    int rewrites;

    void upsert(WindowResult<String, Long> w) {
      WindowResult<String, Long> before = rows.put(List.of(w.start(), w.source(), w.key()), w);
      if (before != null) {
        assertThat(w).as("a row rewritten with another value").isEqualTo(before);
        rewrites++;
      }
    }

    List<WindowResult<String, Long>> rows() {
      return new ArrayList<>(rows.values());
    }
  }

  @SafeVarargs
  static void add(
      MockConsumer<String, String> consumer, ConsumerRecord<String, String>... records) {
    for (ConsumerRecord<String, String> r : records) {
      consumer.addRecord(r);
    }
  }

  static void add(
      MockConsumer<String, String> consumer, List<ConsumerRecord<String, String>> records) {
    records.forEach(consumer::addRecord);
  }

  /** A record of {@code key} whose timestamp is {@code minute} minutes after {@link #T0}. */
  static ConsumerRecord<String, String> record(
      TopicPartition tp, long offset, double minute, String key) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        millis(minute),
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        "v",
        new RecordHeaders(),
        Optional.empty());
  }

  /** The result of the five-minute window starting {@code minute} minutes after {@link #T0}. */
  static WindowResult<String, Long> row(double minute, TopicPartition tp, String key, long count) {
    return new WindowResult<>(millis(minute), millis(minute + 5), key, count, tp);
  }

  static long millis(double minute) {
    return T0.toEpochMilli() + Math.round(minute * 60_000);
  }
}
