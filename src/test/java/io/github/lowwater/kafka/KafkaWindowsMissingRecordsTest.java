package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.TOPIC;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
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

/**
 * Semantics rules 64 and 65: a partition whose reading may lack records (no usable checkpoint above
 * offset 0, records deleted below where it starts, a first offset that is not the committed one)
 * marks exactly the rows those records could belong to, and {@code FAIL} throws instead. On a
 * {@link MockConsumer} with a {@link ManualClock}; the same on the real broker in {@code
 * MissingRecordsBrokerTest}, and over random owner changes in {@code HandOverModelTest}.
 */
class KafkaWindowsMissingRecordsTest {

  static final Duration SIZE = Duration.ofMinutes(5);
  static final long MINUTE = 60_000;

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofHours(2)));

  KafkaWindows.Builder<Long, Long> builder(Duration lateness) {
    return KafkaWindows.builder(SIZE, Aggregators.sumLong()).allowedLateness(lateness).clock(clock);
  }

  /** Joins the group: assigned P0 from {@code committed} (empty: no commit). */
  static void join(
      MockConsumer<String, String> consumer,
      KafkaWindows<?, ?, ?> windows,
      Map<TopicPartition, OffsetAndMetadata> committed,
      long logStart) {
    consumer.subscribe(List.of(TOPIC), windows.rebalanceListener());
    consumer.commitSync(committed);
    consumer.updateBeginningOffsets(Map.of(P0, logStart));
    consumer.rebalance(List.of(P0));
  }

  /** One record per minute from {@code fromMinute}, offsets from {@code fromOffset}, key "k". */
  static List<ConsumerRecord<String, String>> minutes(long fromOffset, int fromMinute, int count) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(record(P0, fromOffset + i, fromMinute + i, "k"));
    }
    return records;
  }

  static List<WindowResult<String, Long>> read(
      MockConsumer<String, String> consumer,
      KafkaWindows<String, Long, Long> windows,
      List<ConsumerRecord<String, String>> records) {
    records.forEach(consumer::addRecord);
    windows.onPoll(consumer.poll(Duration.ofMillis(10)), ConsumerRecord::key, r -> 1L);
    return windows.pollFinalized();
  }

  /** The rows of one uninterrupted reading of {@code records}, by window start. */
  Map<Long, Long> truth(List<ConsumerRecord<String, String>> records) {
    MockConsumer<String, String> c = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> w = builder(Duration.ZERO).consumer(c).build();
    join(c, w, Map.of(), 0);
    Map<Long, Long> rows = new LinkedHashMap<>();
    for (WindowResult<String, Long> r : read(c, w, records)) {
      rows.put(r.start(), r.value());
    }
    return rows;
  }

  /**
   * A tool recommits the offset without its checkpoint (kafka-consumer-groups --reset-offsets): the
   * next owner re-reads from it, and the rows of the windows that records below it could belong to
   * are incomplete; every row marked complete is the uninterrupted reading's.
   */
  @Test
  void aCommitWithoutItsCheckpointMarksTheRowsRecordsBelowItCouldBelongTo() {
    List<ConsumerRecord<String, String>> all = minutes(0, 0, 40); // minutes 0 to 39
    Map<Long, Long> truth = truth(all);

    // Owner A reads minutes 0 to 21 and commits: [20, 25) holds offset 20.
    MockConsumer<String, String> ca = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> a = builder(Duration.ZERO).consumer(ca).build();
    join(ca, a, Map.of(), 0);
    assertThat(read(ca, a, all.subList(0, 22))).allMatch(WindowResult::isComplete).hasSize(4);
    OffsetAndMetadata commit = a.committableOffsets().get(P0);
    assertThat(commit.offset()).isEqualTo(20);

    // The tool keeps the offset, drops the metadata; owner B starts there.
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = builder(Duration.ZERO).consumer(cb).build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(20)), 0);
    List<WindowResult<String, Long>> rows = read(cb, b, all.subList(20, 40));
    // First poll's frontier 39 min: records below offset 20 are at most 39 + 5 (size) + 0 + 0
    // (grace, lateness): every window starting before 44 min may lack them, i.e. all of these.
    assertThat(rows).isNotEmpty().noneMatch(WindowResult::isComplete);
    assertThat(b.missingRecordsEvents()).isEqualTo(1);
    assertThat(b.incompleteRows()).isEqualTo(rows.size());
    for (WindowResult<String, Long> r : rows) {
      assertThat(r.value()).isEqualTo(truth.get(r.start())); // here, all in all the same values
    }
  }

  /**
   * The bound at its edge (issue 45, item 6): the end of the first poll's frontier's window, plus
   * the grace period and the lateness. A frontier one millisecond before the window ends at minute
   * 15 bounds at 15 + 1 + 2 = 18 min, and [20, 25) comes out complete; one millisecond later the
   * frontier is in [15, 20), the bound is 23 min, and [20, 25) is incomplete.
   */
  @Test
  void theIncompleteBoundIsTheEndOfTheFirstPollsFrontiersWindowPlusGraceAndLateness() {
    for (long extra : new long[] {0, 1}) {
      MockConsumer<String, String> cb = new MockConsumer<>("earliest");
      KafkaWindows<String, Long, Long> b =
          builder(Duration.ofMinutes(2)).grace(Duration.ofMinutes(1)).consumer(cb).build();
      join(cb, b, Map.of(P0, new OffsetAndMetadata(10)), 0);
      cb.addRecord(record(P0, 10, 10, "k"));
      cb.addRecord(
          new ConsumerRecord<>(
              TOPIC,
              0,
              11,
              millis(15) - 1 + extra,
              TimestampType.CREATE_TIME,
              0,
              0,
              "k",
              "v",
              new RecordHeaders(),
              Optional.empty()));
      b.onPoll(cb.poll(Duration.ofMillis(10)), ConsumerRecord::key, r -> 1L);
      long bound = extra == 0 ? millis(18) : millis(23);
      assertThat(b.isComplete(P0, millis(15))).isFalse();
      assertThat(b.isComplete(P0, bound - 1)).isFalse();
      assertThat(b.isComplete(P0, bound)).isTrue();
      // The rows say the same: [20, 25) comes out complete only when the bound is 18 min.
      List<WindowResult<String, Long>> rows =
          read(cb, b, List.of(record(P0, 12, 21, "k"), record(P0, 13, 40, "k")));
      WindowResult<String, Long> at20 =
          rows.stream().filter(r -> r.start() == millis(20)).findFirst().orElseThrow();
      assertThat(at20.isComplete()).isEqualTo(extra == 0);
      assertThat(rows.stream().filter(r -> r.start() < millis(20)))
          .isNotEmpty()
          .noneMatch(WindowResult::isComplete);
    }
  }

  /**
   * Issue 45, item 6: the bound was {@code F + size + grace + lateness}, a window too many. With
   * early results and neither lateness nor grace, a first poll at minute 12 bounded at 17, and the
   * early row of [15, 20), which no missing record can belong to (a record before minute 12 is in a
   * window that ends by 15), came out incomplete. The bound is 15 now.
   */
  @Test
  void theWindowAfterTheFirstPollsFrontiersWindowIsCompleteWithEarlyResults() {
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b =
        builder(Duration.ZERO).earlyResults(Duration.ofMinutes(1)).consumer(cb).build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(10)), 0);
    b.onPoll(polled(cb, record(P0, 10, 12, "k")), ConsumerRecord::key, r -> 1L);
    List<WindowResult<String, Long>> rows =
        read(cb, b, List.of(record(P0, 11, 16, "k"), record(P0, 12, 17, "k")));
    WindowResult<String, Long> early15 =
        rows.stream()
            .filter(r -> r.start() == millis(15) && r.timing() == Timing.EARLY)
            .findFirst()
            .orElseThrow();
    assertThat(early15.isComplete()).isTrue();
    assertThat(b.isComplete(P0, millis(15) - 1)).isFalse();
    assertThat(b.isComplete(P0, millis(15))).isTrue();
  }

  /** Sessions: the bound adds twice the gap, as a session reaches a gap before its first record. */
  @Test
  void aSessionIsIncompleteUnlessItStartsAtOrAfterTheFrontierPlusTwoGaps() {
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b =
        KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(cb)
            .build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(3)), 0);
    b.onPoll(
        polled(cb, record(P0, 3, 10, "a")), ConsumerRecord::key, r -> 1L); // bound 10 + 10 = 20
    assertThat(b.isComplete(P0, millis(20) - 1)).isFalse();
    assertThat(b.isComplete(P0, millis(20))).isTrue();
    List<WindowResult<String, Long>> rows =
        read(cb, b, List.of(record(P0, 4, 20, "b"), record(P0, 5, 60, "c")));
    assertThat(rows)
        .extracting(WindowResult::key, WindowResult::isComplete)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", false),
            org.assertj.core.groups.Tuple.tuple("b", true));
  }

  static org.apache.kafka.clients.consumer.ConsumerRecords<String, String> polled(
      MockConsumer<String, String> consumer, ConsumerRecord<String, String> record) {
    consumer.addRecord(record);
    return consumer.poll(Duration.ofMillis(10));
  }

  /**
   * Retention deleted records below the committed offset while the group was down: the first record
   * comes at the log start, and the rows the deleted records could belong to are marked; the
   * checkpoint's claims stay (its written windows are not written again).
   */
  @Test
  void recordsDeletedBelowTheCommittedOffsetMarkTheirWindowsAndTheCheckpointStillHolds() {
    List<ConsumerRecord<String, String>> all = minutes(0, 0, 60);
    MockConsumer<String, String> ca = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> a = builder(Duration.ZERO).consumer(ca).build();
    join(ca, a, Map.of(), 0);
    read(ca, a, all.subList(0, 22));
    OffsetAndMetadata commit = a.committableOffsets().get(P0); // offset 20, e = 20 min
    // Retention deletes offsets below 30 (the log starts at 30); B starts from the commit.
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = builder(Duration.ZERO).consumer(cb).build();
    join(cb, b, Map.of(P0, commit), 30);
    cb.seek(P0, 30); // auto.offset.reset=earliest: the committed offset is below the log start
    List<WindowResult<String, Long>> rows = read(cb, b, all.subList(30, 60));
    assertThat(b.missingRecordsEvents()).isEqualTo(1);
    // Frontier 59, its window ends at 60: every row of this poll is incomplete; none of a written
    // window (< 20 min).
    assertThat(rows).isNotEmpty().noneMatch(WindowResult::isComplete);
    assertThat(rows).allMatch(r -> r.start() >= millis(30));
    // The rows after the bound are complete again.
    List<WindowResult<String, Long>> later =
        read(
            cb,
            b,
            List.of(record(P0, 60, 64, "k"), record(P0, 61, 66, "k"), record(P0, 62, 75, "k")));
    assertThat(later) // the bound: the end of 59's window, 60 min
        .extracting(WindowResult::start, WindowResult::isComplete)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(millis(55), false),
            org.assertj.core.groups.Tuple.tuple(millis(60), true),
            org.assertj.core.groups.Tuple.tuple(millis(65), true));
  }

  /**
   * Sessions: a deleted record can have bridged a session of the previous owner's that is not
   * written; without it, the re-read record's session ends below the checkpoint's {@code e} and
   * would be dropped as written, though nobody wrote it (found by {@code HandOverModelTest}). The
   * partition starts again without the checkpoint, and the record is in an incomplete row.
   */
  @Test
  void sessionsStartAgainWithoutTheCheckpointWhenRecordsBelowItWereDeleted() {
    MockConsumer<String, String> ca = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> a = sessions(ca);
    join(ca, a, Map.of(), 0);
    // a@10 then a@5: a's session [5, 15) is pending; b@14 puts the watermark at 14 min.
    read(ca, a, List.of(record(P0, 0, 10, "a"), record(P0, 1, 5, "a"), record(P0, 2, 14, "b")));
    OffsetAndMetadata commit = a.committableOffsets().get(P0); // offset 0, e = 14 min, n = 3
    assertThat(commit.offset()).isZero();

    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = sessions(cb);
    join(cb, b, Map.of(P0, commit), 1); // retention deleted offset 0
    cb.seek(P0, 1);
    List<WindowResult<String, Long>> rows =
        read(cb, b, List.of(record(P0, 1, 5, "a"), record(P0, 2, 14, "b")));
    assertThat(b.redeliveredRecords()).isZero();
    assertThat(b.stats().late()).isZero();
    assertThat(rows) // a@5 alone is a session [5, 10): closed at 14, in an incomplete row
        .extracting(WindowResult::key, WindowResult::value, WindowResult::isComplete)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 1L, false));
  }

  KafkaWindows<String, Long, Long> sessions(MockConsumer<String, String> consumer) {
    return KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(clock)
        .consumer(consumer)
        .build();
  }

  /** A gap of transaction markers (the log starts at or below the commit) is no missing record. */
  @Test
  void aFirstOffsetPastTheCommitWithTheLogStartBelowItIsNoMissingRecord() {
    long none = io.github.lowwater.WatermarkTracker.NO_WATERMARK;
    OffsetAndMetadata commit = // a checkpoint that claims nothing, at offset 10
        new OffsetAndMetadata(
            10, new Checkpoint(none, none, none, 10).at(10, Checkpoint.COMPLETE).encode());
    MockConsumer<String, String> cc = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> c = builder(Duration.ZERO).consumer(cc).build();
    join(cc, c, Map.of(P0, commit), 0);
    List<WindowResult<String, Long>> rows = read(cc, c, minutes(12, 3, 10)); // 10, 11: markers
    assertThat(c.missingRecordsEvents()).isZero();
    assertThat(rows).isNotEmpty().allMatch(WindowResult::isComplete);
  }

  /** Without a commit, a history from offset 0 is complete, and one from later is not. */
  @Test
  void withoutACommitOnlyAHistoryFromOffsetZeroIsComplete() {
    MockConsumer<String, String> c0 = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> fromZero = builder(Duration.ZERO).consumer(c0).build();
    join(c0, fromZero, Map.of(), 0);
    assertThat(read(c0, fromZero, minutes(0, 0, 12)))
        .isNotEmpty()
        .allMatch(WindowResult::isComplete);
    assertThat(fromZero.missingRecordsEvents()).isZero();

    MockConsumer<String, String> c5 = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> later = builder(Duration.ZERO).consumer(c5).build();
    join(c5, later, Map.of(), 5);
    assertThat(read(c5, later, minutes(5, 5, 12))).isNotEmpty().noneMatch(WindowResult::isComplete);
    assertThat(later.missingRecordsEvents()).isEqualTo(1);
  }

  /**
   * FAIL: onPoll throws before it processes any record of the partition, names the partition, the
   * committed offset and the log start, leaves the state as it was, and throws again at the next
   * poll that delivers the records.
   */
  @Test
  void failThrowsBeforeAnyRecordAndAgainAtEveryPollUntilAnOperatorDecides() {
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b =
        builder(Duration.ZERO).missingRecordsPolicy(MissingRecordsPolicy.FAIL).consumer(cb).build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(20)), 30);
    cb.seek(P0, 30); // auto.offset.reset=earliest: the committed offset is below the log start
    for (int attempt = 0; attempt < 2; attempt++) {
      minutes(30, 30, 10).forEach(cb::addRecord); // the mock hands a record once; a broker again
      assertThatThrownBy(
              () -> b.onPoll(cb.poll(Duration.ofMillis(10)), ConsumerRecord::key, r -> 1L))
          .isInstanceOfSatisfying(
              MissingRecordsException.class,
              e -> {
                assertThat(e.partition()).isEqualTo(P0);
                assertThat(e.committedOffset()).isEqualTo(20);
                assertThat(e.logStartOffset()).isEqualTo(30);
                assertThat(e.firstOffset()).isEqualTo(30);
                assertThat(e.getMessage())
                    .contains("arrivals-0", "committed offset 20", "log start 30", "FAIL");
              });
      assertThat(cb.position(P0)).isEqualTo(30); // sought back: the next poll delivers them
      assertThat(b.stats().accepted()).isZero();
      assertThat(b.committableOffsets().get(P0)) // the commit as it was: no checkpoint
          .extracting(OffsetAndMetadata::offset, OffsetAndMetadata::metadata)
          .containsExactly(20L, "");
    }
    assertThat(b.missingRecordsEvents()).isEqualTo(1); // logged and counted once
  }

  /**
   * A checkpoint carried to another offset (MirrorMaker 2 translates the offset and copies the
   * metadata): its offsets are another log's, so it is not used; its records are not skipped as
   * redelivered, and the rows are marked.
   */
  @Test
  void aCheckpointFoundAtAnotherOffsetThanItsOwnIsNotUsedAndItsRowsAreMarked() {
    List<ConsumerRecord<String, String>> all = minutes(0, 0, 40);
    MockConsumer<String, String> cA = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> a = builder(Duration.ZERO).consumer(cA).build();
    join(cA, a, Map.of(), 0);
    read(cA, a, all.subList(0, 22));
    OffsetAndMetadata own = a.committableOffsets().get(P0); // 20, with n = 22, e = 20 min
    assertThat(Checkpoint.parse(own.metadata()).committedOffset()).isEqualTo(20);
    // The mirror's log: offsets shifted down by 5; its translated commit points at 15.
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = builder(Duration.ZERO).consumer(cb).build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(15, own.metadata())), 0);
    List<ConsumerRecord<String, String>> mirrored = new ArrayList<>();
    for (ConsumerRecord<String, String> r : all.subList(20, 40)) {
      mirrored.add(record(P0, r.offset() - 5, (r.timestamp() - T0.toEpochMilli()) / 60_000d, "k"));
    }
    List<WindowResult<String, Long>> rows = read(cb, b, mirrored);
    assertThat(b.redeliveredRecords()).isZero(); // with the checkpoint, offsets 15-21 would be
    assertThat(b.missingRecordsEvents()).isEqualTo(1);
    assertThat(rows).isNotEmpty().noneMatch(WindowResult::isComplete);
    assertThat(Checkpoint.parse(b.committableOffsets().get(P0).metadata()).committedOffset())
        .isEqualTo(b.committableOffsets().get(P0).offset()); // its own from now on
  }

  /**
   * The first record below the committed offset: the commit lies beyond this log's end (a topic
   * re-created under the same name), so the checkpoint is dropped and the partition starts anew.
   */
  @Test
  void aFirstRecordBelowTheCommittedOffsetStartsThePartitionAgainWithoutItsCheckpoint() {
    MockConsumer<String, String> cA = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> a = builder(Duration.ZERO).consumer(cA).build();
    join(cA, a, Map.of(), 0);
    read(cA, a, minutes(0, 0, 22));
    OffsetAndMetadata commit = a.committableOffsets().get(P0); // 20; e = 20 min, n = 22
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = builder(Duration.ZERO).consumer(cb).build();
    join(cb, b, Map.of(P0, commit), 0);
    cb.seek(P0, 0); // what auto.offset.reset=earliest does with a commit beyond the log end
    List<WindowResult<String, Long>> rows = read(cb, b, minutes(0, 0, 22)); // the new log
    assertThat(b.redeliveredRecords()).isZero(); // the old checkpoint would skip offsets < 22
    assertThat(rows).hasSize(4).noneMatch(WindowResult::isComplete);
    assertThat(rows).extracting(WindowResult::value).containsOnly(5L);
    assertThat(b.missingRecordsEvents()).isEqualTo(1);
  }

  /**
   * The bound travels in the checkpoint ({@code i}): the next owner, from a usable checkpoint,
   * marks the same rows; a drain's visitor asks {@link KafkaWindows#isComplete} and gets what the
   * list says.
   */
  @Test
  void theNextOwnerMarksTheSameRowsFromTheCheckpointAndTheVisitorCanAsk() {
    MockConsumer<String, String> cb = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> b = builder(Duration.ZERO).consumer(cb).build();
    join(cb, b, Map.of(P0, new OffsetAndMetadata(20)), 0);
    read(cb, b, minutes(20, 20, 2)); // frontier 21 min: bound 25 min, the end of its window
    OffsetAndMetadata commit = b.committableOffsets().get(P0);
    assertThat(Checkpoint.parse(commit.metadata()).incompleteBeforeMillis()).isEqualTo(millis(25));

    MockConsumer<String, String> cc = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> c = builder(Duration.ZERO).consumer(cc).build();
    join(cc, c, Map.of(P0, commit), 0);
    minutes(20, 20, 20).forEach(cc::addRecord);
    c.onPoll(cc.poll(Duration.ofMillis(10)), ConsumerRecord::key, r -> 1L);
    assertThat(c.missingRecordsEvents()).isZero(); // nothing new is missing
    List<Object[]> visited = new ArrayList<>();
    c.drainFinalized(
        new PartitionResultVisitor<String, Long>() {
          @Override
          public void visit(TopicPartition p, long start, long end, String key, Long result) {
            visited.add(new Object[] {start, c.isComplete(p, start)});
          }

          @Override
          public void visitLongPane(
              TopicPartition p,
              long start,
              long end,
              String key,
              long result,
              Timing timing,
              int index,
              boolean isFinal) {
            visited.add(new Object[] {start, c.isComplete(p, start)});
          }
        });
    assertThat(visited)
        .extracting(v -> (Long) v[0], v -> (Boolean) v[1])
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(millis(20), false),
            org.assertj.core.groups.Tuple.tuple(millis(25), true),
            org.assertj.core.groups.Tuple.tuple(millis(30), true));
    assertThat(c.incompleteRows()).isEqualTo(1);
  }

  /** MERGED: a row over every partition is incomplete before the bound of any of them. */
  @Test
  void aMergedRowIsIncompleteBeforeAnyPartitionsBound() {
    MockConsumer<String, String> cm = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> m =
        builder(Duration.ZERO).resultScope(ResultScope.MERGED).consumer(cm).build();
    join(cm, m, Map.of(P0, new OffsetAndMetadata(7)), 0);
    List<WindowResult<String, Long>> rows = read(cm, m, minutes(7, 7, 20)); // frontier 26: bound 30
    assertThat(rows).isNotEmpty().allMatch(r -> r.source() == null);
    assertThat(rows).noneMatch(WindowResult::isComplete);
    assertThat(m.isComplete(null, millis(30))).isTrue();
    assertThat(m.isComplete(null, millis(30) - 1)).isFalse();
    assertThat(Set.copyOf(m.committableOffsets().keySet())).containsExactly(P0);
  }
}
