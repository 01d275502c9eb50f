package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.FutureEventPolicy;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The wall-clock rules in a group (issue 32, defects 1, 2 and 4): a quiet-period advance and the
 * future-timestamp guard decide from the wall clock, which the next owner of a partition reads
 * later. Its checkpoint carries the decisions taken between the committed offset and its read
 * position ({@link WallClockHistory}), and the next owner replays them at the same records. Each
 * owner here crashes after its last commit shown; the sink upserts on (start, partition, key), and
 * every record's value is its offset, so a row says which records it holds.
 */
class KafkaWindowsWallClockTest {

  static final long MINUTE = 60_000;

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();
  final Map<List<Object>, Set<Long>> rows = new LinkedHashMap<>();
  final List<String> late = new ArrayList<>();
  final List<String> redelivered = new ArrayList<>();

  static long at(double minutes) {
    return T0.toEpochMilli() + Math.round(minutes * MINUTE);
  }

  static ConsumerRecord<String, String> record(long offset, long timestampMillis, String key) {
    return new ConsumerRecord<>(
        P0.topic(),
        P0.partition(),
        offset,
        timestampMillis,
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        Long.toString(offset),
        new RecordHeaders(),
        Optional.empty());
  }

  /** An owner of P0 that reads the group's commit on assignment. */
  KafkaWindows<String, Long, Set<Long>> owner(KafkaWindows.Builder<Long, Set<Long>> builder) {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    if (group.containsKey(P0)) {
      consumer.commitSync(Map.of(P0, group.get(P0)));
    }
    KafkaWindows<String, Long, Set<Long>> w =
        builder
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(consumer)
            .lateRecordHandler(
                (r, reason, t, end, wm) ->
                    (reason == LateRecordHandler.Reason.LATE ? late : redelivered)
                        .add("" + r.offset()))
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  void poll(KafkaWindows<String, Long, Set<Long>> w, List<ConsumerRecord<String, String>> rs) {
    w.onPoll(KafkaWindowsTest.recordsOf(rs), ConsumerRecord::key, r -> Long.parseLong(r.value()));
  }

  /** The records of {@code log} from the group's committed offset on. */
  List<ConsumerRecord<String, String>> fromCommitted(List<ConsumerRecord<String, String>> log) {
    long from = group.containsKey(P0) ? group.get(P0).offset() : 0;
    return log.stream().filter(r -> r.offset() >= from).toList();
  }

  void write(KafkaWindows<String, Long, Set<Long>> w) {
    for (WindowResult<String, Set<Long>> r : w.pollFinalized()) {
      rows.put(Arrays.asList(r.start(), r.key()), r.value());
    }
  }

  void commit(KafkaWindows<String, Long, Set<Long>> w) {
    group.putAll(w.committableOffsets());
  }

  Set<Long> inRows() {
    Set<Long> all = new TreeSet<>();
    rows.values().forEach(all::addAll);
    return all;
  }

  KafkaWindows.Builder<Long, Set<Long>> sessions(Duration gap) {
    return KafkaWindows.sessions(gap, new HandOverModelTest.Ids());
  }

  KafkaWindows.Builder<Long, Set<Long>> tumbling() {
    return KafkaWindows.builder(Duration.ofMinutes(5), new HandOverModelTest.Ids());
  }

  /**
   * Defect 1, as the review reproduced it: A's quiet-period advance closed k's session [3m, 22m)
   * after k2's record; the ledger held the commit at offset 1 (a grain shared with k2's pending
   * session), inside the written session. B re-read from offset 1 without the advance, k@17m joined
   * the rebuilt session past {@code e}, and B's row [3m, 27m) = {1, 2, 4} replaced A's {0, 1, 2}:
   * offset 0 in no row and never late. Now B replays the advance after offset 3, as A made it.
   */
  @Test
  void aSessionClosedByAQuietAdvanceIsNotRebuiltPastItByTheNextOwner() {
    clock.jumpWall(Duration.ofMinutes(-6)); // 24m
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(0, at(8), "k"),
            record(1, at(12), "k"),
            record(2, at(3), "k"),
            record(3, at(16), "k2"),
            record(4, at(17), "k"));
    KafkaWindows<String, Long, Set<Long>> a = owner(sessions(Duration.ofMinutes(10)));
    poll(a, log.subList(0, 4));
    clock.advance(Duration.ofSeconds(91)); // quiet: the watermark follows the wall clock, 25.5m
    poll(a, List.of());
    assertThat(a.quietAdvances()).isOne();
    write(a);
    assertThat(rows).containsEntry(Arrays.asList(at(3), "k"), Set.of(0L, 1L, 2L));
    commit(a); // and crashes
    assertThat(group.get(P0).offset()).isEqualTo(1);
    assertThat(KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).history())
        .isEqualTo("q4:" + (at(24) + 91_000));

