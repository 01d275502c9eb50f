package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, defects 1 to 6: a partition that changes owner more than once, each scenario as the
 * review reproduced it, and each test failed before its fix. The owners are instances that crash
 * (no close, no commit after the last one shown); the group's committed offsets are {@link #group}.
 * The randomized model over thousands of such traces is {@code HandOverModelTest}.
 */
class KafkaWindowsOwnerChangesTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));

  /** The group's committed offsets and checkpoints. */
  final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();

  /** (window start, partition or null, key) to value: an upsert sink. */
  final Map<List<Object>, Long> rows = new LinkedHashMap<>();

  /** "partition@offset" of each record a handler was given, by reason. */
  final List<String> late = new ArrayList<>();

  final List<String> redelivered = new ArrayList<>();

  KafkaWindows.Builder<Long, Long> builder(ResultScope scope, Duration lateness) {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(lateness)
        .resultScope(scope)
        .clock(clock)
        .lateRecordHandler(
            (r, reason, t, end, watermark) ->
                (reason == LateRecordHandler.Reason.LATE ? late : redelivered)
                    .add(r.partition() + "@" + r.offset()));
  }

  /** A new instance that is assigned {@code partitions} and reads the group's checkpoints. */
  KafkaWindows<String, Long, Long> owner(
      KafkaWindows.Builder<Long, Long> builder, TopicPartition... partitions) {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(partitions);
    Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
    for (TopicPartition tp : partitions) {
      if (group.containsKey(tp)) {
        mine.put(tp, group.get(tp));
      }
    }
    consumer.commitSync(mine);
    KafkaWindows<String, Long, Long> w = builder.consumer(consumer).build();
    w.rebalanceListener().onPartitionsAssigned(List.of(partitions));
    return w;
  }

  void write(KafkaWindows<String, Long, Long> w) {
    for (WindowResult<String, Long> r : w.pollFinalized()) {
      rows.put(Arrays.asList(r.start(), r.source(), r.key()), r.value());
    }
  }

  void commit(KafkaWindows<String, Long, Long> w) {
    group.putAll(w.committableOffsets());
  }

  /** The records of {@code log} from the group's committed offset of their partition on. */
  @SafeVarargs
  final ConsumerRecords<String, String> fromCommitted(ConsumerRecord<String, String>... log) {
    List<ConsumerRecord<String, String>> delivered = new ArrayList<>();
    for (ConsumerRecord<String, String> r : log) {
      OffsetAndMetadata om = group.get(new TopicPartition(r.topic(), r.partition()));
      if (om == null || r.offset() >= om.offset()) {
        delivered.add(r);
      }
    }
    return KafkaWindowsTest.recordsOf(delivered);
  }

  long rowSum() {
    return rows.values().stream().mapToLong(Long::longValue).sum();
  }

  static Checkpoint checkpoint(OffsetAndMetadata om) {
    return Checkpoint.parse(om.metadata());
  }

  /**
   * Defect 1, {@code MERGED}: B read less of P0 than A and wrote further, and committed its own
   * {@code e} with A's {@code n}: C skipped P0@1 as redelivered although no written row held it.
   * The sink summed to 3 of 4 records and nothing was late.
   */
  @Test
  void mergedARecordTheLatestOwnerNeverReadIsNotSkippedAsRedelivered() {
    ConsumerRecord<String, String> p0a = record(P0, 0, 6, "a");
    ConsumerRecord<String, String> p0b = record(P0, 1, 2, "a");
    ConsumerRecord<String, String> p1a = record(P1, 0, 1, "a");
    ConsumerRecord<String, String> p1b = record(P1, 1, 12, "a");
    KafkaWindows<String, Long, Long> a = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    KafkaWindowsTest.feed(a, p1a, p0a, p0b);
    commit(a); // and crashes before writing

    KafkaWindows<String, Long, Long> b = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    KafkaWindowsTest.feed(b, p1a, p1b, p0a); // P0@1 not fetched yet
    write(b);
    assertThat(rows).containsEntry(Arrays.asList(millis(0), null, "a"), 1L);
    commit(b); // and crashes

    KafkaWindows<String, Long, Long> c = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    c.seedWatermark(millis(5)); // the newest written window's end, as the docs say
    c.onPoll(fromCommitted(p0a, p0b, p1a, p1b), ConsumerRecord::key, r -> 1L);
    c.finishAll();
    write(c);
    assertThat(redelivered).doesNotContain("0@1");
    assertThat(late).contains("0@1");
    assertThat(rowSum() + late.size()).as("every record in a row or late: %s", rows).isEqualTo(4);
  }

  /**
   * Defect 1, {@code PER_PARTITION}: B got nothing for 91 s, its quiet-period advance closed {@code
   * [5, 10)} without offsets 3 and 4, and it committed its advanced {@code e} with A's {@code n}: C
   * skipped offsets 3 and 4 as redelivered, 3 of 5 records counted, none late.
   */
  @Test
  void perPartitionANewOwnerThatHasNotReReadWhatItsPredecessorReadNeitherAdvancesNorClaimsIt() {
    ConsumerRecord<String, String>[] log = log(P0, 0, 1, 2, 6, 7);
    KafkaWindows<String, Long, Long> a =
        owner(builder(ResultScope.PER_PARTITION, Duration.ZERO), P0);
    KafkaWindowsTest.feed(a, log);
    write(a);
    commit(a); // offset 3 ([5, 10) open), e = 7 min, n = 5; and crashes
    assertThat(group.get(P0).offset()).isEqualTo(3);

    KafkaWindows<String, Long, Long> b =
        owner(builder(ResultScope.PER_PARTITION, Duration.ZERO), P0);
    clock.advance(Duration.ofSeconds(91)); // B gets nothing from P0
    b.onPoll(ConsumerRecords.<String, String>empty(), ConsumerRecord::key, r -> 1L);
    write(b);
    assertThat(b.quietAdvances()).as("records B has not received yet exist").isZero();
    commit(b);
    assertThat(group.get(P0).offset()).isEqualTo(3);
    assertThat(checkpoint(group.get(P0)).writtenThroughMillis()).isEqualTo(millis(7));

    KafkaWindows<String, Long, Long> c =
        owner(builder(ResultScope.PER_PARTITION, Duration.ZERO), P0);
    c.onPoll(fromCommitted(log), ConsumerRecord::key, r -> 1L);
    c.finishAll();
    write(c);
    assertThat(redelivered).isEmpty();
    assertThat(rows)
        .containsEntry(Arrays.asList(millis(0), P0, "a"), 3L)
        .containsEntry(Arrays.asList(millis(5), P0, "a"), 2L);
  }

  /**
   * The rule behind both: until it has read through its predecessor's {@code n}, an owner commits
   * its predecessor's offset and checkpoint unchanged, even after it wrote windows of its own.
   */
  @Test
  void anOwnerBehindItsPredecessorsReadPositionRecommitsItsCheckpointUnchanged() {
    KafkaWindows<String, Long, Long> a = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    KafkaWindowsTest.feed(a, record(P0, 0, 6, "a"), record(P0, 1, 7, "a"), record(P1, 0, 1, "a"));
    commit(a);
    OffsetAndMetadata committedByA = group.get(P0);

    KafkaWindows<String, Long, Long> b = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    KafkaWindowsTest.feed(b, record(P0, 0, 6, "a"), record(P1, 0, 1, "a"), record(P1, 1, 11, "a"));
    write(b); // [0, 5) of P1, and P0@0's window [5, 10) is still open
    assertThat(b.committableOffsets().get(P0)).isEqualTo(committedByA);
    KafkaWindowsTest.feed(b, record(P0, 1, 7, "a"));
    assertThat(checkpoint(b.committableOffsets().get(P0)).readThroughOffset())
        .as("caught up: its own checkpoint")
        .isEqualTo(2);
  }

  /**
   * Defect 2, {@code MERGED}, a partition given back to the same instance: re-reading a record the
   * mapper skips moved the read position back (n 3 where 5 was due), and counted the record in
   * {@code skippedRecords()} a second time.
   */
  @Test
  void mergedAGivenBackPartitionsSkippedRecordKeepsTheReadPositionAndCountsOnce() {
    KafkaWindows<String, Long, Long> w =
        builder(ResultScope.MERGED, Duration.ofMinutes(10))
            .consumer(new MockConsumer<>("earliest"))
            .build();
    ConsumerRebalanceListener listener = w.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0));
    ConsumerRecord<String, String> noKey = record(P0, 2, 3, null);
    KafkaWindowsTest.feed(
        w,
        record(P0, 0, 1, "a"),
        record(P0, 1, 2, "a"),
        noKey,
        record(P0, 3, 4, "a"),
        record(P0, 4, 6, "a"));
    listener.onPartitionsRevoked(List.of(P0));
    listener.onPartitionsAssigned(List.of(P0)); // read again from the committed offset, none
    KafkaWindowsTest.feed(w, record(P0, 0, 1, "a"), record(P0, 1, 2, "a"), noKey);
    assertThat(checkpoint(w.committableOffsets().get(P0)).readThroughOffset()).isEqualTo(5);
    assertThat(w.skippedRecords()).isEqualTo(1);
  }

  /**
   * Defect 3, same situation: the late handler threw on the redelivered record at offset 3, and the
   * consumer was rewound to 10 (where the instance had read to), not 3: offsets 3 to 9 never
   * reached the handler again.
   */
  @Test
  void mergedAHandlerThatThrowsOnARedeliveredRecordRewindsToThatRecord() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    boolean[] failing = {false};
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(10))
            .resultScope(ResultScope.MERGED)
            .clock(clock)
            .consumer(consumer)
            .lateRecordHandler(
                (r, reason, t, end, watermark) -> {
                  if (failing[0] && r.offset() == 3) {
                    throw new IllegalStateException("dead-letter table down");
                  }
                })
            .build();
    ConsumerRebalanceListener listener = w.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(w, log(P0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2));
    listener.onPartitionsRevoked(List.of(P0));
    listener.onPartitionsAssigned(List.of(P0));
    failing[0] = true;
    assertThatThrownBy(() -> KafkaWindowsTest.feed(w, log(P0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2)))
        .hasMessage("dead-letter table down");
    assertThat(consumer.position(P0)).isEqualTo(3);
  }

  /**
   * Defect 4, {@code MERGED}: a partition assigned after {@code finishAll()} committed {@code e = w
   * = Long.MAX_VALUE}, claiming every window written and lifting {@code groupWatermark()}.
   */
  @Test
  void mergedAPartitionAssignedAfterFinishAllClaimsNoWindow() {
    KafkaWindows<String, Long, Long> w =
        builder(ResultScope.MERGED, Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    ConsumerRebalanceListener listener = w.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(w, record(P0, 0, 1, "a"));
    w.finishAll();
    listener.onPartitionsAssigned(List.of(P1));
    KafkaWindowsTest.feed(w, record(P1, 0, 2, "a"));
    Checkpoint p1 = checkpoint(w.committableOffsets().get(P1));
    assertThat(p1.writtenThroughMillis()).isEqualTo(WatermarkTracker.NO_WATERMARK);
    assertThat(p1.watermarkMillis()).isEqualTo(WatermarkTracker.NO_WATERMARK);
  }

  /**
   * Defect 5, {@code PER_PARTITION}: a partition that never delivers, or falls silent, was never
   * counted idle: {@code idlePartitionCount()} 0 and {@code activePartitionCount()} 2 after 10
   * minutes of silence on one of two partitions with a 2-minute idle timeout.
   */
  @Test
  void perPartitionAPartitionSilentForLongerThanTheIdleTimeoutCountsAsIdle() {
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .idleTimeout(Duration.ofMinutes(2))
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    for (int minute = 0; minute < 10; minute++) {
      KafkaWindowsTest.feed(w, record(P0, minute, minute, "a"));
      clock.advance(Duration.ofMinutes(1));
    }
    KafkaWindowsTest.feed(w, record(P0, 10, 10, "a"));
    assertThat(w.idlePartitionCount()).as("P1 never delivered").isEqualTo(1);
    assertThat(w.activePartitionCount()).isEqualTo(1);
    for (int minute = 11; minute < 14; minute++) {
      clock.advance(Duration.ofMinutes(1));
      KafkaWindowsTest.feed(w, record(P1, minute, minute, "a"));
    }
    assertThat(w.idlePartitionCount()).as("P0 fell silent").isEqualTo(1);
  }

  /**
   * Defect 6, {@code PER_PARTITION}: a record the previous owner declared late came back as
   * redelivered after a hand-over ({@code late} 0 and {@code redeliveredRecords()} 1, where 1 and 0
   * are due): docs/kafka.md says the same records are late again.
   */
  @Test
  void perPartitionARecordThePreviousOwnerDeclaredLateIsLateAgain() {
    ConsumerRecord<String, String>[] log = log(P0, 1, 6, 2, 7);
    KafkaWindows<String, Long, Long> a =
        owner(builder(ResultScope.PER_PARTITION, Duration.ZERO), P0);
    KafkaWindowsTest.feed(a, log);
    write(a);
    commit(a); // offset 1 ([5, 10) open), e = 7 min, n = 4
    assertThat(late).containsExactly("0@2");

    KafkaWindows<String, Long, Long> b =
        owner(builder(ResultScope.PER_PARTITION, Duration.ZERO), P0);
    b.onPoll(fromCommitted(log), ConsumerRecord::key, r -> 1L);
    assertThat(b.stats().late()).isEqualTo(1);
    assertThat(b.redeliveredRecords()).isZero();
    assertThat(late).containsExactly("0@2", "0@2");
  }

  /** Records of key "a" at offsets 0, 1, ... with these timestamps in minutes after T0. */
  @SuppressWarnings("unchecked")
  static ConsumerRecord<String, String>[] log(TopicPartition tp, double... minutes) {
    ConsumerRecord<String, String>[] log =
        (ConsumerRecord<String, String>[]) new ConsumerRecord<?, ?>[minutes.length];
    for (int i = 0; i < minutes.length; i++) {
      log[i] = record(tp, i, minutes[i], "a");
    }
    return log;
  }

  /**
   * Found by {@code HandOverModelTest}, and the issue's question "a seed clamped below the previous
   * owner's watermark, then a crash: can a row be rewritten without a record it held?": yes, in
   * {@code MERGED}. A restart seeds with the newest written window's end, clamped to {@code wall -
   * allowedLateness} when the data is ahead of the wall clock. A record of a written window from a
   * partition whose own checkpoint claims nothing then opened that window again, and the restart
   * wrote it with that record alone, over the row of the records the other partition's checkpoint
   * skipped as redelivered.
   */
  @Test
  void mergedAClampedSeedNeverLetsAnotherPartitionsRecordRewriteAWrittenWindow() {
    clock.jumpWall(Duration.ofMinutes(-40)); // the wall clock is 10 minutes behind the data
    ConsumerRecord<String, String>[] p0 = log(P0, 1, 2, 7, 8);
    KafkaWindows<String, Long, Long> a = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    KafkaWindowsTest.feed(a, p0[0], p0[1], p0[2]);
    clock.advance(Duration.ofMinutes(3));
    KafkaWindowsTest.feed(a, p0[3]); // P1 has delivered nothing: idle, the watermark is 8 min
    write(a);
    assertThat(rows).containsEntry(Arrays.asList(millis(0), null, "a"), 2L);
    commit(a); // P0 only: P1 never delivered
    assertThat(group).containsOnlyKeys(P0);

    KafkaWindows<String, Long, Long> b = owner(builder(ResultScope.MERGED, Duration.ZERO), P0, P1);
    assertThat(b.seedWatermark(millis(5))).as("clamped").isLessThan(millis(5));
    b.onPoll(fromCommitted(p0), ConsumerRecord::key, r -> 1L);
    KafkaWindowsTest.feed(b, record(P1, 0, 3, "a")); // a record of [0, 5) from P1
    b.finishAll();
    write(b);
    assertThat(rows).containsEntry(Arrays.asList(millis(0), null, "a"), 2L);
    assertThat(late).containsExactly("1@0");
  }

  /**
   * Issue 32, defect 7: retention deleted the records between the committed offset and the
   * predecessor's read position {@code n} before the new owner read them; the consumer's offset
   * reset put its position past them. The new owner stayed "behind its predecessor" for ever: it
   * never quiet-advanced, committed the predecessor's checkpoint unchanged for ever, and in {@code
   * MERGED} held back every partition. Once quiet, it reads the consumer's position and goes on.
   */
  @Test
  void aNewOwnerWhoseReReadRecordsRetentionDeletedGoesOnFromTheConsumersPosition() {
    for (ResultScope scope : ResultScope.values()) {
      group.clear();
      ConsumerRecord<String, String>[] log = log(P0, 0, 1, 2, 6, 7);
      KafkaWindows<String, Long, Long> a = owner(builder(scope, Duration.ZERO), P0);
      KafkaWindowsTest.feed(a, log);
      write(a);
      commit(a); // offset 3 ([5, 10) open), n = 5; and crashes
      assertThat(group.get(P0).offset()).isEqualTo(3);

      MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
      consumer.commitSync(Map.of(P0, group.get(P0)));
      KafkaWindows<String, Long, Long> b = builder(scope, Duration.ZERO).consumer(consumer).build();
      b.rebalanceListener().onPartitionsAssigned(List.of(P0));
      if (scope == ResultScope.MERGED) {
        b.seedWatermark(millis(7)); // the documented restart: the newest written window's end
      }
      consumer.updateBeginningOffsets(Map.of(P0, 5L));
      consumer.seek(P0, 5); // the offset reset: offsets 3 and 4 are gone
      clock.advance(Duration.ofSeconds(91));
      b.onPoll(ConsumerRecords.<String, String>empty(), ConsumerRecord::key, r -> 1L);
      b.onPoll(ConsumerRecords.<String, String>empty(), ConsumerRecord::key, r -> 1L);
      assertThat(b.quietAdvances()).as(scope + ": quiet again").isPositive();
      assertThat(b.missingRecordsEvents()).as(scope + ": rule 65").isEqualTo(1);
      write(b);
      commit(b);
      // Until its first record bounds the rows the deleted ones could belong to, it commits the
      // predecessor's offset and checkpoint: the next owner finds the same gap (rule 65).
      assertThat(group.get(P0).offset()).as(scope + ": the predecessor's").isEqualTo(3);
      KafkaWindowsTest.feed(b, record(P0, 5, 13, "a")); // its first record (late: quiet advance)
      write(b);
      commit(b);
      assertThat(group.get(P0).offset()).as(scope + ": its own commit").isEqualTo(6);
      assertThat(checkpoint(group.get(P0)).committedOffset()).isEqualTo(6);
      assertThat(checkpoint(group.get(P0)).readThroughOffset()).isEqualTo(6);
      assertThat(checkpoint(group.get(P0)).incompleteBeforeMillis())
          .isNotEqualTo(Checkpoint.COMPLETE); // the bound travels to the next owner
    }
  }
}
