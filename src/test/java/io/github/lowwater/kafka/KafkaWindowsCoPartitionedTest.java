package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.join.Reconciled;
import io.github.lowwater.join.Reconciliation;
import io.github.lowwater.join.Sided;
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
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultScope#CO_PARTITIONED} against a {@link MockConsumer}: a source topic reconciled
 * against a target topic, partition {@code i} of both one task (semantics rules 72 and 73). The
 * randomized hand-over model ({@code HandOverModelTest}) and the broker group test prove the same
 * across many owners; these tests pin each rule at its edge.
 */
class KafkaWindowsCoPartitionedTest {

  static final String SOURCE = "source";
  static final String TARGET = "target";
  static final TopicPartition S0 = new TopicPartition(SOURCE, 0);
  static final TopicPartition S1 = new TopicPartition(SOURCE, 1);
  static final TopicPartition T0P = new TopicPartition(TARGET, 0);
  static final TopicPartition T1 = new TopicPartition(TARGET, 1);
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final List<String> late = new ArrayList<>();
  final Map<List<Object>, Reconciled<Long, Long>> sink = new LinkedHashMap<>();

  KafkaWindows.Builder<Sided<Long, Long>, Reconciled<Long, Long>> builder() {
    return KafkaWindows.builder(
            Duration.ofMinutes(5),
            Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
        .allowedLateness(Duration.ofMinutes(1))
        .resultScope(ResultScope.CO_PARTITIONED)
        .lateRecordHandler(
            (r, reason, t, end, w) ->
                late.add(reason + " " + r.topic() + "-" + r.partition() + "@" + r.offset()))
        .clock(clock);
  }

  static MockConsumer<String, String> consumer(int sourcePartitions, int targetPartitions) {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.updatePartitions(SOURCE, infos(SOURCE, sourcePartitions));
    consumer.updatePartitions(TARGET, infos(TARGET, targetPartitions));
    return consumer;
  }

  static List<PartitionInfo> infos(String topic, int n) {
    List<PartitionInfo> infos = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      infos.add(new PartitionInfo(topic, i, Node.noNode(), new Node[0], new Node[0]));
    }
    return infos;
  }

  KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> join(
      MockConsumer<String, String> consumer, List<TopicPartition> assigned) {
    KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
        builder().consumer(consumer).build();
    consumer.subscribe(List.of(SOURCE, TARGET), windows.rebalanceListener());
    consumer.updateBeginningOffsets(Map.of(S0, 0L, S1, 0L, T0P, 0L, T1, 0L));
    consumer.rebalance(assigned);
    return windows;
  }