    clock.advance(Duration.ofMinutes(15));
    KafkaWindows<String, Long, Set<Long>> b = owner(sessions(Duration.ofMinutes(10)));
    poll(b, fromCommitted(log));
    b.finishAll();
    write(b);
    assertThat(rows)
        .containsEntry(Arrays.asList(at(3), "k"), Set.of(0L, 1L, 2L))
        .containsEntry(Arrays.asList(at(16), "k2"), Set.of(3L))
        .containsEntry(Arrays.asList(at(17), "k"), Set.of(4L))
        .hasSize(3);
    assertThat(late).isEmpty();
  }

  /**
   * Issue 45, item 1: a rolling deploy turns the guard on while the committed checkpoint carries a
   * quiet-period raise. B found no guard reading in the restored history, recorded its own at the
   * first record it re-read (offset 1) and appended it after A's raise: it committed {@code
   * h=q4:…,c1:…}, which the parser refused ("not in offset order"). C then started without a
   * checkpoint and replaced A's complete session row with a partial one marked incomplete. Now B's
   * checkpoint has its entries in offset order, and C goes on from it: the rows of one reading.
   */
  @Test
  void turningTheGuardOnOverARestoredRaiseCommitsACheckpointTheNextOwnerReads() {
    clock.jumpWall(Duration.ofMinutes(-6)); // 24m
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(0, at(8), "k"),
            record(1, at(12), "k"),
            record(2, at(3), "k"),
            record(3, at(16), "k2"),
            record(4, at(17), "k"),
            record(5, at(18), "k2"));
    KafkaWindows<String, Long, Set<Long>> a = owner(sessions(Duration.ofMinutes(10)));
    poll(a, log.subList(0, 4));
    clock.advance(Duration.ofSeconds(91)); // quiet: a raise before offset 4
    poll(a, List.of());
    write(a);
    commit(a); // at offset 1, h=q4:..., and crashes
    assertThat(KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).history()).startsWith("q4:");

    clock.advance(Duration.ofMinutes(15));
    KafkaWindows<String, Long, Set<Long>> b =
        owner(sessions(Duration.ofMinutes(10)).maxFutureSkew(Duration.ofMinutes(1)));
    poll(b, fromCommitted(log).subList(0, 4)); // offsets 1 to 4: through A's read position
    write(b);
    commit(b); // and crashes
    String h = KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).history();
    assertThat(h).as("B's reading at offset 1 before A's raise at 4").matches("c1:\\d+,q4:\\d+");

    clock.advance(Duration.ofMinutes(15));
    List<WindowResult<String, Set<Long>>> incomplete = new ArrayList<>();
    KafkaWindows<String, Long, Set<Long>> c =
        owner(sessions(Duration.ofMinutes(10)).maxFutureSkew(Duration.ofMinutes(1)));
    poll(c, fromCommitted(log));
    c.finishAll();
    for (WindowResult<String, Set<Long>> r : c.pollFinalized()) {
      rows.put(Arrays.asList(r.start(), r.key()), r.value());
      if (!r.isComplete()) {
        incomplete.add(r);
      }
    }
    assertThat(incomplete).isEmpty();
    assertThat(rows)
        .containsEntry(Arrays.asList(at(3), "k"), Set.of(0L, 1L, 2L))
        .containsEntry(Arrays.asList(at(16), "k2"), Set.of(3L, 5L))
        .containsEntry(Arrays.asList(at(17), "k"), Set.of(4L))
        .hasSize(3);
    assertThat(late).isEmpty();
  }

  /**
   * Defect 2, sessions: A at wall clock T judged b@T+5m beyond the guard of one minute; B, reading
   * it again ten minutes later, found it within the guard, moved its frontier, closed a's session
   * early and reported a@T-9.5m as redelivered: in no row. Now B judges every record below A's read
   * position against A's reading.
   */
  @Test
  void aRecordBeyondTheGuardForThePreviousOwnerIsBeyondItForTheNextOneToo() {
    long t = clock.wallMillis();
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(0, t - 10 * MINUTE, "a"),
            record(1, t + 5 * MINUTE, "b"),
            record(2, t - 9 * MINUTE - MINUTE / 2, "a"));
    KafkaWindows<String, Long, Set<Long>> a =
        owner(sessions(Duration.ofMinutes(1)).maxFutureSkew(Duration.ofMinutes(1)));
    poll(a, log);
    assertThat(late).containsExactly("1");
    commit(a); // offset 0 (a's session is open), n = 3; and crashes
    assertThat(group.get(P0).offset()).isZero();

    clock.advance(Duration.ofMinutes(10));
    KafkaWindows<String, Long, Set<Long>> b =
        owner(sessions(Duration.ofMinutes(1)).maxFutureSkew(Duration.ofMinutes(1)));
    poll(b, fromCommitted(log));
    b.finishAll();
    write(b);
    assertThat(rows)
        .containsExactly(Map.entry(Arrays.asList(t - 10 * MINUTE, "a"), Set.of(0L, 2L)));
    // A re-read session record the windows find late is REDELIVERED (rule 48): A handed it over.
    assertThat(late).containsExactly("1");
    assertThat(redelivered).containsExactly("1");
  }

  /**
   * Defect 2, tumbling windows: A handed the record at T+5m to the late path and committed at
   * offset 0 (an earlier window open); B at T+12m put the same record into [T+5m, T+10m) and wrote
   * it: late and in a row.
   */
  @Test
  void aRecordThePreviousOwnerHandedToTheLatePathAsFutureIsNotInARow() {
    long t = clock.wallMillis();
    List<ConsumerRecord<String, String>> log =
        List.of(record(0, t - 3 * MINUTE, "k"), record(1, t + 5 * MINUTE, "k"));
    KafkaWindows<String, Long, Set<Long>> a =
        owner(tumbling().maxFutureSkew(Duration.ofMinutes(1)));
    poll(a, log);
    commit(a);
    assertThat(group.get(P0).offset()).isZero();

    clock.advance(Duration.ofMinutes(12));
    KafkaWindows<String, Long, Set<Long>> b =
        owner(tumbling().maxFutureSkew(Duration.ofMinutes(1)));
    poll(b, fromCommitted(log));
    b.finishAll();
    write(b);
    assertThat(inRows()).containsExactly(0L);
    assertThat(late).containsExactly("1", "1");
  }

  /**
   * Defect 4: with the guard and the old default policy (ACCEPT) a record stamped a year ahead sat
   * in its window, and the ledger held the commit at it until the wall clock reached it: after an
   * hour of written windows the commit was still at offset 1. It goes to the late path now, and
   * holds nothing.
   */
  @Test
  void aRecordAYearAheadNeitherEntersAWindowNorHoldsTheCommit() {
    long t = clock.wallMillis();
    KafkaWindows<String, Long, Set<Long>> a =
        owner(tumbling().maxFutureSkew(Duration.ofMinutes(1)));
    List<ConsumerRecord<String, String>> log = new ArrayList<>();
    log.add(record(0, t - 3 * MINUTE, "k"));
    log.add(record(1, t + 365L * 24 * 60 * MINUTE, "k"));
    for (int i = 0; i < 12; i++) { // an hour of in-order records, as the wall clock goes on
      clock.advance(Duration.ofMinutes(5));
      log.add(record(2 + i, t + i * 5 * MINUTE, "k"));
    }
    poll(a, log);
    write(a);
    assertThat(late).containsExactly("1");
    assertThat(inRows()).doesNotContain(1L).contains(0L, 2L, 12L);
    commit(a);
    assertThat(group.get(P0).offset()).isEqualTo(13); // the open window's first record
  }

  @Test
  void theAcceptPolicyIsRefusedByNameForItWouldHoldTheCommit() {
    assertThatThrownBy(() -> tumbling().futureEventPolicy(FutureEventPolicy.ACCEPT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("futureEventPolicy must be LATE for KafkaWindows")
        .hasMessageEndingWith(": ACCEPT");
    KafkaWindows.Builder<Long, Set<Long>> b = tumbling().futureEventPolicy(FutureEventPolicy.LATE);
    assertThatThrownBy(() -> b.futureEventPolicy(FutureEventPolicy.LATE))
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * More wall-clock decisions since the committed offset than a checkpoint carries: the commit
   * stays at the last checkpoint that carried them all, and moves on once the window that holds it
   * back is returned. A day-long window stays open through seventeen quiet periods, each followed
   * by a record.
   */
  @Test
  void beyondTheHistoryACheckpointCarriesTheCommitStaysAtTheLastThatFitted() {
    KafkaWindows<String, Long, Set<Long>> a =
        owner(KafkaWindows.builder(Duration.ofDays(1), new HandOverModelTest.Ids()));
    long day = Math.floorDiv(clock.wallMillis(), 24 * 60 * MINUTE) * 24 * 60 * MINUTE;
    clock.jumpWall(Duration.ofMillis(day + 60 * MINUTE - clock.wallMillis()));
    List<String> histories = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i <= WallClockHistory.MAX_ENTRIES; i++) {
      poll(a, List.of(record(i, clock.wallMillis() - MINUTE, "k")));
      clock.advance(Duration.ofSeconds(91));
      poll(a, List.of()); // a quiet-period raise after record i
      commit(a);
      offsets.add(group.get(P0).offset());
      histories.add(KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).history());
    }
    assertThat(a.quietAdvances()).isEqualTo(WallClockHistory.MAX_ENTRIES + 1);
    assertThat(offsets).containsOnly(0L);
    assertThat(histories.get(WallClockHistory.MAX_ENTRIES - 1).split(","))
        .hasSize(WallClockHistory.MAX_ENTRIES);
    assertThat(histories.get(WallClockHistory.MAX_ENTRIES))
        .as("the last that fitted")
        .isEqualTo(histories.get(WallClockHistory.MAX_ENTRIES - 1));

    clock.jumpWall(Duration.ofMillis(day + 25 * 60 * MINUTE - clock.wallMillis())); // day over
    poll(a, List.of(record(WallClockHistory.MAX_ENTRIES + 1, clock.wallMillis(), "k")));
    write(a);
    commit(a);
    assertThat(group.get(P0).offset()).isEqualTo(WallClockHistory.MAX_ENTRIES + 1);
    assertThat(KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).history()).isEmpty();
  }
}
