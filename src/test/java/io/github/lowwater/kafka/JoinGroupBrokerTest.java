package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.TestGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
 * Issue 35 on the real broker: an outer join of orders with payments, four partitions each, task
 * {@code i} partition {@code i} of both ({@link KafkaJoin}), by a group through a scale-out to
 * three, a crash (no close, no commit) and a restart, both group protocols with the assignor that
 * keeps tasks whole. Payments come up to 6 s after their order or 2 s before it, some never, some
 * out of order, and a few so far behind their partition that they are late. The sink keeps one row
 * per identity ({@code task/leftOffset/rightOffset}); it must end equal to the rows of one reading
 * computed from what was produced (the offsets the broker gave), with no row rewritten with another
 * value, the late records reported, no partition held, and every commit carrying a join checkpoint.
 */
class JoinGroupBrokerTest {

  private static final int PARTITIONS = 4;
  private static final long BASE = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
  private static final JoinInterval INTERVAL = JoinInterval.within(Duration.ofSeconds(3));
  private static final Duration LATENESS = Duration.ofSeconds(5);
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private final LowwaterBroker broker = LowwaterBroker.shared();

  /** What each partition holds, in offset order: {offset, time, key, id}. */
  private final Map<TopicPartition, List<Object[]>> logs = new HashMap<>();

  /** Row identity to value; a rewrite with another value is recorded. */
  private final Map<String, String> sink = new TreeMap<>();

