package io.github.lowwater.examples;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RowKey;
import io.github.lowwater.kafka.TransactionalSink;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo's exactly-once mode ({@code --transactional}): consume, window, produce to an output
 * topic through a {@link TransactionalSink}. Instance {@code a} emits every poll, then dies in the
 * middle of a transaction (its rows sent, nothing committed; its consumer closed without a commit,
 * its producer left open as a dead process leaves it). Instance {@code b}, a restart with the same
 * {@code transactional.id}, fences it (which aborts the open transaction), reads the rest from the
 * group's commits, finishes and emits. The output topic is then read twice: {@code read_committed}
 * holds every (window, partition, key) row exactly once and its sums are the truth computed from
 * what was produced; {@code read_uncommitted} holds {@code a}'s aborted rows too. Exits with status
 * 1 if either check fails. About 15 s once the broker is up.
 */
final class TransactionalDemo {

  static final int PARTITIONS = 6;
  static final Duration WINDOW = Duration.ofMinutes(5);
  static final String[] KEYS = {"line:L1", "line:L2", "line:L3", "line:L4"};

  private TransactionalDemo() {}

  static void run(String bootstrapServers, PrintStream out) throws Exception {
    OnBroker.run(bootstrapServers, out, (bootstrap, started) -> demo(bootstrap, out));
  }

