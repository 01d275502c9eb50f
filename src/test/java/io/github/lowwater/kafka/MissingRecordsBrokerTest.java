package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Semantics rules 64 and 65 on the real broker, under both group protocols. A first instance reads
 * every record, writes the rows it can and commits; then a tool recommits one partition's offset
 * without its checkpoint ({@code Admin.alterConsumerGroupOffsets}) and retention is played by
 * {@code Admin.deleteRecords} above another partition's committed offset. An instance with {@code
 * missingRecordsPolicy(FAIL)} then throws, naming a damaged partition, its committed offset and its
 * log start; an instance with the default {@code MARK} reads on and writes incomplete rows for the
 * damaged partitions only. The sink upserts complete rows and inserts incomplete ones only where it
 * has none (docs/kafka.md): every row it holds as complete is the truth computed from what was
 * produced, and the complete rows the first instance wrote are never overwritten.
 */
class MissingRecordsBrokerTest {

  static final int PARTITIONS = 3;
  static final Duration DEADLINE = Duration.ofSeconds(60);
  static final long WINDOW = Duration.ofMinutes(1).toMillis();

  static LowwaterBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = LowwaterBroker.shared();
  }

  @Test
  void classicARecommitWithoutTheCheckpointAndDeletedRecordsGiveIncompleteRowsOrTheException()
      throws Exception {
    run("classic", Map.of());
  }

  @Test
  void kip848ARecommitWithoutTheCheckpointAndDeletedRecordsGiveIncompleteRowsOrTheException()
      throws Exception {
    run("kip848", Map.of("group.protocol", "consumer"));
  }

  /** (window start, partition, key) to the row's value and whether it was complete. */
  final Map<List<Object>, long[]> sink = new HashMap<>();

  void write(List<WindowResult<String, Long>> rows) {
    for (WindowResult<String, Long> r : rows) {
      List<Object> key =
          Arrays.asList(r.start(), ((TopicPartition) r.source()).partition(), r.key());
      if (r.isComplete()) {
        sink.put(key, new long[] {r.value(), 1});
      } else {
        sink.putIfAbsent(key, new long[] {r.value(), 0}); // insert if absent
      }
    }
  }

  KafkaWindows<String, Long, Long> windows(
      KafkaConsumer<String, String> consumer, MissingRecordsPolicy policy) {
    return KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.count())
        .allowedLateness(Duration.ofSeconds(10))
        .missingRecordsPolicy(policy)
        .consumer(consumer)
        .build();
  }

  void run(String protocolName, Map<String, String> protocol) throws Exception {
    String topic = "missing-" + protocolName;
    String group = "missing-test-" + protocolName;
    broker.createTopic(topic, PARTITIONS);
    Map<List<Object>, Long> truth = new HashMap<>();
    long base = (System.currentTimeMillis() - Duration.ofHours(2).toMillis()) / WINDOW * WINDOW;
    try (Admin admin = broker.admin();
        KafkaProducer<String, String> producer = Feed.producer(broker.bootstrapServers())) {
      produce(producer, topic, base, 0, 600, truth);

      // A reads everything, writes, commits: each commit waits at the open window.
      Map<TopicPartition, OffsetAndMetadata> committed;
      try (KafkaConsumer<String, String> a =
          Feed.consumer(broker.bootstrapServers(), group, protocol)) {
        KafkaWindows<String, Long, Long> wa = windows(a, MissingRecordsPolicy.MARK);
        a.subscribe(List.of(topic), wa.rebalanceListener());
        Map<TopicPartition, Long> ends = ProgressGroupBrokerTest.ends(admin, topic);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (a.assignment().size() < PARTITIONS || !drained(a, ends)) {
          assertThat(System.nanoTime()).as("A read everything in time").isLessThan(deadline);
          wa.onPoll(a.poll(Duration.ofMillis(50)), ConsumerRecord::key, r -> 1L);
          write(wa.pollFinalized());
          a.commitSync(wa.committableOffsets());
        }
        write(wa.pollFinalized());
        committed = wa.committableOffsets();
        a.commitSync(committed);
        assertThat(wa.missingRecordsEvents()).isZero();
      }
      Map<List<Object>, long[]> writtenByA = new HashMap<>(sink);
      assertThat(writtenByA.values()).isNotEmpty().allMatch(v -> v[1] == 1);

      TopicPartition p0 = new TopicPartition(topic, 0);
      TopicPartition p1 = new TopicPartition(topic, 1);
      long c0 = committed.get(p0).offset();
      long c1 = committed.get(p1).offset();
      assertThat(c0).as("the commit trails the log end").isLessThan(600);
      // A tool recommits p0 at the same offset, without the checkpoint.
      admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(c0))).all().get();
      // Retention deletes p1's records up to 20 past its committed offset.
      long logStart1 = c1 + 20;
      admin.deleteRecords(Map.of(p1, RecordsToDelete.beforeOffset(logStart1))).all().get();
      produce(producer, topic, base, 600, 800, truth);

      // FAIL: the exception names a damaged partition, its commit and its log start.
      try (KafkaConsumer<String, String> f =
          Feed.consumer(broker.bootstrapServers(), group, protocol)) {
        KafkaWindows<String, Long, Long> wf = windows(f, MissingRecordsPolicy.FAIL);
        f.subscribe(List.of(topic), wf.rebalanceListener());
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        MissingRecordsException thrown = null;
        while (thrown == null) {
          assertThat(System.nanoTime()).as("FAIL threw in time").isLessThan(deadline);
          try {
            wf.onPoll(f.poll(Duration.ofMillis(50)), ConsumerRecord::key, r -> 1L);
          } catch (MissingRecordsException e) {
            thrown = e;
          }
          write(wf.pollFinalized());
        }
        assertThat(thrown.partition()).isIn(p0, p1);
        if (thrown.partition().equals(p1)) {
          assertThat(thrown.committedOffset()).isEqualTo(c1);
          assertThat(thrown.logStartOffset()).isEqualTo(logStart1);
        } else {
          assertThat(thrown.committedOffset()).isEqualTo(c0);
          assertThat(thrown.getMessage()).contains("without a checkpoint");
        }
        assertThat(f.committed(java.util.Set.of(p0)).get(p0).metadata())
            .as("nothing was committed over the gap")
            .isEmpty();
      }

      // MARK: B reads on; the damaged partitions' first rows are incomplete.
      Map<Integer, Integer> incomplete = new HashMap<>();
      try (KafkaConsumer<String, String> b =
          Feed.consumer(broker.bootstrapServers(), group, protocol)) {
        KafkaWindows<String, Long, Long> wb = windows(b, MissingRecordsPolicy.MARK);
        b.subscribe(List.of(topic), wb.rebalanceListener());
        Map<TopicPartition, Long> ends = ProgressGroupBrokerTest.ends(admin, topic);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (b.assignment().size() < PARTITIONS || !drained(b, ends)) {
          assertThat(System.nanoTime()).as("B read everything in time").isLessThan(deadline);
          wb.onPoll(b.poll(Duration.ofMillis(50)), ConsumerRecord::key, r -> 1L);
          List<WindowResult<String, Long>> rows = wb.pollFinalized();
          for (WindowResult<String, Long> r : rows) {
            if (!r.isComplete()) {
              incomplete.merge(((TopicPartition) r.source()).partition(), 1, Integer::sum);
            }
          }
          write(rows);
          b.commitSync(wb.committableOffsets());
        }
        assertThat(wb.missingRecordsEvents()).isEqualTo(2);
        assertThat(wb.incompleteRows()).isPositive();
      }
      assertThat(incomplete.keySet()).as("only the damaged partitions").containsOnly(0, 1);
      writtenByA.forEach(
          (key, row) ->
              assertThat(sink.get(key)).as("A's complete row %s stays", key).isEqualTo(row));
      sink.forEach(
          (key, row) -> {
            if (row[1] == 1) {
              assertThat(row[0])
                  .as("the complete row %s is the truth", key)
                  .isEqualTo(truth.get(key));
            }
          });
    }
  }

  static boolean drained(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
    for (TopicPartition tp : consumer.assignment()) {
      if (consumer.position(tp) < ends.get(tp)) {
        return false;
      }
    }
    return true;
  }

  /** Records {@code from} to {@code to} of every partition, a second apart, seven keys. */
  static void produce(
      KafkaProducer<String, String> producer,
      String topic,
      long base,
      int from,
      int to,
      Map<List<Object>, Long> truth)
      throws Exception {
    for (int i = from; i < to; i++) {
      for (int p = 0; p < PARTITIONS; p++) {
        long t = base + i * 1_000L;
        String key = "k" + (i % 7);
        producer.send(new ProducerRecord<>(topic, p, t, key, "v"));
        truth.merge(Arrays.asList(t / WINDOW * WINDOW, p, key), 1L, Long::sum);
      }
    }
    producer.flush();
  }
}