  private final List<String> rewrites = new ArrayList<>();
  private final Set<String> lateReported = new HashSet<>();

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aGroupJoinsTwoTopicsExactlyThroughScalingACrashAndARestart(GroupProtocol protocol) {
    String name = protocol.name().toLowerCase(Locale.ROOT);
    String orders = "join-orders-" + name;
    String payments = "join-payments-" + name;
    String groupId = "join-" + name;
    broker.createTopic(orders, PARTITIONS);
    broker.createTopic(payments, PARTITIONS);
    Map<String, Object> config =
        CoPartitionedGroupBrokerTest.rangeAssigned(
            GroupClients.consumer(broker.bootstrapServers(), groupId, protocol), protocol);
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (TestGroup<String, String, KafkaJoin<String, String, String, String>> group =
        group(
            config,
            orders,
            payments,
            b ->
                b.type(JoinType.OUTER)
                    .allowedLateness(LATENESS)
                    .lateHandler(
                        (side, source, t, wm, key, value) -> lateReported.add((String) value)))) {
      var a = group.join();
      var b = group.join();
      produce(orders, payments, 0, 150, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      var c = group.join(); // scale out
      produce(orders, payments, 150, 300, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);
      assertThat(b.participant().buffered()).as("b holds waiting records").isPositive();

      group.crash(b); // no close, no commit
      group.awaitStable(DEADLINE, this::loop);
      var d = group.join(); // the restart
      produce(orders, payments, 300, 450, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      for (var m : group.live()) {
        assertThat(m.participant().heldPartitionCount()).as("held at %s", m).isZero();
        m.participant().finishAll(); // the end of this bounded input
        write(m.participant().pollResults());
        m.consumer().commitSync(m.participant().committableOffsets());
      }
      assertThat(List.of(a, c, d)).allSatisfy(m -> assertThat(group.live()).contains(m));
    }
    assertThat(rewrites).as("rows rewritten with another value").isEmpty();
    Set<String> late = new HashSet<>();
    Map<String, String> truth = truth(orders, payments, late);
    assertThat(sink).isEqualTo(truth);
    assertThat(lateReported).isEqualTo(late);
    assertThat(late).as("the feed has late records").isNotEmpty();
    assertThat(truth.keySet())
        .anyMatch(id -> id.endsWith("/-1"))
        .anyMatch(id -> id.contains("/-1/"));
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed = CommittedOffsets.of(admin, groupId);
      assertThat(committed).hasSize(2 * PARTITIONS);
      assertThat(CommittedOffsets.withoutMetadata(committed, "lj1")).isEmpty();
    }
  }

  /**
   * Rule 74 on the real broker and the real clock: an order waits for a payment within 3 s, and
   * both topics then fall silent. With a quiet period of 1 s and a lateness of 0.5 s, each
   * partition's own watermark follows the wall clock less 0.5 s, so the order's unmatched row comes
   * once the wall clock is past its time plus 3.5 s, not before; the commit carries the raised
   * watermark. Before issue 45, item 4, the row never came (the poll loop hit its deadline).
   */
  @org.junit.jupiter.api.Test
  void aSilentTasksUnmatchedRowComesAfterTheQuietPeriodOnTheRealClock() {
    String orders = "quiet-orders";
    String payments = "quiet-payments";
    broker.createTopic(orders, 1);
    broker.createTopic(payments, 1);
    Map<String, Object> config =
        CoPartitionedGroupBrokerTest.rangeAssigned(
            GroupClients.consumer(broker.bootstrapServers(), "join-quiet", GroupProtocol.CLASSIC),
            GroupProtocol.CLASSIC);
    try (TestGroup<String, String, KafkaJoin<String, String, String, String>> group =
        group(
            config,
            orders,
            payments,
            b ->
                b.type(JoinType.LEFT)
                    .allowedLateness(Duration.ofMillis(500))
                    .quietAdvanceAfter(Duration.ofSeconds(1)))) {
      var member = group.join();
      group.awaitStable(DEADLINE, this::loop);
      long sent = System.currentTimeMillis();
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              GroupClients.producer(broker.bootstrapServers()),
              new StringSerializer(),
              new StringSerializer())) {
        producer.send(new ProducerRecord<>(orders, 0, sent, "a", "o0")).get();
        producer.send(new ProducerRecord<>(payments, 0, sent, "b", "p0")).get();
      } catch (InterruptedException | ExecutionException e) {
        throw new AssertionError("a send failed", e);
      }
      group.pollUntil(() -> sink.containsKey("0/0/-1"), DEADLINE, this::loop);
      assertThat(System.currentTimeMillis() - sent)
          .as("the row needs a raise to at least its time plus 3 s, at the wall clock less 0.5 s")
          .isGreaterThanOrEqualTo(3_500);
      assertThat(sink).containsExactly(Map.entry("0/0/-1", "a:o0|null"));
      assertThat(member.participant().quietAdvances()).isPositive();
      OffsetAndMetadata commit =
          member.participant().committableOffsets().get(new TopicPartition(payments, 0));
      String history = JoinCheckpoint.decode(commit.metadata()).history();
      assertThat(history)
          .as("p0 is still pinned (a later order could pair with it): the raise is in h")
          .startsWith("q1:");
      assertThat(Long.parseLong(history.substring(3).split(",")[0])).isGreaterThan(sent + 3_000);
    }
  }

  /** A group whose members join orders with payments, each built by {@code options}. */
  private static TestGroup<String, String, KafkaJoin<String, String, String, String>> group(
      Map<String, Object> config,
      String orders,
      String payments,
      java.util.function.Consumer<KafkaJoin.Builder<String, String, String, String>> options) {
    return new TestGroup<>(
        config,
        new StringDeserializer(),
        new StringDeserializer(),
        List.of(orders, payments),
        consumer -> {
          KafkaJoin.Builder<String, String, String, String> b =
              KafkaJoin.<String, String, String, String>builder(
                      INTERVAL, (k, o, p) -> k + ":" + o + "|" + p)
                  .topics(orders, payments)
                  .consumer(consumer);
          options.accept(b);
          return b.build();
        },
        KafkaJoin::rebalanceListener);
  }

  /** One turn of the loop in KafkaJoin's javadoc: hand the poll over, write, commit. */
  private void loop(
      TestGroup.Member<String, String, KafkaJoin<String, String, String, String>> member,
      ConsumerRecords<String, String> records) {
    KafkaJoin<String, String, String, String> join = member.participant();
    join.onPoll(records, ConsumerRecord::key, ConsumerRecord::value, ConsumerRecord::value);
    write(join.pollResults());
    try {
      member.consumer().commitSync(join.committableOffsets());
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // the next poll completes the rebalance; the task's next owner starts from the last commit
    }
  }

  private void write(List<KafkaJoinRow<String, String>> rows) {
    for (KafkaJoinRow<String, String> r : rows) {
      String before = sink.put(r.id(), r.value());
      if (before != null && !before.equals(r.value())) {
        rewrites.add(r.id() + ": " + before + " -> " + r.value());
      }
    }
  }

  /** One reading, from the rules: per partition verdicts, then pairs and unmatched rows. */
  private Map<String, String> truth(String orders, String payments, Set<String> late) {
    Map<String, String> rows = new TreeMap<>();
    long lateness = LATENESS.toMillis();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Object[]> l = onTime(logs.get(new TopicPartition(orders, p)), lateness, late);
      List<Object[]> r = onTime(logs.get(new TopicPartition(payments, p)), lateness, late);
      Set<Object> matched = new HashSet<>();
      for (Object[] o : l) {
        for (Object[] q : r) {
          if (o[2].equals(q[2]) && INTERVAL.pairs((long) o[1], (long) q[1])) {
            rows.put(p + "/" + o[0] + "/" + q[0], o[2] + ":" + o[3] + "|" + q[3]);
            matched.add(o);
            matched.add(q);
          }
        }
      }
      for (Object[] o : l) {
        if (!matched.contains(o)) {
          rows.put(p + "/" + o[0] + "/-1", o[2] + ":" + o[3] + "|null");
        }
      }
      for (Object[] q : r) {
        if (!matched.contains(q)) {
          rows.put(p + "/-1/" + q[0], q[2] + ":null|" + q[3]);
        }
      }
    }
    return rows;
  }

  private static List<Object[]> onTime(List<Object[]> log, long lateness, Set<String> late) {
    List<Object[]> onTime = new ArrayList<>();
    long watermark = Long.MIN_VALUE;
    for (Object[] r : log) {
      long t = (long) r[1];
      if (t < watermark) {
        late.add((String) r[3]);
      } else {
        onTime.add(r);
      }
      watermark = Math.max(watermark, t - lateness);
    }
    return onTime;
  }

  /**
   * Orders {@code from} to {@code to} of each partition, one a second, keys of five; a payment for
   * most of them, 2 s before to 6 s after its order, in the order of their times with some held
   * back a few places, and now and then one 20 s behind its partition (late).
   */
  private void produce(
      String orders, String payments, int from, int to, Map<TopicPartition, Long> ends) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    List<Object[]> pending = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < PARTITIONS; p++) {
        Random random = new Random(from * 31L + p);
        List<long[]> pays = new ArrayList<>(); // {time, i}
        for (int i = from; i < to; i++) {
          long time = BASE + i * 1_000L - (random.nextInt(8) == 0 ? random.nextInt(4_000) : 0);
          String key = "k" + p + "-" + random.nextInt(5);
          send(producer, sent, pending, orders, p, time, key, "o" + p + "-" + i);
          if (random.nextInt(6) != 0) {
            pays.add(
                new long[] {time - 2_000 + random.nextInt(8_001), i, key.charAt(key.length() - 1)});
          }
        }
        pays.sort((x, y) -> Long.compare(x[0], y[0]));
        for (int j = 0; j < pays.size(); j++) {
          long[] q = pays.get(j);
          long time = random.nextInt(25) == 0 ? q[0] - 20_000 : q[0];
          String key = "k" + p + "-" + (char) q[2];
          send(producer, sent, pending, payments, p, time, key, "p" + p + "-" + q[1]);
        }
      }
      producer.flush();
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata md = sent.get(i).get(); // the truth is what the topics hold
        Object[] r = pending.get(i);
        TopicPartition tp = new TopicPartition(md.topic(), md.partition());
        logs.computeIfAbsent(tp, k -> new ArrayList<>())
            .add(new Object[] {md.offset(), r[0], r[1], r[2]});
        ends.merge(tp, md.offset() + 1, Math::max);
      }
      logs.values().forEach(log -> log.sort((x, y) -> Long.compare((long) x[0], (long) y[0])));
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("a send failed", e);
    }
  }

  private static void send(
      KafkaProducer<String, String> producer,
      List<Future<RecordMetadata>> sent,
      List<Object[]> pending,
      String topic,
      int partition,
      long time,
      String key,
      String value) {
    sent.add(producer.send(new ProducerRecord<>(topic, partition, time, key, value)));
    pending.add(new Object[] {time, key, value});
  }
}