  private static void demo(String bootstrap, PrintStream out) throws Exception {
    String run = "lowwater-tx-demo-" + System.currentTimeMillis();
    String input = run + "-in";
    String output = run + "-out";
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(input, PARTITIONS, (short) 1), new NewTopic(output, 3, (short) 1)))
          .all()
          .get();
    }
    TreeMap<Long, TreeMap<String, Long>> truth = produce(bootstrap, input);
    long records =
        truth.values().stream().flatMap(m -> m.values().stream()).mapToLong(v -> v).sum();
    out.printf(
        "produced %,d records to %s (%d partitions, one hour, up to 30 s out of order)%n",
        records, input, PARTITIONS);

    String transactionalId = run + "-instance";
    TransactionalSink<String, Long> dead =
        instance("a", bootstrap, run, input, output, transactionalId, records / 2, out);
    instance("b", bootstrap, run, input, output, transactionalId, Long.MAX_VALUE, out);
    dead.close(); // fenced by b's initTransactions, which aborted its open transaction

    List<ConsumerRecord<byte[], byte[]>> committed = read(bootstrap, output, "read_committed");
    List<ConsumerRecord<byte[], byte[]>> all = read(bootstrap, output, "read_uncommitted");
    Map<RowKey, Integer> times = new HashMap<>();
    TreeMap<Long, TreeMap<String, Long>> sums = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : committed) {
      RowKey k = RowKey.parse(r.key());
      times.merge(k, 1, Integer::sum);
      sums.computeIfAbsent(k.start(), s -> new TreeMap<>())
          .merge(
              new String(k.key(), StandardCharsets.UTF_8),
              ByteBuffer.wrap(r.value()).getLong(),
              Long::sum);
    }
    boolean once = times.values().stream().allMatch(n -> n == 1);
    boolean exact = sums.equals(truth);
    out.printf(
        "%s: %,d rows read_committed, %,d records read_uncommitted (%,d aborted with a's open"
            + " transaction)%n",
        output, committed.size(), all.size(), all.size() - committed.size());
    out.println("window start          key       rows summed over partitions   truth");
    int shown = 0;
    for (Map.Entry<Long, TreeMap<String, Long>> w : truth.entrySet()) {
      if (shown++ >= 3) {
        break;
      }
      for (Map.Entry<String, Long> k : w.getValue().entrySet()) {
        Long got = sums.getOrDefault(w.getKey(), new TreeMap<>()).get(k.getKey());
        out.printf(
            "%s  %s  %26s  %6d%n", Instant.ofEpochMilli(w.getKey()), k.getKey(), got, k.getValue());
      }
    }
    out.printf("... %d windows in all%n", truth.size());
    out.printf(
        "every row exactly once: %s; sums over partitions equal the truth: %s%n",
        once ? "yes" : "NO", exact ? "yes" : "NO");
    if (!once || !exact) {
      System.exit(1);
    }
  }

  /**
   * One instance: reads and emits every poll until it has read {@code stopAfter} records (then it
   * dies inside a transaction and returns its sink, open) or every partition to its end (then it
   * finishes, emits, and closes everything; returns null).
   */
  private static TransactionalSink<String, Long> instance(
      String name,
      String bootstrap,
      String group,
      String input,
      String output,
      String transactionalId,
      long stopAfter,
      PrintStream out) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(WINDOW, Aggregators.count())
            .allowedLateness(Duration.ofMinutes(1))
            .consumer(consumer)
            .build();
    TransactionalSink<String, Long> sink =
        TransactionalSink.builder(
                windows,
                output,
                Map.of("bootstrap.servers", bootstrap, "transactional.id", transactionalId))
            .keySerializer(new StringSerializer())
            .valueSerializer(new LongSerializer())
            .build();
    consumer.subscribe(List.of(input), windows.rebalanceListener());
    long read = 0;
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      partitions.add(new TopicPartition(input, p));
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("instance " + name + " did not finish within 60 s");
      }
      ConsumerRecords<String, String> polled = consumer.poll(Duration.ofMillis(200));
      windows.onPoll(polled, ConsumerRecord::key, r -> 1L);
      read += polled.count();
      if (read >= stopAfter) {
        List<WindowResult<String, Long>> rows = windows.pollFinalized();
        sink.write(rows); // sent in an open transaction: then the process dies
        consumer.close(); // the listener commits nothing
        out.printf(
            "instance %s: %s, then dies with %d rows sent in an open transaction%n",
            name, sink, rows.size());
        return sink; // not closed: a dead process closes nothing
      }
      windows.emit(sink);
      if (consumer.assignment().size() == PARTITIONS
          && ends.entrySet().stream()
              .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
        windows.finishAll();
        windows.emit(sink);
        out.printf("instance %s: read to the end, %s%n", name, sink);
        sink.close();
        consumer.close();
        return null;
      }
    }
  }

  /** Produces the feed and returns its truth: window start to key to count. */
  private static TreeMap<Long, TreeMap<String, Long>> produce(String bootstrap, String topic)
      throws Exception {
    TreeMap<Long, TreeMap<String, Long>> truth = new TreeMap<>();
    SplittableRandom random = new SplittableRandom(42);
    long end = System.currentTimeMillis() - Duration.ofMinutes(2).toMillis();
    long start = end - Duration.ofHours(1).toMillis();
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "linger.ms", "5"),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < PARTITIONS; p++) {
        for (long t = start + random.nextLong(1_000); t < end; t += 500 + random.nextLong(1_000)) {
          long eventTime = random.nextInt(10) == 0 ? t - random.nextLong(30_000) : t;
          String key = KEYS[random.nextInt(KEYS.length)];
          sends.add(producer.send(new ProducerRecord<>(topic, p, eventTime, key, "1")));
          long windowStart = eventTime - Math.floorMod(eventTime, WINDOW.toMillis());
          truth.computeIfAbsent(windowStart, w -> new TreeMap<>()).merge(key, 1L, Long::sum);
        }
      }
      producer.flush();
      for (Future<RecordMetadata> f : sends) {
        f.get(); // a failed send fails the demo: the truth would be wrong
      }
    }
    return truth;
  }

  /** Every record of {@code topic} under {@code isolation}. */
  private static List<ConsumerRecord<byte[], byte[]>> read(
      String bootstrap, String topic, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          reader.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions);
      while (ends.entrySet().stream().anyMatch(e -> reader.position(e.getKey()) < e.getValue())) {
        reader.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
