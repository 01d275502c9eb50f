package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * Session windows behind {@link KafkaWindows}: the options, and the committed offset, which never
 * passes the oldest record of a session not yet returned. The randomized model over thousands of
 * owner changes is {@code HandOverModelTest}; the group on the broker is {@code
 * KafkaWindowsGroupTest}.
 */
class KafkaWindowsSessionsTest {

  final KafkaWindowsOwnerChangesTest f = new KafkaWindowsOwnerChangesTest();

  KafkaWindows.Builder<Long, Long> gapOfAMinute() {
    return KafkaWindows.sessions(Duration.ofMinutes(1), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(f.clock)
        .lateRecordHandler(
            (r, reason, t, end, watermark) ->
                (reason == LateRecordHandler.Reason.LATE ? f.late : f.redelivered)
                    .add(r.partition() + "@" + r.offset()));
  }

  @Test
  void theCommitHoldsAtTheOldestRecordOfASessionNotYetReturned() {
    ConsumerRecord<String, String> r0 = record(P0, 0, 0, "a");
    ConsumerRecord<String, String> r1 = record(P0, 1, 0.5, "b");
    ConsumerRecord<String, String> r2 = record(P0, 2, 0.8, "a"); // a: [0, 1.8)
    ConsumerRecord<String, String> r3 = record(P0, 3, 1.6, "c"); // watermark 1.6: b [0.5, 1.5)
    ConsumerRecord<String, String> r4 = record(P0, 4, 3, "c"); // watermark 3: a, c [1.6, 2.6)
    KafkaWindows<String, Long, Long> a = f.owner(gapOfAMinute(), P0);
    KafkaWindowsTest.feed(a, r0, r1, r2, r3);
    f.write(a);
    assertThat(f.rows).containsOnlyKeys(Arrays.asList(millis(0.5), P0, "b"));
    f.commit(a);
    assertThat(f.group.get(P0).offset()).as("a's session, from r0 on, is open").isZero();

    KafkaWindowsTest.feed(a, r4);
    f.commit(a);
    assertThat(f.group.get(P0).offset()).as("a and c are finalized, not returned").isZero();
    f.write(a);
    f.commit(a);
    assertThat(f.group.get(P0).offset()).as("only r4's session is pending").isEqualTo(4);

    // The next owner reads from r4 and writes only its session.
    KafkaWindows<String, Long, Long> b = f.owner(gapOfAMinute(), P0);
    b.onPoll(f.fromCommitted(r0, r1, r2, r3, r4), ConsumerRecord::key, r -> 1L);
    b.finishAll();
    f.write(b);
    assertThat(f.rows)
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                Arrays.asList(millis(0), P0, "a"), 2L,
                Arrays.asList(millis(0.5), P0, "b"), 1L,
                Arrays.asList(millis(1.6), P0, "c"), 1L,
                Arrays.asList(millis(3), P0, "c"), 1L));
    assertThat(f.late).isEmpty();
    assertThat(f.redelivered).isEmpty();
  }

  @Test
  void aSessionAtTheFirstMillisecondOfTimeHoldsTheCommitUntilItIsReturned() {
    ConsumerRecord<String, String> r0 = atMillis(0, Long.MIN_VALUE + 1, "a");
    ConsumerRecord<String, String> r1 = atMillis(1, Long.MIN_VALUE + 2, "b");
    KafkaWindows<String, Long, Long> a = f.owner(gapOfAMinute(), P0);
    KafkaWindowsTest.feed(a, r0, r1);
    f.write(a);
    f.commit(a);
    assertThat(f.group.get(P0).offset()).isZero();
    a.finishAll();
    f.write(a);
    f.commit(a);
    assertThat(f.group.get(P0).offset()).isEqualTo(2);
    assertThat(f.rows).hasSize(2);
  }

  static ConsumerRecord<String, String> atMillis(long offset, long timestamp, String key) {
    ConsumerRecord<String, String> r = record(P0, offset, 0, key);
    return new ConsumerRecord<>(
        r.topic(),
        r.partition(),
        offset,
        timestamp,
        r.timestampType(),
        0,
        0,
        key,
        "v",
        r.headers(),
        java.util.Optional.empty());
  }

  /** A key never silent for a gap: one session without a span, one per cell with it. */
  @Test
  void aMaximumSpanLetsTheCommitMoveOnForAKeyThatIsNeverSilent() {
    List<ConsumerRecord<String, String>> log = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      log.add(record(P0, i, i * 0.5, "a")); // every 30 s for 20 minutes
    }
    KafkaWindows<String, Long, Long> uncut = f.owner(gapOfAMinute(), P0);
    KafkaWindowsTest.feed(uncut, log);
    assertThat(uncut.pollFinalized()).isEmpty();
    assertThat(uncut.committableOffsets().get(P0).offset()).isZero();

    KafkaWindows<String, Long, Long> cut =
        f.owner(gapOfAMinute().maxSessionSpan(Duration.ofMinutes(5)), P0);
    KafkaWindowsTest.feed(cut, log);
    assertThat(cut.pollFinalized())
        .extracting(r -> List.of(r.start(), r.end(), r.value()))
        .containsExactly(
            List.of(millis(0), millis(5.5), 10L), // the cell [0, 5): 0 to 4.5
            List.of(millis(5), millis(10.5), 10L),
            List.of(millis(10), millis(15.5), 10L));
    assertThat(cut.committableOffsets().get(P0).offset())
        .as("the first record of the open cell [15, 20)")
        .isEqualTo(30);
  }

  /**
   * {@code MERGED}: a key's session spans the instance's partitions, the commit of each partition
   * holds at its own oldest record of a session not yet returned, and a restart from those commits
   * with the documented seed writes no session twice and loses no record.
   */
  @Test
  void mergedSessionsSpanThePartitionsAndTheCommitHoldsForEach() {
    ConsumerRecord<String, String> p0a = record(P0, 0, 0, "a");
    ConsumerRecord<String, String> p1a = record(P1, 0, 0.5, "a"); // a: [0, 1.5) over both
    ConsumerRecord<String, String> p1b = record(P1, 1, 1.2, "b"); // b: [1.2, 2.2)
    ConsumerRecord<String, String> p0c = record(P0, 1, 2, "c");
    ConsumerRecord<String, String> p1c = record(P1, 2, 2.2, "c"); // watermark 2: a written
    KafkaWindows<String, Long, Long> a =
        f.owner(gapOfAMinute().resultScope(ResultScope.MERGED), P0, P1);
    KafkaWindowsTest.feed(a, p0a, p1a, p1b, p0c, p1c);
    f.write(a);
    assertThat(f.rows)
        .as("one row per (session, key), no partition")
        .containsExactly(Map.entry(Arrays.asList(millis(0), null, "a"), 2L));
    f.commit(a);
    assertThat(f.group.get(P0).offset()).as("P0: c's session, from p0c on, is open").isEqualTo(1);
    assertThat(f.group.get(P1).offset()).as("P1: b's session, from p1b on, is open").isEqualTo(1);

    // A crash; the restart reads from the commits, seeded with the newest written end (1.5).
    KafkaWindows<String, Long, Long> b =
        f.owner(gapOfAMinute().resultScope(ResultScope.MERGED), P0, P1);
    b.seedWatermark(millis(1.5));
    KafkaWindowsTest.feed(b, p0c, p1b, p1c, record(P0, 2, 5, "d"), record(P1, 3, 5, "d"));
    f.write(b);
    assertThat(f.rows)
        .containsOnly(
            Map.entry(Arrays.asList(millis(0), null, "a"), 2L),
            Map.entry(Arrays.asList(millis(1.2), null, "b"), 1L),
            Map.entry(Arrays.asList(millis(2), null, "c"), 2L));
    assertThat(f.late).isEmpty();
    assertThat(b.oldestSessionStart(P0)).isEqualTo(millis(5));
    f.commit(b);
    assertThat(f.group.get(P0).offset()).isEqualTo(2);
    assertThat(f.group.get(P1).offset()).as("d's session, from P1's record on").isEqualTo(3);
  }

  /**
   * {@code MERGED}, a restart after a crash between a write and the next commit: re-read in another
   * interleaving, a record of a written session could join a later session that opened next to it
   * and start a second row. Below the seed it is late instead: in its row once, and on the late
   * path.
   */
  @Test
  void mergedARestartNeverPutsARecordOfAWrittenSessionInASecondRow() {
    ConsumerRecord<String, String> x0 = record(P0, 0, -0.5, "a");
    ConsumerRecord<String, String> x = record(P0, 1, 0, "a"); // a: [-0.5, 1)
    ConsumerRecord<String, String> w = record(P0, 2, 2, "c");
    ConsumerRecord<String, String> z = record(P1, 0, 1, "b"); // watermark 1: a written
    ConsumerRecord<String, String> y = record(P1, 1, 0.5, "a"); // a: [0.5, 1.5), next to it
    KafkaWindows<String, Long, Long> first =
        f.owner(gapOfAMinute().resultScope(ResultScope.MERGED), P0, P1);
    KafkaWindowsTest.feed(first, x0, x, w, z, y);
    f.write(first);
    assertThat(f.rows).containsExactly(Map.entry(Arrays.asList(millis(-0.5), null, "a"), 2L));

    // It dies before committing. The restart reads everything again, y before x this time.
    KafkaWindows<String, Long, Long> second =
        f.owner(gapOfAMinute().resultScope(ResultScope.MERGED), P0, P1);
    assertThat(second.seedWatermark(millis(1))).isEqualTo(millis(1));
    KafkaWindowsTest.feed(second, x0);
    KafkaWindowsTest.feed(second, z, y);
    KafkaWindowsTest.feed(second, x, w, record(P0, 3, 9, "d"), record(P1, 2, 9, "d"));
    f.write(second);
    assertThat(f.rows)
        .as("a's records x0, x and y once each: 3")
        .containsOnly(
            Map.entry(Arrays.asList(millis(-0.5), null, "a"), 2L),
            Map.entry(Arrays.asList(millis(0.5), null, "a"), 1L),
            Map.entry(Arrays.asList(millis(1), null, "b"), 1L),
            Map.entry(Arrays.asList(millis(2), null, "c"), 1L));
    assertThat(f.late).as("x0 and x, late by the seed").containsExactly("0@0", "0@1");
    assertThat(f.redelivered).isEmpty();
  }

  /**
   * A late record of sessions reaches the late-record handler before the windows count it, as for
   * the other kinds: a handler that throws leaves the windows unchanged, and the consumer is
   * rewound to that record, which is handed over and counted once when read again. (The sessions'
   * verdict used to come from their late handler, after the count: the record was counted, and
   * never handed over again.)
   */
  @Test
  void aHandlerThatThrowsOnALateSessionRecordChangesNothingAndSeesItAgain() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    int[] calls = {0};
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.sessions(Duration.ofMinutes(1), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(f.clock)
            .consumer(consumer)
            .lateRecordHandler(
                (r, reason, t, end, watermark) -> {
                  if (++calls[0] == 1) {
                    throw new IllegalStateException("dead-letter table down");
                  }
                  f.late.add(reason + "@" + r.offset());
                })
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(w, record(P0, 0, 0, "a"), record(P0, 1, 5, "b")); // watermark 5
    ConsumerRecord<String, String> late = record(P0, 2, 1, "c"); // [1, 2): behind, joins none
    assertThatThrownBy(() -> KafkaWindowsTest.feed(w, late)).hasMessage("dead-letter table down");
    assertThat(w.stats().late()).as("not counted").isZero();
    assertThat(consumer.position(P0)).as("rewound to the late record").isEqualTo(2);
    KafkaWindowsTest.feed(w, late);
    assertThat(w.stats().late()).isOne();
    assertThat(f.late).containsExactly("LATE@2");
  }

  @Test
  void theOptionsOfSessionsAreCheckedWithMessagesThatNameThem() {
    KafkaWindows.Builder<Long, Long> b =
        KafkaWindows.sessions(Duration.ofMinutes(1), Aggregators.sumLong());
    assertThatThrownBy(() -> b.hopping(Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("hopping is for windows of a size: these are session windows of gap PT1M");
    assertThatThrownBy(() -> b.maxSessionSpan(Duration.ofSeconds(59)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxSessionSpan must be at least the gap (PT1M): PT59S");
    b.maxSessionSpan(Duration.ofMinutes(10));
    assertThatThrownBy(() -> b.maxSessionSpan(Duration.ofMinutes(10)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxSessionSpan was already set to PT10M");

    assertThatThrownBy(
            () ->
                KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                    .maxSessionSpan(Duration.ofMinutes(10)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("maxSessionSpan is for session windows");
    assertThatThrownBy(() -> KafkaWindows.sessions(Duration.ZERO, Aggregators.sumLong()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gap");
    Aggregator<Long, long[], Long> noMerge =
        Aggregators.of(
            () -> new long[1],
            (long[] acc, Long v) -> {
              acc[0] += v;
              return acc;
            },
            (long[] acc) -> acc[0]);
    assertThatThrownBy(
            () ->
                KafkaWindows.sessions(Duration.ofMinutes(1), noMerge)
                    .consumer(new MockConsumer<>("earliest"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("merge");
  }
}