  /** A record at {@code minute} after {@link #T0}, of {@code amount}. */
  static ConsumerRecord<String, String> record(
      TopicPartition tp, long offset, int minute, String key, long amount) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        T0.plus(Duration.ofMinutes(minute)).toEpochMilli(),
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        Long.toString(amount),
        new RecordHeaders(),
        Optional.empty());
  }

  /** One turn of the loop: the records, then the rows into the sink by (start, partition, key). */
  List<String> poll(
      KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows,
      List<ConsumerRecord<String, String>> records) {
    windows.onPoll(
        KafkaWindowsTest.recordsOf(records),
        ConsumerRecord::key,
        r ->
            r.topic().equals(SOURCE)
                ? Sided.left(Long.parseLong(r.value()))
                : Sided.right(Long.parseLong(r.value())));
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Reconciled<Long, Long>> w : windows.pollFinalized()) {
      TopicPartition p = (TopicPartition) w.source();
      long minute = Duration.between(T0, Instant.ofEpochMilli(w.start())).toMinutes();
      sink.put(List.of(minute, p.partition(), w.key()), w.value());
      rows.add(minute + " " + p + " " + w.key() + " " + w.value().status());
    }
    return rows;
  }

  @Test
  void aTaskClosesOnItsSlowerPartitionAndItsRowCarriesTheFirstTopicsPartition() {
    MockConsumer<String, String> consumer = consumer(2, 2);
    var windows = join(consumer, List.of(S0, S1, T0P, T1));
    assertThat(windows.heldPartitionCount()).isZero();
    // The source runs ahead to minute 12; the target is at minute 4: nothing closes.
    assertThat(
            poll(
                windows,
                List.of(
                    record(S0, 0, 1, "a", 5),
                    record(S0, 1, 2, "b", 1),
                    record(S0, 2, 3, "c", 1),
                    record(S0, 3, 12, "z", 1),
                    record(T0P, 0, 4, "a", 5),
                    record(T0P, 1, 4, "c", 2))))
        .isEmpty();
    // The target is delayed, not missing: its record of minute 3 still counts.
    assertThat(poll(windows, List.of(record(T0P, 2, 3, "d", 1), record(T0P, 3, 7, "z", 0))))
        .containsExactly(
            "0 source-0 a MATCHED",
            "0 source-0 b LEFT_ONLY",
            "0 source-0 c DIFFERENT",
            "0 source-0 d RIGHT_ONLY");
    assertThat(late).isEmpty();
    assertThat(windows.isComplete(S0, T0.toEpochMilli())).isTrue();
  }

  /**
   * Rule 73: a partition that never sent a record counts as having its task's newest watermark, so
   * a target topic that never sends does not hold its task's windows past the quiet period, and its
   * raise is committed at the consumer's position for its next owner. Issue 45, item 7: such a
   * partition counted as behind a previous owner it never had ({@code -1 < 0}), was never quiet,
   * and a replica topic that never sent held every window for 70 minutes of test clock.
   */
  @Test
  void aPartitionThatNeverSentDoesNotHoldItsTaskPastTheQuietPeriod() {
    MockConsumer<String, String> consumer = consumer(1, 1);
    var windows = join(consumer, List.of(S0, T0P));
    assertThat(poll(windows, List.of(record(S0, 0, 1, "a", 5), record(S0, 1, 12, "z", 1))))
        .isEmpty();
    clock.advance(Duration.ofSeconds(89));
    assertThat(poll(windows, List.of())).as("within the quiet period: held").isEmpty();
    clock.advance(Duration.ofSeconds(2));
    List<String> rows = new ArrayList<>(poll(windows, List.of()));
    rows.addAll(poll(windows, List.of()));
    assertThat(rows).contains("0 source-0 a LEFT_ONLY");
    var commit = windows.committableOffsets().get(T0P);
    assertThat(commit.offset()).as("at the consumer's position").isZero();
    assertThat(Checkpoint.parse(commit.metadata()).watermarkMillis())
        .as("its raised watermark, for its next owner")
        .isGreaterThan(T0.plus(Duration.ofMinutes(12)).toEpochMilli());
  }

  /**
   * Issue 45, item 7: a replica that stops. With the default quiet period (90 s) its windows are
   * reported as the source's alone ({@code LEFT_ONLY}, {@code ON_TIME}, index 0, not final); its
   * backlog, read within the grace period of an hour, is held (rule 72) and corrects each window
   * once, when the task's watermark reaches {@code end + grace}: a {@code MATCHED} row at index 1,
   * {@code LATE} and final. A backlog record past the grace period takes the late path. Guards the
   * failure reported: {@code CO_PARTITIONED} refused a grace period, so the backlog went to the
   * late path and the wrong rows were never corrected.
   */
  @Test
  void aReplicasBacklogWithinTheGracePeriodCorrectsTheRowsItsOutageMadeSourceOnly() {
    MockConsumer<String, String> consumer = consumer(1, 1);
    KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
        builder().grace(Duration.ofHours(1)).consumer(consumer).build();
    consumer.subscribe(List.of(SOURCE, TARGET), windows.rebalanceListener());
    consumer.updateBeginningOffsets(Map.of(S0, 0L, T0P, 0L));
    consumer.rebalance(List.of(S0, T0P));
    assertThat(
            panes(
                windows,
                List.of(
                    record(S0, 0, 1, "a", 5),
                    record(T0P, 0, 1, "a", 5),
                    record(S0, 1, 6, "b", 2),
                    record(S0, 2, 12, "z", 0))))
        .isEmpty();
    // Both go quiet, the replica for good: after the quiet period each own watermark rises to
    // wall - lateness (minute 29), and every window of the outage is reported as the source's.
    clock.advance(Duration.ofSeconds(89));
    assertThat(panes(windows, List.of())).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    assertThat(panes(windows, List.of()))
        .containsExactly(
            "0 a MATCHED ON_TIME#0", "5 b LEFT_ONLY ON_TIME#0", "10 z LEFT_ONLY ON_TIME#0");
    // The backlog: minute 6 is within the grace period of [5, 10) for the replica's own watermark
    // (10 <= 29 < 70): held. Nothing is written until the window retires.
    assertThat(panes(windows, List.of(record(T0P, 1, 6, "b", 2)))).isEmpty();
    assertThat(late).isEmpty();
    // Both sides run on to minute 69: the task's watermark is 68 < 10 + 60, still held.
    assertThat(panes(windows, List.of(record(S0, 3, 69, "y", 0), record(T0P, 2, 69, "y", 0))))
        .doesNotContain("5 b MATCHED LATE#1 final");
    // Minute 71: the watermark reaches 70 = end + grace, the window retires with its correction.
    assertThat(panes(windows, List.of(record(S0, 4, 71, "x", 0), record(T0P, 3, 71, "x", 0))))
        .contains("5 b MATCHED LATE#1 final")
        .doesNotContain("0 a MATCHED LATE#1 final");
    // A backlog record of [5, 10) now is past the grace period: the late path.
    panes(windows, List.of(record(T0P, 4, 7, "b", 1)));
    assertThat(late).containsExactly("LATE target-0@4");
  }

  /** One turn of the loop: the rows as "start key status timing#index[ final]". */
  List<String> panes(
      KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows,
      List<ConsumerRecord<String, String>> records) {
    windows.onPoll(
        KafkaWindowsTest.recordsOf(records),
        ConsumerRecord::key,
        r ->
            r.topic().equals(SOURCE)
                ? Sided.left(Long.parseLong(r.value()))
                : Sided.right(Long.parseLong(r.value())));
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Reconciled<Long, Long>> w : windows.pollFinalized()) {
      long minute = Duration.between(T0, Instant.ofEpochMilli(w.start())).toMinutes();
      rows.add(
          minute
              + " "
              + w.key()
              + " "
              + w.value().status()
              + " "
              + w.timing()
              + "#"
              + w.index()
              + (w.isFinal() ? " final" : ""));
    }
    return rows;
  }

  @Test
  void aRecordIsJudgedAgainstItsOwnPartitionsWatermarkNotItsTasks() {
    MockConsumer<String, String> consumer = consumer(2, 2);
    var windows = join(consumer, List.of(S0, S1, T0P, T1));
    poll(windows, List.of(record(S0, 0, 10, "a", 1), record(T0P, 0, 2, "a", 1)));
    // The task's watermark is the target's (minute 1): [0, 5) is open. The source's own watermark
    // is minute 9: its record of minute 4 is late, whoever else lags; the target's is not.
    poll(windows, List.of(record(S0, 1, 4, "a", 1), record(T0P, 1, 4, "a", 1)));
    assertThat(late).containsExactly("LATE source-0@1");
  }

  @Test
  void aTaskSplitAcrossInstancesIsHeldUntilOneInstanceHasItWhole() {
    MockConsumer<String, String> consumer = consumer(2, 2);
    var windows = join(consumer, List.of(S0, T1)); // an assignor that does not co-partition
    assertThat(windows.heldPartitionCount()).isEqualTo(2);
    assertThat(consumer.paused()).containsExactlyInAnyOrder(S0, T1);
    // Records that came anyway (fetched before the pause) are not read: the position goes back.
    assertThat(poll(windows, List.of(record(S0, 0, 1, "a", 1), record(S0, 1, 9, "a", 1))))
        .isEmpty();
    assertThat(consumer.position(S0)).isZero();
    assertThat(windows.committableOffsets()).isEmpty();
    consumer.rebalance(List.of(S0, T0P)); // T1 revoked, T0 assigned: task 0 is whole here
    assertThat(windows.heldPartitionCount()).isZero();
    assertThat(consumer.paused()).isEmpty();
    poll(
        windows,
        List.of(record(S0, 0, 1, "a", 1), record(S0, 1, 9, "a", 1), record(T0P, 0, 8, "a", 1)));
    assertThat(sink).containsOnlyKeys(List.of(0L, 0, "a"));
  }

  @Test
  void whenASiblingIsRevokedTheRestOfItsTaskIsHeldAndReadAgainFromItsCommit() {
    MockConsumer<String, String> consumer = consumer(1, 1);
    var windows = join(consumer, List.of(S0, T0P));
    poll(windows, List.of(record(S0, 0, 1, "a", 1), record(T0P, 0, 2, "a", 1)));
    consumer.commitSync(windows.committableOffsets());
    poll(windows, List.of(record(S0, 1, 3, "a", 1), record(S0, 2, 4, "a", 1)));
    consumer.rebalance(List.of(S0)); // the target partition moves away
    assertThat(windows.heldPartitionCount()).isEqualTo(1);
    assertThat(consumer.paused()).containsExactly(S0);
    consumer.rebalance(List.of(S0, T0P)); // and comes back
    assertThat(windows.heldPartitionCount()).isZero();
    assertThat(consumer.position(S0)).as("read again from its commit").isZero();
  }

  @Test
  void inputTopicsWithUnequalPartitionCountsAreRefusedAtAssignment() {
    MockConsumer<String, String> consumer = consumer(2, 3);
    assertThatThrownBy(() -> join(consumer, List.of(S0, T0P)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "resultScope(CO_PARTITIONED) needs input topics with equal partition counts (partition"
                + " i of each is one task): {source=2, target=3}");
  }

  @Test
  void theBuilderRefusesWhatATaskCannotKeepExactYet() {
    MockConsumer<String, String> consumer = consumer(1, 1);
    String prefix =
        "resultScope(CO_PARTITIONED) is for tumbling, hopping and sliding windows without early"
            + " results or maxFutureSkew, and a grace period only on tumbling and hopping"
            + " windows, for now: ";
    List<Consumer<KafkaWindows.Builder<Sided<Long, Long>, Reconciled<Long, Long>>>> options =
        List.of(
            b -> b.earlyResults(Duration.ofMinutes(1)),
            b -> b.maxFutureSkew(Duration.ofMinutes(1)),
            b -> b.idleTimeout(Duration.ofMinutes(1)));
    List<String> refused = new ArrayList<>();
    for (var option : options) {
      var b = builder().consumer(consumer);
      option.accept(b);
      assertThatThrownBy(b::build)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith(prefix)
          .satisfies(e -> refused.add(e.getMessage().substring(prefix.length()).split(" ")[0]));
    }
    assertThat(refused).containsExactly("early", "maxFutureSkew", "idleTimeout");
    // Issue 45, item 7: a grace period is kept exact on tumbling and hopping windows (rule 72's
    // held late updates), and still refused on sliding windows, which do not hold them.
    assertThat(builder().consumer(consumer).grace(Duration.ofMinutes(1)).build()).isNotNull();
    var sliding =
        KafkaWindows.sliding(
                Duration.ofMinutes(1),
                Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
            .resultScope(ResultScope.CO_PARTITIONED)
            .grace(Duration.ofMinutes(1))
            .consumer(consumer);
    assertThatThrownBy(sliding::build)
        .hasMessageStartingWith(prefix + "a grace period on sliding windows");
    var sessions =
        KafkaWindows.sessions(
                Duration.ofMinutes(1),
                Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
            .resultScope(ResultScope.CO_PARTITIONED)
            .consumer(consumer);
    assertThatThrownBy(sessions::build).hasMessageStartingWith(prefix + "session windows");
  }

  @Test
  void aNewOwnerOfTheTaskRebuildsItFromBothCommitsAndWritesTheSameRows() {
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(S0, 0, 1, "a", 3),
            record(T0P, 0, 2, "a", 3),
            record(S0, 1, 6, "b", 1),
            record(T0P, 1, 4, "c", 1),
            record(S0, 2, 3, "a", 1), // late for the source: its own watermark is minute 5
            record(T0P, 2, 7, "b", 2),
            record(S0, 3, 11, "z", 0),
            record(T0P, 3, 12, "z", 0));
    // One uninterrupted reading.
    var reference = join(consumer(1, 1), List.of(S0, T0P));
    poll(reference, log);
    Map<List<Object>, Reconciled<Long, Long>> uninterrupted = new LinkedHashMap<>(sink);
    List<String> lateOnce = List.copyOf(late);
    assertThat(lateOnce).containsExactly("LATE source-0@2");
    sink.clear();
    late.clear();
    // A first owner reads, writes, commits, reads on and dies before its next commit.
    MockConsumer<String, String> one = consumer(1, 1);
    var first = join(one, List.of(S0, T0P));
    poll(first, log.subList(0, 6)); // [0, 5) closes: its rows are written
    one.commitSync(first.committableOffsets());
    poll(first, log.subList(6, 8));
    Map<String, Long> committed = new LinkedHashMap<>();
    one.committed(java.util.Set.of(S0, T0P))
        .forEach((tp, om) -> committed.put(tp.toString(), om.offset()));
    List<KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>>> second =
        new ArrayList<>();
    MockConsumers.restart(
        one,
        List.of(S0, T0P),
        "earliest",
        c -> {
          c.updatePartitions(SOURCE, infos(SOURCE, 1));
          c.updatePartitions(TARGET, infos(TARGET, 1));
          second.add(builder().consumer(c).build());
          return second.get(0).rebalanceListener();
        });
    // The second owner reads each partition from its commit.
    List<ConsumerRecord<String, String>> again = new ArrayList<>();
    for (ConsumerRecord<String, String> r : log) {
      if (r.offset() >= committed.get(r.topic() + "-" + r.partition())) {
        again.add(r);
      }
    }
    assertThat(again)
        .as("the second owner re-reads records of both partitions")
        .hasSizeLessThan(log.size());
    poll(second.get(0), again);
    assertThat(sink).isEqualTo(uninterrupted);
    assertThat(late).as("the late record, once more, as late").contains("LATE source-0@2");
  }
}
