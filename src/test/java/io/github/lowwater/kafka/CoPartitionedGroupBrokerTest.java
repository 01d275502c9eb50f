package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.join.Reconciled;
import io.github.lowwater.join.Reconciliation;
import io.github.lowwater.join.Sided;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.TestGroup;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 35 on the real broker: a reconciliation of a source topic against a target topic, four
 * partitions each, partition {@code i} of both one task ({@link ResultScope#CO_PARTITIONED}), by a
 * group of instances through a scale-out, a crash and a restart, both group protocols with the
 * assignor that keeps tasks whole (classic: {@code RangeAssignor}; consumer: {@code
 * group.remote.assignor=range}). The target lags the source (it is produced after it, as a replica
 * catching up), drops one record in 17 and now and then every record of a key in a window
 * (missing), and holds others back by up to 40 seconds of event time behind its own newest
 * (delayed, within the allowed lateness). The sink keeps one row per (window, task, key); it must
 * end equal to the truth computed from what was produced: every key of every window with both sums,
 * its status, the delayed records counted and only the dropped ones missing. No row is rewritten
 * with another value, no partition ends held, and every commit carries a checkpoint.
 */
class CoPartitionedGroupBrokerTest {

  private static final int PARTITIONS = 4;
  private static final long BASE = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
  private static final Duration WINDOW = Duration.ofSeconds(20);
  private static final Duration LATENESS = Duration.ofSeconds(60);
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private final LowwaterBroker broker = LowwaterBroker.shared();

  /** (window start, task, key) to its row; a rewrite with another value fails the test. */
  private final Map<String, Reconciled<Long, Long>> rows = new HashMap<>();

  /** (window start, task, key) to {left sum, left count, right sum, right count}. */
  private final Map<String, long[]> truth = new TreeMap<>();

  private final List<String> rewrites = new ArrayList<>();

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aGroupReconcilesTwoTopicsExactlyThroughScalingACrashAndARestart(GroupProtocol protocol) {
    String name = protocol.name().toLowerCase(Locale.ROOT);
    String source = "recon-source-" + name;
    String target = "recon-target-" + name;
    String groupId = "recon-" + name;
    broker.createTopic(source, PARTITIONS);
    broker.createTopic(target, PARTITIONS);
    Map<String, Object> config =
        rangeAssigned(
            GroupClients.consumer(broker.bootstrapServers(), groupId, protocol), protocol);
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (TestGroup<String, String, KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>>>
        group = reconcilingGroup(config, source, target)) {
      var a = group.join();
      var b = group.join();
      produce(source, target, 0, 200, ends);
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, (m, r) -> loop(m, r, source));

      var c = group.join(); // scale out
      produce(source, target, 200, 350, ends);
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, (m, r) -> loop(m, r, source));
      assertThat(b.participant().stats().openWindows()).as("b holds open windows").isPositive();

      group.crash(b); // no close, no commit
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      var d = group.join(); // the restart
      produce(source, target, 350, 500, ends);
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, (m, r) -> loop(m, r, source));

      for (var m : group.live()) {
        assertThat(m.participant().heldPartitionCount()).as("held at %s", m).isZero();
        m.participant().finishAll(); // the end of this bounded input
        write(m.participant().pollFinalized());
        m.consumer().commitSync(m.participant().committableOffsets());
        assertThat(m.participant().stats().late()).as("late at %s", m).isZero();
      }
      assertThat(List.of(a, c, d)).allSatisfy(m -> assertThat(group.live()).contains(m));
    }
    assertThat(rewrites).as("rows rewritten with another value").isEmpty();
    Map<String, String> expected = new TreeMap<>();
    truth.forEach(
        (row, sums) -> {
          Reconciled.Status status =
              sums[1] == 0
                  ? Reconciled.Status.RIGHT_ONLY
                  : sums[3] == 0
                      ? Reconciled.Status.LEFT_ONLY
                      : sums[0] == sums[2]
                          ? Reconciled.Status.MATCHED
                          : Reconciled.Status.DIFFERENT;
          expected.put(row, status + " " + sums[0] + "x" + sums[1] + " " + sums[2] + "x" + sums[3]);
        });
    Map<String, String> actual = new TreeMap<>();
    rows.forEach(
        (row, r) ->
            actual.put(
                row,
                r.status()
                    + " "
                    + (r.left() == null ? 0 : r.left())
                    + "x"
                    + r.leftCount()
                    + " "
                    + (r.right() == null ? 0 : r.right())
                    + "x"
                    + r.rightCount()));
    assertThat(actual).isEqualTo(expected);
    assertThat(actual.values()).anyMatch(v -> v.startsWith("LEFT_ONLY"));
    assertThat(actual.values()).anyMatch(v -> v.startsWith("DIFFERENT"));
    assertThat(actual.values()).anyMatch(v -> v.startsWith("MATCHED"));
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed = CommittedOffsets.of(admin, groupId);
      assertThat(committed).hasSize(2 * PARTITIONS);
      assertThat(CommittedOffsets.withoutMetadata(committed, "lw")).isEmpty();
    }
  }

  /**
   * The consumer settings with the assignor that keeps partition i of every topic on one member:
   * the classic {@code RangeAssignor}, or the consumer protocol's server-side {@code range}.
   */
  static Map<String, Object> rangeAssigned(Map<String, Object> config, GroupProtocol protocol) {
    if (protocol == GroupProtocol.CLASSIC) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    } else {
      config.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
    }
    return config;
  }

  /**
   * Rule 73 on the broker, with an assignor that splits every task on purpose (the source topic to
   * one member, the target topic to the other, which a sticky or uniform assignor may do by
   * chance): both members hold every partition they have, paused, read nothing, write no row and
   * move no commit; once one member leaves, the other has every task whole, reads both topics from
   * the beginning, and writes exactly the truth.
   */
  @Execution(ExecutionMode.CONCURRENT)
  @org.junit.jupiter.api.Test
  void tasksSplitByTheAssignorAreHeldUntilOneMemberHasThemWhole() {
    String source = "split-source";
    String target = "split-target";
    String groupId = "split-group";
    broker.createTopic(source, PARTITIONS);
    broker.createTopic(target, PARTITIONS);
    Map<String, Object> config =
        GroupClients.consumer(broker.bootstrapServers(), groupId, GroupProtocol.CLASSIC);
    config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, TopicPerMember.class.getName());
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (TestGroup<String, String, KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>>>
        group = reconcilingGroup(config, source, target)) {
      var a = group.join();
      var b = group.join();
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      produce(source, target, 0, 120, ends); // once every task is split
      for (int i = 0; i < 20; i++) { // a second of polls: nothing may be read
        group.pollOnce((m, r) -> loop(m, r, source));
      }
      for (var m : List.of(a, b)) {
        assertThat(m.consumer().assignment()).hasSize(PARTITIONS); // one whole topic each
        assertThat(m.participant().heldPartitionCount()).as("%s holds", m).isEqualTo(PARTITIONS);
        assertThat(m.consumer().paused()).isEqualTo(m.consumer().assignment());
        assertThat(m.participant().stats().accepted()).as("%s read nothing", m).isZero();
        assertThat(m.participant().committableOffsets()).isEmpty();
      }
      assertThat(rows).as("no row from one side alone").isEmpty();

      group.leave(b);
      group.awaitStable(DEADLINE, (m, r) -> loop(m, r, source));
      assertThat(a.participant().heldPartitionCount()).isZero();
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, (m, r) -> loop(m, r, source));
      a.participant().finishAll();
      write(a.participant().pollFinalized());
    }
    assertThat(rewrites).isEmpty();
    Map<String, Long> expectedKeys = new TreeMap<>();
    truth.forEach((row, sums) -> expectedKeys.put(row, sums[1] + sums[3]));
    Map<String, Long> actualKeys = new TreeMap<>();
    rows.forEach((row, r) -> actualKeys.put(row, r.leftCount() + r.rightCount()));
    assertThat(actualKeys).isEqualTo(expectedKeys);
  }

  /**
   * A classic client-side assignor that gives each member whole topics, in turn: every task split
   * across two members, deterministically.
   */
  public static final class TopicPerMember
      implements org.apache.kafka.clients.consumer.ConsumerPartitionAssignor {
    @Override
    public GroupAssignment assign(
        org.apache.kafka.common.Cluster metadata, GroupSubscription subscription) {
      List<String> members = new ArrayList<>(subscription.groupSubscription().keySet());
      java.util.Collections.sort(members);
      java.util.TreeSet<String> topics = new java.util.TreeSet<>();
      subscription.groupSubscription().values().forEach(s -> topics.addAll(s.topics()));
      Map<String, List<TopicPartition>> assigned = new HashMap<>();
      members.forEach(m -> assigned.put(m, new ArrayList<>()));
      int i = 0;
      for (String topic : topics) {
        String member = members.get(i++ % members.size());
        Integer count = metadata.partitionCountForTopic(topic);
        for (int p = 0; p < (count == null ? 0 : count); p++) {
          assigned.get(member).add(new TopicPartition(topic, p));
        }
      }
      Map<String, Assignment> out = new HashMap<>();
      assigned.forEach((m, tps) -> out.put(m, new Assignment(tps)));
      return new GroupAssignment(out);
    }

    @Override
    public String name() {
      return "topic-per-member";
    }
  }

  /** A group whose members reconcile {@code source} against {@code target}, co-partitioned. */
  private static TestGroup<
          String, String, KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>>>
      reconcilingGroup(Map<String, Object> config, String source, String target) {
    return new TestGroup<>(
        config,
        new StringDeserializer(),
        new StringDeserializer(),
        List.of(source, target),
        consumer ->
            KafkaWindows.builder(
                    WINDOW,
                    Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
                .allowedLateness(LATENESS)
                .resultScope(ResultScope.CO_PARTITIONED)
                .consumer(consumer)
                .build(),
        KafkaWindows::rebalanceListener);
  }

  /** One turn of the README's loop: hand the poll over, write, commit. */
  private void loop(
      TestGroup.Member<
              String, String, KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>>>
          member,
      ConsumerRecords<String, String> records,
      String source) {
    var windows = member.participant();
    windows.onPoll(
        records,
        ConsumerRecord::key,
        r ->
            r.topic().equals(source)
                ? Sided.left(Long.parseLong(r.value()))
                : Sided.right(Long.parseLong(r.value())));
    write(windows.pollFinalized());
    try {
      member.consumer().commitSync(windows.committableOffsets());
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // the next poll completes the rebalance; the next commit carries the same offsets
    }
  }

  private void write(List<WindowResult<String, Reconciled<Long, Long>>> results) {
    for (var r : results) {
      String row = r.start() + "/" + ((TopicPartition) r.source()).partition() + "/" + r.key();
      Reconciled<Long, Long> before = rows.put(row, r.value());
      if (before != null && !before.equals(r.value())) {
        rewrites.add(row + ": " + before + " -> " + r.value());
      }
    }
  }

  /**
   * Records {@code from} to {@code to} of each task, one every 2 seconds of event time: the
   * source's first, in order; then the target's, the same keys and times with amounts that now and
   * then differ, one in 17 dropped, and one in 5 held back to after a later record (up to 40
   * seconds).
   */
  private void produce(
      String source, String target, int from, int to, Map<TopicPartition, Long> ends) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < PARTITIONS; p++) {
        List<long[]> targetRecords = new ArrayList<>(); // {time, i, amount}
        for (int i = from; i < to; i++) {
          long time = BASE + i * 2_000L;
          String key = "k" + p + "-" + (i * 7 + p) % 3;
          long amount = 1 + i % 4;
          sent.add(
              producer.send(new ProducerRecord<>(source, p, time, key, Long.toString(amount))));
          count(time, p, key, 0, amount);
          boolean dropped =
              (i * 13 + p) % 17 == 0 // a record now and then
                  || ((i * 7 + p) % 3 == 0 && (i / 10) % 11 == 3); // a key's whole window
          if (!dropped) { // else missing on the target
            long targetAmount = (i * 11 + p) % 23 == 0 ? amount + 1 : amount;
            targetRecords.add(new long[] {time, i, targetAmount});
          }
        }
        // The target holds some records back: each moves up to 20 places later (40 s of time).
        for (int j = 0; j < targetRecords.size(); j++) {
          if ((j * 31 + p) % 5 == 0) {
            int to2 = Math.min(targetRecords.size() - 1, j + 1 + (j % 20));
            targetRecords.add(to2, targetRecords.remove(j));
          }
        }
        for (long[] t : targetRecords) {
          long time = t[0];
          String key = "k" + p + "-" + (t[1] * 7 + p) % 3;
          sent.add(producer.send(new ProducerRecord<>(target, p, time, key, Long.toString(t[2]))));
          count(time, p, key, 2, t[2]);
        }
        ends.put(new TopicPartition(source, p), (long) (to));
        ends.merge(new TopicPartition(target, p), (long) targetRecords.size(), Long::sum);
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(); // the truth is what the topics hold: a failed send fails the test
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("a send failed", e);
    }
  }

  private void count(long time, int task, String key, int side, long amount) {
    long start = time - Math.floorMod(time, WINDOW.toMillis());
    long[] sums = truth.computeIfAbsent(start + "/" + task + "/" + key, k -> new long[4]);
    sums[side] += amount;
    sums[side + 1]++;
  }
}
