package io.github.lowwater.kafka;

import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One instance of the transactional pipeline, the README loop with {@link KafkaWindows#emit} and a
 * {@link TransactionalSink}: one-minute windows per partition, counting records, group protocol
 * {@code consumer}, input read {@code read_committed}. Run as its own JVM by {@link
 * TransactionalSinkKillTest} ({@link #main}), which kills it, and in that test's JVM as the
 * successor ({@link #run}).
 */
final class TransactionalInstance {

  static final Duration WINDOW = Duration.ofMinutes(1);

  /** What the child prints once it is blocked inside a transaction, then one key per line. */
  static final String IN_TRANSACTION = "IN-TRANSACTION";

  private TransactionalInstance() {}

  /**
   * The child: {@code bootstrap input group output transactionalId}. Emits every poll; in its third
   * transaction with rows it stops before {@code commitTransaction}, its rows in the log and its
   * offsets sent, prints {@link #IN_TRANSACTION} and the keys of the rows, and waits to be killed.
   */
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int[] withRows = {0};
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, args[2])) {
      KafkaWindows<String, Long, Long> windows = windows(consumer);
      DyingProducer producer = new DyingProducer(producer(bootstrap, args[4]));
      producer.beforeCommit =
          () -> {
            if (!producer.sentInTransaction().isEmpty() && ++withRows[0] == 3) {
              StringBuilder out = new StringBuilder(IN_TRANSACTION).append('\n');
              for (ProducerRecord<byte[], byte[]> r : producer.sentInTransaction()) {
                out.append(HexFormat.of().formatHex(r.key())).append('\n');
              }
              System.out.print(out);
              System.out.flush();
              while (true) {
                try {
                  Thread.sleep(60_000); // until SIGKILL
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            }
          };
      TransactionalSink<String, Long> sink = sink(windows, args[3], producer);
      consumer.subscribe(List.of(args[1]), windows.rebalanceListener());
      while (true) {
        windows.onPoll(consumer.poll(Duration.ofMillis(200)), ConsumerRecord::key, r -> 1L);
        windows.emit(sink);
      }
    }
  }

  /**
   * The successor, in the calling JVM: reads until every partition is assigned here and read to
   * {@code ends}, then finishes, emits and closes. Returns the sink's summary.
   */
  static String run(
      String bootstrap,
      String input,
      String group,
      String output,
      String transactionalId,
      Map<org.apache.kafka.common.TopicPartition, Long> ends,
      Duration deadline) {
    long stop = System.nanoTime() + deadline.toNanos();
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group)) {
      KafkaWindows<String, Long, Long> windows = windows(consumer);
      try (TransactionalSink<String, Long> sink =
          sink(windows, output, producer(bootstrap, transactionalId))) {
        consumer.subscribe(List.of(input), windows.rebalanceListener());
        while (!atEnd(consumer, ends)) {
          if (System.nanoTime() > stop) {
            throw new AssertionError("the successor did not read to the end within " + deadline);
          }
          windows.onPoll(consumer.poll(Duration.ofMillis(200)), ConsumerRecord::key, r -> 1L);
          windows.emit(sink);
        }
        windows.finishAll();
        windows.emit(sink);
        return sink.toString();
      }
    }
  }

  private static boolean atEnd(
      KafkaConsumer<String, String> consumer,
      Map<org.apache.kafka.common.TopicPartition, Long> ends) {
    if (!consumer.assignment().equals(ends.keySet())) {
      return false;
    }
    return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
    return Feed.consumer(
        bootstrap,
        group,
        Map.of(
            "group.protocol", "consumer",
            "isolation.level", "read_committed",
            "max.poll.records", "200"));
  }

  static KafkaWindows<String, Long, Long> windows(KafkaConsumer<String, String> consumer) {
    return KafkaWindows.builder(WINDOW, Aggregators.count())
        .allowedLateness(Duration.ZERO)
        .quietAdvanceAfter(Duration.ofHours(1))
        .consumer(consumer)
        .build();
  }

  static KafkaProducer<byte[], byte[]> producer(String bootstrap, String transactionalId) {
    return new KafkaProducer<>(
        producerConfig(bootstrap, transactionalId),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  static Map<String, Object> producerConfig(String bootstrap, String transactionalId) {
    return Map.of(
        "bootstrap.servers", bootstrap,
        "transactional.id", transactionalId,
        "transaction.timeout.ms", "30000");
  }

  static TransactionalSink<String, Long> sink(
      KafkaWindows<String, Long, Long> windows,
      String output,
      org.apache.kafka.clients.producer.Producer<byte[], byte[]> producer) {
    return TransactionalSink.builder(windows, output) // the producer is given
        .keySerializer(new StringSerializer())
        .valueSerializer(new LongSerializer())
        .build(producer);
  }
}
