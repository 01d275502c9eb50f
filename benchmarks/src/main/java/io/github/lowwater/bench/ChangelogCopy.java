package io.github.lowwater.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka Streams application's handed-over state, copied under another application id for {@link
 * HandOver}: every changelog topic (the same partitions and topic configs; every record with its
 * key, value, timestamp and headers, tombstones included, in order) and the committed offsets of
 * its group with their metadata (where Kafka Streams keeps the partition time). An instance of the
 * copy restores exactly what the original's next instance would. Needed because an instance that
 * ran writes to its changelogs when it closes, clean or not (its caches flush), so each round's
 * instance gets a fresh copy of the first instance's state. Untimed. Not thread-safe.
 */
final class ChangelogCopy {

  private ChangelogCopy() {}

  /**
   * Copies the changelogs and the committed offsets of application {@code from} to application
   * {@code to}, which must not exist yet.
   *
   * @return the changelog records copied
   */
  static long copy(InProcessBroker broker, String from, String to) throws Exception {
    long copied = 0;
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (Admin admin = broker.admin();
        KafkaConsumer<byte[], byte[]> consumer = consumer(broker.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers())) {
      for (String topic : admin.listTopics().names().get()) {
        if (!topic.startsWith(from + "-") || !topic.endsWith("-changelog")) {
          continue;
        }
        String target = to + topic.substring(from.length());
        int partitions =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .size();
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        Map<String, String> configs =
            config.entries().stream()
                .filter(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
                .collect(Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
        broker.createTopic(target, partitions, configs);
        for (int p = 0; p < partitions; p++) {
          TopicPartition tp = new TopicPartition(topic, p);
          consumer.assign(List.of(tp));
          consumer.seekToBeginning(List.of(tp));
          long end = consumer.endOffsets(List.of(tp)).get(tp);
          while (consumer.position(tp) < end) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
              producer.send(
                  new ProducerRecord<>(target, p, r.timestamp(), r.key(), r.value(), r.headers()),
                  (metadata, e) -> {
                    if (e != null) {
                      failure.compareAndSet(null, e);
                    }
                  });
              copied++;
            }
          }
        }
      }
      producer.flush();
      if (failure.get() != null) {
        throw new IllegalStateException("copying the changelogs of " + from, failure.get());
      }
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(from).partitionsToOffsetAndMetadata().get();
      admin.alterConsumerGroupOffsets(to, committed).all().get();
    }
    return copied;
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Idempotent (the default): retries keep the records in order. */
  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
