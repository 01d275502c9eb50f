package io.github.lowwater.kafka;

import io.github.lowwater.test.GroupClients;
import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** A synthetic feed for the broker tests, its ground truth, and client factories. */
final class Feed {

  static final String[] KEYS = {"line:L1", "line:L2", "line:L3"};

  private final List<Event> events = new ArrayList<>();

  /** Appends, on each listed partition, events in order from start (inclusive) to end. */
  Feed append(int[] partitions, long startMillis, long endMillis, long intervalMillis, long seed) {
    for (List<Event> partition :
        SyntheticFeed.generate(partitions, KEYS, startMillis, endMillis, intervalMillis, seed)) {
      events.addAll(partition);
    }
    return this;
  }

  List<Event> events() {
    return events;
  }

  /**
   * Sends the events with their event time as the record timestamp and returns what the topic
   * received, read back from it: the ground truth of a test is what is in the topic. On a loaded
   * machine a send can fail (seen in CI: a request timeout, then OUT_OF_ORDER_SEQUENCE_NUMBER on
   * the idempotent retries until the delivery timeout); such a record is not in the topic and must
   * not be in the truth. Reading back also keeps a record that was written but reported failed.
   */
  static List<Event> produce(String bootstrap, String topic, List<Event> events) {
    Set<Integer> partitions = new TreeSet<>();
    for (Event e : events) {
      partitions.add(e.partition());
    }
    List<TopicPartition> tps = new ArrayList<>();
    for (int p : partitions) {
      tps.add(new TopicPartition(topic, p));
    }
    try (KafkaConsumer<String, String> reader = consumer(bootstrap, "feed-reader", Map.of())) {
      Map<TopicPartition, Long> before = reader.endOffsets(tps);
      int failed = 0;
      try (KafkaProducer<String, String> producer = producer(bootstrap)) {
        List<Future<RecordMetadata>> sends = new ArrayList<>(events.size());
        for (Event e : events) {
          sends.add(
              producer.send(
                  new ProducerRecord<>(topic, e.partition(), e.eventTimeMillis(), e.key(), "1")));
        }
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
          try {
            send.get();
          } catch (ExecutionException e) {
            failed++;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while producing", e);
          }
        }
      }
      if (failed > 0) {
        System.err.printf(
            "Feed.produce: %d of %d sends to %s failed; the truth is read back from the topic%n",
            failed, events.size(), topic);
      }
      Map<TopicPartition, Long> after = reader.endOffsets(tps);
      return readBack(reader, before, after);
    }
  }

  /** The records between two sets of end offsets, as events, partition by partition. */
  private static List<Event> readBack(
      KafkaConsumer<String, String> reader,
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> to) {
    reader.assign(from.keySet());
    from.forEach(reader::seek);
    List<Event> events = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (from.keySet().stream().anyMatch(tp -> reader.position(tp) < to.get(tp))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("could not read back the produced records: " + to);
      }
      for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        if (r.offset() < to.get(tp)) {
          events.add(new Event(r.partition(), r.timestamp(), r.key()));
        }
      }
    }
    return events;
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    return producer(bootstrap, Map.of());
  }

  /**
   * The test kit's idempotent producer, one request in flight ({@link GroupClients#producer}: no
   * retry reorders or duplicates a partition's records, so the ground truth and the in-order
   * premise hold), with large batches.
   *
   * @param extra settings on top, such as a small {@code batch.size}
   */
  static KafkaProducer<String, String> producer(String bootstrap, Map<String, String> extra) {
    Map<String, Object> p = GroupClients.producer(bootstrap);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    p.putAll(extra);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  static KafkaConsumer<String, String> consumer(
      String bootstrap, String group, Map<String, String> extra) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    p.putAll(extra);
    return new KafkaConsumer<>(p);
  }

  /** Window start to key to count of the given events. */
  static TreeMap<Long, TreeMap<String, Long>> truth(List<Event> events, long windowMillis) {
    return SyntheticFeed.truthOf(events, windowMillis);
  }
}
