package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The test kit as a user drives it: Lowwater in a group of two on the broker, one member crashes
 * with open windows, another joins in its place (a restart), more records arrive; the rows written
 * equal the truth computed from what was produced, no row is rewritten with another value, and
 * every commit the group holds carries a checkpoint. Both group protocols.
 */
class TestGroupBrokerTest {

  private static final int PARTITIONS = 4;
  private static final String[] KEYS = {"a", "b", "c"};
  private static final long BASE = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private final LowwaterBroker broker = LowwaterBroker.shared();

  /** (window start, partition, key) to count; a rewrite with another value fails the test. */
  private final Map<String, Long> rows = new HashMap<>();

  /** Window start and key to the count produced. */
  private final Map<String, Long> truth = new TreeMap<>();

  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aCrashAndARestartWriteExactlyTheTruth(GroupProtocol protocol) {
    String topic = "kit-" + protocol.name().toLowerCase(java.util.Locale.ROOT);
    String groupId = topic + "-group";
    broker.createTopic(topic, PARTITIONS);
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (TestGroup<String, String, KafkaWindows<String, Long, Long>> group =
        new TestGroup<>(
            GroupClients.consumer(broker.bootstrapServers(), groupId, protocol),
            new StringDeserializer(),
            new StringDeserializer(),
            List.of(topic),
            consumer ->
                KafkaWindows.builder(WINDOW, Aggregators.sumLong()).consumer(consumer).build(),
            KafkaWindows::rebalanceListener)) {
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> a = group.join();
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> b = group.join();
      produce(topic, 0, 300, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);
      assertThat(b.participant().stats().openWindows()).as("b holds open windows").isPositive();

      group.crash(b);
      assertThat(group.live()).containsExactly(a);
      group.awaitStable(DEADLINE, this::loop); // a takes b's partitions from b's commits
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> c = group.join();
      produce(topic, 300, 600, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      for (TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> m : group.live()) {
        m.participant().finishAll(); // the end of this bounded input
        write(m.participant().pollFinalized());
        m.consumer().commitSync(m.participant().committableOffsets());
        assertThat(m.participant().stats().late()).as("late at %s", m).isZero();
      }
      assertThat(c.participant().assignedPartitions()).isNotEmpty();
    }
    Map<String, Long> summed = new TreeMap<>();
    rows.forEach((row, count) -> summed.merge(row.replaceFirst("/\\d+/", "/"), count, Long::sum));
    assertThat(summed).isEqualTo(truth);
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
          CommittedOffsets.of(admin, groupId);
      assertThat(committed).hasSize(PARTITIONS);
      assertThat(CommittedOffsets.withoutMetadata(committed, "lw")).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aMemberThatIsNotLiveCannotLeaveOrCrash(GroupProtocol protocol) {
    String topic = "kit-states-" + protocol.name().toLowerCase(java.util.Locale.ROOT);
    broker.createTopic(topic, 1);
    try (TestGroup<String, String, Object> group =
        new TestGroup<>(
            GroupClients.consumer(broker.bootstrapServers(), topic, protocol),
            new StringDeserializer(),
            new StringDeserializer(),
            List.of(topic),
            consumer -> new Object(),
            participant ->
                new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
                  @Override
                  public void onPartitionsRevoked(java.util.Collection<TopicPartition> p) {}

                  @Override
                  public void onPartitionsAssigned(java.util.Collection<TopicPartition> p) {}
                })) {
      TestGroup.Member<String, String, Object> m = group.join();
      group.leave(m);
      assertThat(m.state()).isEqualTo(TestGroup.State.LEFT);
      assertThatThrownBy(() -> group.crash(m))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("LEFT, not LIVE");
      assertThatThrownBy(() -> group.awaitStable(Duration.ofSeconds(1), (x, r) -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no live member");
    }
  }

  /** One turn of the README's loop for a member: hand the poll over, write, commit. */
  private void loop(
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> member,
      ConsumerRecords<String, String> records) {
    KafkaWindows<String, Long, Long> windows = member.participant();
    windows.onPoll(records, ConsumerRecord::key, r -> 1L);
    write(windows.pollFinalized());
    try {
      member.consumer().commitSync(windows.committableOffsets());
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // the next poll completes the rebalance; the next commit carries the same offsets
    }
  }

  private void write(List<WindowResult<String, Long>> results) {
    for (WindowResult<String, Long> r : results) {
      String row = r.start() + "/" + ((TopicPartition) r.source()).partition() + "/" + r.key();
      Long before = rows.put(row, r.value());
      assertThat(before == null || before.equals(r.value()))
          .as("row %s rewritten from %s to %s", row, before, r.value())
          .isTrue();
    }
  }

  /** Records {@code from} to {@code to} of each partition, one a second, in event-time order. */
  private void produce(String topic, int from, int to, Map<TopicPartition, Long> ends) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < PARTITIONS; p++) {
        for (int i = from; i < to; i++) {
          long time = BASE + i * 1_000L;
          String key = KEYS[(i * 7 + p) % KEYS.length];
          sent.add(producer.send(new ProducerRecord<>(topic, p, time, key, "v")));
          long start = time - Math.floorMod(time, WINDOW.toMillis());
          truth.merge(start + "/" + key, 1L, Long::sum);
        }
        ends.put(new TopicPartition(topic, p), (long) to);
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(); // the truth is what the topic holds: a failed send fails the test
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("a send failed", e);
    }
  }
}
