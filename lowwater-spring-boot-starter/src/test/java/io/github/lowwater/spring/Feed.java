package io.github.lowwater.spring;

import io.github.lowwater.test.GroupClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Records for the Spring tests, one a second per partition in event-time order, keys a, b, c; and
 * their truth: window start and key to the count, for 10-second windows.
 */
final class Feed {
  static final long WINDOW_MILLIS = 10_000;
  static final String[] KEYS = {"a", "b", "c"};

  final Map<String, Long> truth = new TreeMap<>();
  private final String bootstrap;
  private final String topic;
  private final int partitions;
  private final long base;

  Feed(String bootstrap, String topic, int partitions, long base) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.partitions = partitions;
    this.base = base;
  }

  /** Records {@code from} to {@code to} (seconds after the base) of every partition. */
  void produce(int from, int to) {
    produce(from, to, -1);
  }

  /**
   * As {@link #produce(int, int)}, with the record at {@code poisonAt} of partition 0 valued {@code
   * "poison"} (not in the truth: the mapper throws on it).
   */
  void produce(int from, int to, int poisonAt) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(bootstrap), new StringSerializer(), new StringSerializer())) {
      for (int p = 0; p < partitions; p++) {
        for (int i = from; i < to; i++) {
          long time = base + i * 1_000L;
          String key = KEYS[(i * 7 + p) % KEYS.length];
          boolean poison = p == 0 && i == poisonAt;
          sent.add(
              producer.send(new ProducerRecord<>(topic, p, time, key, poison ? "poison" : "v")));
          if (!poison) {
            truth.merge((time - Math.floorMod(time, WINDOW_MILLIS)) + "/" + key, 1L, Long::sum);
          }
        }
      }
      for (Future<RecordMetadata> f : sent) {
        f.get(); // the truth is what the topic holds
      }
    } catch (Exception e) {
      throw new AssertionError("a send failed", e);
    }
  }
}
