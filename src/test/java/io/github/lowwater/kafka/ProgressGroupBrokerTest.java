package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The progress group on the real broker (issue 33), under both group protocols: instances of one
 * consumer group commit their processed positions under a second group id through an {@code Admin};
 * read with {@code Admin.listConsumerGroupOffsets}, that group follows the positions through
 * scaling out and in and through an instance's crash (every partition at its log end once read,
 * whoever owns it), while the consumer group's own commits are exactly the checkpoints the
 * instances committed, trailing by the open windows.
 */
class ProgressGroupBrokerTest {

  static final int PARTITIONS = 3;
  static final Duration DEADLINE = Duration.ofSeconds(60);

  static LowwaterBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = LowwaterBroker.shared();
  }

  @Execution(ExecutionMode.CONCURRENT)
  @Test
  void classicProgressGroupFollowsScalingAndACrashAndLeavesTheGroupsCommitsAlone()
      throws Exception {
    run("classic", Map.of());
  }

  @Execution(ExecutionMode.CONCURRENT)
  @Test
  void kip848ProgressGroupFollowsScalingAndACrashAndLeavesTheGroupsCommitsAlone() throws Exception {
    run("kip848", Map.of("group.protocol", "consumer"));
  }

  /** One instance: its consumer, its windows, and what it committed to the consumer group. */
  final class Instance implements AutoCloseable {
    final KafkaConsumer<String, String> consumer;
    final KafkaWindows<String, Long, Long> windows;

    Instance(String topic, String group, Admin admin, Map<String, String> protocol) {
      Map<String, String> extra = new HashMap<>(protocol);
      extra.put("max.partition.fetch.bytes", "4096"); // small polls
      extra.put("max.poll.interval.ms", "5000"); // a frozen member leaves after 5 s
      if (protocol.isEmpty()) { // classic: a member closed without leaving goes after 6 s
        extra.put("session.timeout.ms", "6000");
        extra.put("heartbeat.interval.ms", "1000");
      }
      consumer = Feed.consumer(broker.bootstrapServers(), group, extra);
      windows =
          KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
              .allowedLateness(Duration.ofSeconds(30))
              .consumer(consumer)
              .progressGroup(admin, group + ".progress", Duration.ofMillis(100))
              .build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());
    }

    void step(Map<TopicPartition, OffsetAndMetadata> committed) {
      windows.onPoll(consumer.poll(Duration.ofMillis(50)), ConsumerRecord::key, r -> 1L);
      windows.pollFinalized(); // a sink would write them here
      Map<TopicPartition, OffsetAndMetadata> offsets = windows.committableOffsets();
      try {
        consumer.commitSync(offsets);
        committed.putAll(offsets);
      } catch (org.apache.kafka.common.errors.RebalanceInProgressException
          | org.apache.kafka.clients.consumer.CommitFailedException e) {
        // the next commit, or the next owner, starts from the last one
      }
    }

    boolean drained(Map<TopicPartition, Long> ends) {
      for (TopicPartition tp : consumer.assignment()) {
        if (consumer.position(tp) < ends.get(tp)) {
          return false;
        }
      }
      return true;
    }

    /**
     * Dies as a process would (docs: kafka-testing-notes): classic, closed without leaving the
     * group and without a callback; KIP-848, whose client leaves a dynamic member at any close,
     * frozen: no more polls, the member goes after {@code max.poll.interval.ms}.
     */
    void crash(boolean classic) {
      crashed = true;
      if (classic) {
        consumer.close(
            org.apache.kafka.clients.consumer.CloseOptions.groupMembershipOperation(
                    org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation
                        .REMAIN_IN_GROUP)
                .withTimeout(Duration.ZERO));
        closed = true;
      }
    }

    boolean crashed;
    boolean closed;

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        consumer.close();
      }
    }
  }

  void run(String protocolName, Map<String, String> protocol) throws Exception {
    String topic = "progress-" + protocolName;
    String group = "progress-test-" + protocolName;
    broker.createTopic(topic, PARTITIONS);
    Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
    try (Admin admin = broker.admin();
        KafkaProducer<String, String> producer = Feed.producer(broker.bootstrapServers())) {
      long base = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
      produce(producer, topic, base, 0, 200);
      Instance a = new Instance(topic, group, admin, protocol);
      Instance b = null;
      try {
        // One instance reads everything.
        Map<TopicPartition, Long> ends = ends(admin, topic);
        awaitDrained(List.of(a), ends, committed);
        assertProgressAt(admin, group + ".progress", ends);
        assertTheGroupHoldsExactlyWhatWasCommitted(admin, group, committed, ends);

        // Scale out: a second instance joins, more records come.
        b = new Instance(topic, group, admin, protocol);
        produce(producer, topic, base, 200, 400);
        ends = ends(admin, topic);
        awaitDrained(List.of(a, b), ends, committed);
        assertThat(b.consumer.assignment()).as("the second instance took partitions").isNotEmpty();
        assertProgressAt(admin, group + ".progress", ends);
        assertTheGroupHoldsExactlyWhatWasCommitted(admin, group, committed, ends);

        // Scale in: the second instance leaves, its partitions go back, more records come.
        b.close();
        b = null;
        produce(producer, topic, base, 400, 500);
        ends = ends(admin, topic);
        awaitDrained(List.of(a), ends, committed);
        assertThat(a.consumer.assignment()).hasSize(PARTITIONS);
        assertProgressAt(admin, group + ".progress", ends);
        assertTheGroupHoldsExactlyWhatWasCommitted(admin, group, committed, ends);
        assertThat(a.windows.progressCommits()).isPositive();

        // A crash: a second instance takes partitions, then dies without a commit or a leave;
        // its partitions move after the timeout, and the progress group follows them.
        b = new Instance(topic, group, admin, protocol);
        produce(producer, topic, base, 500, 600);
        ends = ends(admin, topic);
        awaitDrained(List.of(a, b), ends, committed);
        assertThat(b.consumer.assignment())
            .as("the instance to crash holds partitions")
            .isNotEmpty();
        b.crash(protocol.isEmpty());
        produce(producer, topic, base, 600, 700);
        ends = ends(admin, topic);
        awaitDrained(List.of(a), ends, committed); // once a holds every partition again
        assertProgressAt(admin, group + ".progress", ends);
        assertTheGroupHoldsExactlyWhatWasCommitted(admin, group, committed, ends);
      } finally {
        a.close();
        if (b != null) {
          b.close();
        }
      }
    }
  }

  /** Records {@code from} to {@code to} of every partition, a second apart in event time. */
  static void produce(
      KafkaProducer<String, String> producer, String topic, long base, int from, int to)
      throws Exception {
    for (int i = from; i < to; i++) {
      for (int p = 0; p < PARTITIONS; p++) {
        producer.send(new ProducerRecord<>(topic, p, base + i * 1_000L, "k" + (i % 7), "v"));
      }
    }
    producer.flush();
  }

  static Map<TopicPartition, Long> ends(Admin admin, String topic)
      throws ExecutionException, InterruptedException {
    Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  /**
   * Polls every instance in turn until each holds partitions and has read them to the end, and
   * every partition is assigned.
   */
  static void awaitDrained(
      List<Instance> instances,
      Map<TopicPartition, Long> ends,
      Map<TopicPartition, OffsetAndMetadata> committed) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      int assigned = 0;
      boolean drained = true;
      for (Instance i : instances) {
        i.step(committed);
        assigned += i.consumer.assignment().size();
        drained &= i.drained(ends) && !i.consumer.assignment().isEmpty(); // each holds some
      }
      if (drained && assigned == PARTITIONS) {
        for (int n = 0; n < 5; n++) { // a few more polls: the progress group's interval passes
          for (Instance i : instances) {
            i.step(committed);
          }
        }
        return;
      }
      assertThat(System.nanoTime()).as("drained before the deadline").isLessThan(deadline);
    }
  }

  /** The progress group reaches the log ends (a call in flight lands within the deadline). */
  static void assertProgressAt(Admin admin, String progressGroup, Map<TopicPartition, Long> ends)
      throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    Map<TopicPartition, Long> seen = Map.of();
    while (System.nanoTime() < deadline) {
      Map<TopicPartition, Long> now = new HashMap<>();
      admin
          .listConsumerGroupOffsets(progressGroup)
          .partitionsToOffsetAndMetadata()
          .get()
          .forEach((tp, om) -> now.put(tp, om.offset()));
      seen = now;
      if (now.equals(ends)) {
        return;
      }
      Thread.sleep(50); // polling with a deadline
    }
    assertThat(seen).as("the progress group at the log ends").isEqualTo(ends);
  }

  /**
   * The consumer group's commits are exactly the last ones the instances made (checkpoints in the
   * metadata), not the progress group's positions: some partition trails its log end.
   */
  static void assertTheGroupHoldsExactlyWhatWasCommitted(
      Admin admin,
      String group,
      Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, Long> ends)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> real =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    assertThat(describe(real)).isEqualTo(describe(committed));
    assertThat(real.values()).allSatisfy(om -> assertThat(om.metadata()).startsWith("lw1;"));
    assertThat(real.entrySet())
        .as("the commit trails by the open windows")
        .anySatisfy(e -> assertThat(e.getValue().offset()).isLessThan(ends.get(e.getKey())));
  }

  /** Offset and metadata by partition: the leader epoch the broker adds is not compared. */
  static Map<TopicPartition, String> describe(Map<TopicPartition, OffsetAndMetadata> offsets) {
    Map<TopicPartition, String> d = new HashMap<>();
    offsets.forEach((tp, om) -> d.put(tp, om.offset() + " " + om.metadata()));
    return d;
  }
}
