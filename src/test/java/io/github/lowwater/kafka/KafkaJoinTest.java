package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinRow;
import io.github.lowwater.join.JoinSide;
import io.github.lowwater.join.JoinType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaJoinTest {

  static final long T0 = 1_700_000_000_000L;
  static final TopicPartition L0 = new TopicPartition("orders", 0);
  static final TopicPartition R0 = new TopicPartition("payments", 0);

  /** A mock consumer whose seeks and committed offsets the test sees. */
  static final class Consumer extends MockConsumer<String, String> {
    final Map<TopicPartition, Long> seeks = new HashMap<>();
    final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();

    Consumer() {
      super("earliest");
      assign(List.of(L0, R0));
      updateBeginningOffsets(Map.of(L0, 0L, R0, 0L));
    }

    @Override
    public synchronized void seek(TopicPartition partition, long offset) {
      super.seek(partition, offset);
      seeks.put(partition, offset);
    }

    /** Makes the next {@code committed} call fail, as when the coordinator is away. */
    boolean failNextCommitted;

    @Override
    public synchronized Map<TopicPartition, OffsetAndMetadata> committed(
        Set<TopicPartition> partitions) {
      if (failNextCommitted) {
        failNextCommitted = false;
        throw new org.apache.kafka.common.errors.TimeoutException("the coordinator is away");
      }
      Map<TopicPartition, OffsetAndMetadata> c = new HashMap<>(group);
      c.keySet().retainAll(partitions);
      return c;
    }
  }

  static KafkaJoin.Builder<String, String, String, String> builder() {
    return KafkaJoin.<String, String, String, String>builder(
            JoinInterval.within(Duration.ofMillis(10)), (k, l, r) -> l + "|" + r)
        .type(JoinType.LEFT)
        .allowedLateness(Duration.ofMillis(20))
        .topics("orders", "payments");
  }

  static ConsumerRecord<String, String> rec(TopicPartition tp, long offset, long t, String key) {
    return JoinHandOverModelTest.Trace.record(tp, offset, T0 + t, key, tp.topic() + offset);
  }

  @SafeVarargs
  static void feed(
      KafkaJoin<String, String, String, String> join, ConsumerRecord<String, String>... rs) {
    List<ConsumerRecord<String, String>> list = new ArrayList<>();
    for (ConsumerRecord<String, String> r : rs) {
      list.add(r);
    }
    join.onPoll(KafkaWindowsTest.recordsOf(list), r -> r.key(), r -> r.value(), r -> r.value());
  }

  @Test
  void theBuilderNamesWhatIsMissingOrWrong() {
    assertThatThrownBy(
            () -> KafkaJoin.builder(JoinInterval.within(Duration.ZERO), (k, l, r) -> l).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("topics(left, right)");
    assertThatThrownBy(() -> builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("consumer(consumer)");
    assertThatThrownBy(() -> builder().topics("a", "b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("topics");
    assertThatThrownBy(
            () ->
                KafkaJoin.builder(JoinInterval.within(Duration.ZERO), (k, l, r) -> l)
                    .topics("a", "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"a\"");
    assertThatThrownBy(() -> builder().allowedLateness(Duration.ofMillis(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("allowedLateness");
    assertThatThrownBy(
            () ->
                KafkaJoin.builder(JoinInterval.within(Duration.ZERO), (k, l, r) -> l)
                    .allowedLateness(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowedLateness");
  }

  @Test
  void unequalPartitionCountsAreRefusedAtAssignmentWithTheCounts() {
    Consumer consumer = new Consumer();
    Node node = new Node(0, "localhost", 9092);
    consumer.updatePartitions("orders", List.of(new PartitionInfo("orders", 0, node, null, null)));
    consumer.updatePartitions(
        "payments",
        List.of(
            new PartitionInfo("payments", 0, node, null, null),
            new PartitionInfo("payments", 1, node, null, null)));
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    assertThatThrownBy(() -> join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("orders has 1, payments has 2");
  }

  @Test
  void aSplitTaskIsHeldUntilBothPartitionsAreHereThenFormedFromTheirCommits() {
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0));
    assertThat(join.heldPartitionCount()).isEqualTo(1);
    assertThat(consumer.paused()).containsExactly(L0);
    assertThat(join.taskCount()).isZero();
    feed(join, rec(L0, 0, 0, "a")); // fetched before the pause took effect: set aside
    assertThat(join.ignoredRecords()).isEqualTo(1);
    assertThat(join.pollResults()).isEmpty();
    assertThat(join.committableOffsets()).as("nothing of a held task is committed").isEmpty();

    consumer.group.put(R0, new OffsetAndMetadata(3, "lj1;w=" + (T0 + 5) + ";c=0:3:" + T0));
    join.rebalanceListener().onPartitionsAssigned(List.of(R0));
    assertThat(join.heldPartitionCount()).isZero();
    assertThat(consumer.paused()).isEmpty();
    assertThat(join.taskCount()).isEqualTo(1);
    assertThat(consumer.seeks)
        .as("the set-aside record is read again; the right side resumes at its commit")
        .containsEntry(L0, 0L)
        .containsEntry(R0, 3L);
    assertThat(join.watermark(0)).as("both watermarks needed").isEqualTo(Long.MIN_VALUE);

    join.rebalanceListener().onPartitionsRevoked(List.of(R0));
    assertThat(join.taskCount()).as("a task that loses a partition is dropped at once").isZero();
    assertThat(join.heldPartitionCount()).isEqualTo(1);
  }

  @Test
  void aJoinerThatThrowsRewindsEveryTaskToItsLastCommitAndTheRowsComeAgainTheSame() {
    Consumer consumer = new Consumer();
    boolean[] fail = {false};
    KafkaJoin<String, String, String, String> join =
        KafkaJoin.<String, String, String, String>builder(
                JoinInterval.within(Duration.ofMillis(10)),
                (k, l, r) -> {
                  if (fail[0]) {
                    throw new IllegalStateException("the joiner's bug");
                  }
                  return l + "|" + r;
                })
            .topics("orders", "payments")
            .consumer(consumer)
            .build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 100, "b"));
    assertThat(join.pollResults()).isEmpty();
    consumer.group.putAll(join.committableOffsets());
    assertThat(consumer.group.get(L0).offset()).as("the waiting order is pinned").isZero();

    fail[0] = true;
    consumer.seeks.clear();
    assertThatThrownBy(() -> feed(join, rec(R0, 1, 5, "a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the joiner's bug");
    assertThat(consumer.seeks).containsEntry(L0, 0L).containsEntry(R0, 0L);
    assertThat(join.buffered()).as("formed again, empty, at the commit").isZero();

    fail[0] = false;
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 100, "b"), rec(R0, 1, 5, "a"));
    List<KafkaJoinRow<String, String>> rows = join.pollResults();
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).kind()).isEqualTo(JoinRow.Kind.PAIR);
    assertThat(rows.get(0).id()).isEqualTo("0/0/1");
    assertThat(rows.get(0).value()).isEqualTo("orders0|payments1");
    assertThat(rows.get(0).timeMillis()).isEqualTo(T0 + 5);
  }

  @Test
  void aTaskWhoseCommitsCouldNotBeReadIsFormedAtTheNextPollWhichReadsItsRecordsAgain() {
    Consumer consumer = new Consumer();
    consumer.group.put(L0, new OffsetAndMetadata(3, "lj1;w=" + Long.MIN_VALUE + ";c="));
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    consumer.failNextCommitted = true;
    assertThatThrownBy(() -> join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0)))
        .hasMessage("the coordinator is away");
    assertThat(join.taskCount()).isZero();
    // Records fetched from wherever the consumer was: set aside, and the task formed from its
    // commits.
    feed(join, rec(L0, 5, 0, "a"), rec(R0, 2, 0, "a"));
    assertThat(join.taskCount()).isEqualTo(1);
    assertThat(join.ignoredRecords()).isEqualTo(2);
    assertThat(join.buffered()).isZero();
    assertThat(consumer.seeks)
        .as("the left side at its commit, the right (no commit) where this poll began")
        .containsEntry(L0, 3L)
        .containsEntry(R0, 2L);
    feed(join, rec(L0, 3, 0, "a"), rec(R0, 2, 0, "a"));
    assertThat(join.buffered()).isEqualTo(2);
  }

  /**
   * Issue 45, item 4 (rule 74): a partition that went silent held its task's unmatched rows for
   * ever; here {@code b}'s row never came, however long the right partition was silent. With the
   * default quiet period (90 s) the right partition's own watermark now rises to the wall clock
   * less the lateness, and {@code b}'s row comes; a right record below that is late.
   */
  @Test
  void aSilentPartitionReleasesItsTasksUnmatchedRowsAfterTheDefaultQuietPeriod() {
    io.github.lowwater.ManualClock clock =
        new io.github.lowwater.ManualClock(java.time.Instant.ofEpochMilli(T0));
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join =
        builder().consumer(consumer).clock(clock).build(); // LEFT, within 10 ms, lateness 20 ms
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "a"));
    assertThat(join.pollResults()).extracting(KafkaJoinRow::id).containsExactly("0/0/0");
    clock.advance(java.time.Duration.ofSeconds(89));
    feed(join, rec(L0, 1, 1_000, "b"), rec(L0, 2, 5_000, "c"));
    assertThat(join.pollResults()).as("the right partition may still send a partner").isEmpty();
    assertThat(join.watermark(0)).isEqualTo(T0 - 20);
    clock.advance(java.time.Duration.ofSeconds(1));
    feed(join);
    assertThat(join.pollResults())
        .as("silent for 90 s: b can pair with no on-time right record")
        .extracting(KafkaJoinRow::id)
        .containsExactly("0/1/-1");
    feed(join, rec(R0, 1, 5_000, "c"));
    assertThat(join.late(JoinSide.RIGHT)).as("below the raised 89,980 ms").isOne();
  }

  @Test
  void aRecordWithANullValueIsSkippedAndTheCommitMovesPastIt() {
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(
        join,
        JoinHandOverModelTest.Trace.record(L0, 0, T0, "k", null),
        JoinHandOverModelTest.Trace.record(R0, 0, T0, "k", null));
    assertThat(join.skippedRecords()).isEqualTo(2);
    assertThat(join.pollResults()).isEmpty();
    assertThat(join.committableOffsets().get(L0).offset()).isEqualTo(1);
    assertThat(join.committableOffsets().get(R0).offset()).isEqualTo(1);
  }

  /**
   * Rule 74 (the null-key rule of rule 70): a record with a {@code null} key gives its unmatched
   * row at once where the type keeps its side, is not pinned (the commit moves past it), and a new
   * owner that re-reads it below its predecessor's claim does not emit the row again. Issue 45,
   * item 4: it was skipped, where Kafka Streams' left join emits it.
   */
  @Test
  void aRecordWithANullKeyGivesItsUnmatchedRowAtOnceAndOnceAcrossOwners() {
    Consumer first = new Consumer();
    KafkaJoin<String, String, String, String> a = builder().consumer(first).build();
    a.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    // o0 (key a) waits for a partner and pins the commit; o1 has no key; p0 has none either.
    feed(a, rec(L0, 0, 0, "a"), rec(L0, 1, 1, null), rec(R0, 0, 1, null));
    assertThat(a.skippedRecords()).isZero();
    List<KafkaJoinRow<String, String>> rows = a.pollResults();
    assertThat(rows).extracting(KafkaJoinRow::id).containsExactly("0/1/-1");
    assertThat(rows.get(0).key()).isNull();
    assertThat(rows.get(0).value()).isEqualTo("orders1|null");
    Map<TopicPartition, OffsetAndMetadata> commit = a.committableOffsets();
    assertThat(commit.get(L0).offset()).as("pinned by o0 only").isZero();
    assertThat(commit.get(R0).offset()).as("nothing pinned").isOne();

    Consumer second = new Consumer();
    second.group.putAll(commit);
    KafkaJoin<String, String, String, String> b = builder().consumer(second).build();
    b.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(b, rec(L0, 0, 0, "a"), rec(L0, 1, 1, null), rec(L0, 2, 2, null));
    assertThat(b.pollResults())
        .as("o1's row was emitted before the commit; o2's is new")
        .extracting(KafkaJoinRow::id)
        .containsExactly("0/2/-1");
    assertThat(b.suppressedRows()).isOne();
  }

  /**
   * Issue 45, item 8: a checkpoint longer than the broker's default {@code
   * offset.metadata.max.bytes} (4,096) is not committed: the task's commit stays at the last one
   * that fitted. Before, the claims had no cap, and such a commit failed on the broker with {@code
   * OffsetMetadataTooLargeException} at every attempt.
   */
  @Test
  void aCheckpointLongerThanTheBrokersLimitIsNotCommittedTheCommitStaysWhereItWas() {
    long x = 9_000_000_000_000_000_000L; // offsets of 19 digits: the longest claims
    String inherited = JoinCheckpointTest.longest(66).encode(); // 4,053 characters: it fitted
    Consumer consumer = new Consumer();
    consumer.updateBeginningOffsets(Map.of(L0, x, R0, x));
    consumer.group.put(L0, new OffsetAndMetadata(x, inherited));
    consumer.group.put(R0, new OffsetAndMetadata(x, inherited));
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(join, rec(L0, x, 0, "a"), rec(R0, x, 100, "b"));
    join.pollResults();
    assertThat(join.committableOffsets())
        .as("its own claim on top of the 66 inherited ones would not fit: nothing to commit")
        .isEmpty();
  }

  /**
   * Issue 45, item 7: the join's time can come from the payload, through a {@link RecordMapper} per
   * side, as the windows' can; before, it was the record timestamp only. The records' stamps here
   * are all equal (they would pair), their payload times 200 ms apart (they do not).
   */
  @Test
  void aRecordMapperGivesTheJoinItsEventTimeFromThePayload() {
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    RecordMapper<String, String, String, String> payloadTime =
        (r, out) -> {
          String[] f = r.value().split("@");
          if (f[0].equals("heartbeat")) {
            out.observe(T0 + Long.parseLong(f[1])); // a join has no time-only records: skipped
          } else {
            out.emit(T0 + Long.parseLong(f[1]), r.key(), f[0]);
          }
        };
    List<ConsumerRecord<String, String>> records =
        List.of(
            JoinHandOverModelTest.Trace.record(L0, 0, T0, "a", "order@100"),
            JoinHandOverModelTest.Trace.record(R0, 0, T0, "a", "payment@300"),
            JoinHandOverModelTest.Trace.record(R0, 1, T0, "a", "heartbeat@400"));
    join.onPoll(KafkaWindowsTest.recordsOf(records), payloadTime, payloadTime);
    join.finishAll();
    assertThat(join.pairs()).isZero();
    assertThat(join.skippedRecords()).isOne();
    List<KafkaJoinRow<String, String>> rows = join.pollResults();
    assertThat(rows).extracting(KafkaJoinRow::id).containsExactly("0/0/-1");
    assertThat(rows.get(0).timeMillis()).isEqualTo(T0 + 100);
    assertThat(rows.get(0).value()).isEqualTo("order|null");
  }

  /**
   * Issue 45, item 7: a late record reaches {@code lateRecordHandler} with its {@code
   * ConsumerRecord}, so a dead-letter table can be keyed by topic, partition and offset; the two
   * kinds of late handler exclude each other.
   */
  @Test
  void theLateRecordHandlerGetsTheConsumerRecordWithItsOffset() {
    List<String> late = new ArrayList<>();
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join =
        builder()
            .consumer(consumer)
            .lateRecordHandler(
                (side, r, t, wm) ->
                    late.add(side + " " + r.topic() + "-" + r.partition() + "@" + r.offset()))
            .build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(join, rec(L0, 0, 0, "a"), rec(L0, 1, 100, "b"), rec(L0, 2, 50, "c"), rec(R0, 0, 0, "z"));
    assertThat(late).containsExactly("LEFT orders-0@2");
    assertThatThrownBy(
            () ->
                builder()
                    .lateRecordHandler((side, r, t, wm) -> {})
                    .lateHandler((a, b, c, d, e, f) -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("a late handler (lateRecordHandler) was already set");
  }

  /**
   * A late record handler may throw a checked exception, as {@link LateRecordHandler} may (issue
   * 45, item 3: one convention for every handler): {@code onPoll} wraps it in an {@code
   * IllegalStateException} that names the record, rewinds every task to its last commit, and the
   * record is handed over again when it comes again.
   */
  @Test
  void aLateRecordHandlerMayThrowACheckedExceptionWhichRewindsAndNamesTheRecord() {
    List<String> late = new ArrayList<>();
    boolean[] fail = {true};
    Consumer consumer = new Consumer();
    KafkaJoin<String, String, String, String> join =
        builder()
            .consumer(consumer)
            .lateRecordHandler(
                (side, r, t, wm) -> {
                  if (fail[0]) {
                    throw new java.io.IOException("the dead-letter table is down");
                  }
                  late.add(side + " " + r.topic() + "-" + r.partition() + "@" + r.offset());
                })
            .build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    consumer.seeks.clear();
    assertThatThrownBy(
            () -> feed(join, rec(L0, 0, 0, "a"), rec(L0, 1, 100, "b"), rec(L0, 2, 50, "c")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the late record handler failed on orders-0@2")
        .hasCauseInstanceOf(java.io.IOException.class);
    assertThat(consumer.seeks).as("back to the last commit").containsEntry(L0, 0L);
    assertThat(late).isEmpty();

    fail[0] = false;
    feed(join, rec(L0, 0, 0, "a"), rec(L0, 1, 100, "b"), rec(L0, 2, 50, "c"), rec(R0, 0, 0, "z"));
    assertThat(late).containsExactly("LEFT orders-0@2");
  }

  @Test
  void aLateRecordGoesToTheHandlerOnceNotAgainWhenANewOwnerReReadsIt() {
    List<String> late = new ArrayList<>();
    Consumer first = new Consumer();
    KafkaJoin<String, String, String, String> a =
        builder()
            .consumer(first)
            .lateHandler(
                (side, source, t, wm, key, value) -> late.add(side + " " + source + " " + value))
            .build();
    a.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    // o0 waits (a left record pins the commit); o1 at 100 makes o2 at 50 late on its own partition.
    feed(a, rec(L0, 0, 0, "a"), rec(L0, 1, 100, "b"), rec(L0, 2, 50, "c"), rec(R0, 0, 0, "z"));
    assertThat(late).containsExactly("LEFT orders-0 orders2");
    a.pollResults();
    Map<TopicPartition, OffsetAndMetadata> commit = a.committableOffsets();
    assertThat(commit.get(L0).offset()).isZero();

    Consumer second = new Consumer();
    second.group.putAll(commit);
    KafkaJoin<String, String, String, String> b =
        builder()
            .consumer(second)
            .lateHandler(
                (side, source, t, wm, key, value) -> late.add(side + " " + source + " " + value))
            .build();
    b.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(b, rec(L0, 0, 0, "a"), rec(L0, 1, 100, "b"), rec(L0, 2, 50, "c"), rec(R0, 0, 0, "z"));
    assertThat(late).as("judged late again, reported once").hasSize(1);
    assertThat(b.late(JoinSide.LEFT)).isEqualTo(1);
    assertThat(b.pollResults())
        .as("nothing new: the same rows as the first owner's (none)")
        .isEmpty();
  }

  @Test
  void metadataOfAnotherToolStartsThePartitionWithoutACheckpoint() {
    Consumer consumer = new Consumer();
    consumer.group.put(L0, new OffsetAndMetadata(2, "set by kafka-consumer-groups"));
    KafkaJoin<String, String, String, String> join = builder().consumer(consumer).build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    assertThat(consumer.seeks).containsEntry(L0, 2L);
    feed(join, rec(L0, 2, 0, "a"));
    join.finishAll();
    List<KafkaJoinRow<String, String>> rows = join.pollResults();
    assertThat(rows).extracting(KafkaJoinRow::id).containsExactly("0/2/-1");
    assertThat(rows.get(0).value()).isEqualTo("orders2|null");
  }
}
