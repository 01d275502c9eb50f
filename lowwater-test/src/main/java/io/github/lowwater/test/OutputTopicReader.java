package io.github.lowwater.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic back whole, as a reader with a given isolation level sees it, without a group: from
 * each partition's beginning to its end, which for {@code read_committed} is the last stable offset
 * (records of open transactions are not read, aborted ones are skipped), and for {@code
 * read_uncommitted} the log end. For asserting what a transactional sink wrote.
 */
public final class OutputTopicReader {

  private OutputTopicReader() {}

  /**
   * Every committed record of {@code topic}, in each partition's order (partitions one after the
   * other, in the order they were read).
   *
   * @param bootstrapServers the broker's address
   * @param topic the topic
   * @param deadline how long the reading may take
   * @return the records, keys and values as bytes
   * @throws AssertionError if the end is not reached by the deadline
   */
  public static List<ConsumerRecord<byte[], byte[]>> readCommitted(
      String bootstrapServers, String topic, Duration deadline) {
    return read(bootstrapServers, topic, IsolationLevel.READ_COMMITTED, deadline);
  }

  /**
   * Every record of {@code topic} that a reader with {@code isolation} sees.
   *
   * @param bootstrapServers the broker's address
   * @param topic the topic, which must exist
   * @param isolation {@code READ_COMMITTED} or {@code READ_UNCOMMITTED}
   * @param deadline how long the reading may take
   * @return the records, keys and values as bytes
   * @throws AssertionError if the end is not reached by the deadline
   */
  public static List<ConsumerRecord<byte[], byte[]>> read(
      String bootstrapServers, String topic, IsolationLevel isolation, Duration deadline) {
    Objects.requireNonNull(topic, "topic");
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          reader.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions); // read_committed: the LSO
      long stop = System.nanoTime() + deadline.toNanos();
      while (ends.entrySet().stream().anyMatch(e -> reader.position(e.getKey()) < e.getValue())) {
        if (System.nanoTime() - stop > 0) {
          throw new AssertionError(
              "reading " + topic + " back (" + isolation + ") took longer than " + deadline);
        }
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
          records.add(r);
        }
      }
    }
    return records;
  }
}
