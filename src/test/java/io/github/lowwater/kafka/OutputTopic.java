package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a {@link TransactionalSink}'s output topic back, from its beginning to its end as the
 * reader's isolation level sees it: {@code read_committed} stops at the last stable offset and
 * skips aborted records; {@code read_uncommitted} sees them too.
 */
final class OutputTopic {

  private OutputTopic() {}

  /** The pane index of an output record ({@link RowRecords#INDEX_HEADER}). */
  static int index(org.apache.kafka.common.header.Headers headers) {
    return java.nio.ByteBuffer.wrap(headers.lastHeader(RowRecords.INDEX_HEADER).value()).getInt();
  }

  /** Every record of {@code topic} under {@code isolation}, in each partition's order. */
  static List<ConsumerRecord<byte[], byte[]>> read(
      String bootstrap, String topic, String isolation, Duration deadline) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          reader.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions); // read_committed: the LSO
      long stop = System.nanoTime() + deadline.toNanos();
      while (ends.entrySet().stream().anyMatch(e -> reader.position(e.getKey()) < e.getValue())) {
        assertThat(System.nanoTime()).as("reading %s back (%s)", topic, isolation).isLessThan(stop);
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
          records.add(r);
        }
      }
    }
    return records;
  }
}
