package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The broker's transactional settings and the reader's two isolation levels. */
class OutputTopicReaderTest {

  private final LowwaterBroker broker = LowwaterBroker.shared();

  @Test
  void readCommittedSkipsAnAbortedTransactionThatReadUncommittedSees() {
    String topic = "reader-out";
    broker.createTopic(topic, 2);
    Map<String, Object> config = GroupClients.producer(broker.bootstrapServers());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "reader-test");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, "k", "committed-0"));
      producer.send(new ProducerRecord<>(topic, 1, "k", "committed-1"));
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, "k", "aborted"));
      producer.flush();
      producer.abortTransaction();
    }

    assertThat(
            values(OutputTopicReader.readCommitted(broker.bootstrapServers(), topic, deadline())))
        .containsExactlyInAnyOrder("committed-0", "committed-1");
    assertThat(
            values(
                OutputTopicReader.read(
                    broker.bootstrapServers(), topic, IsolationLevel.READ_UNCOMMITTED, deadline())))
        .containsExactlyInAnyOrder("committed-0", "committed-1", "aborted");
  }

  @Test
  void aTopicThatCannotBeCreatedIsRefusedWithItsName() {
    broker.createTopic("reader-twice", 1);
    assertThatThrownBy(() -> broker.createTopic("reader-twice", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reader-twice");
    assertThatThrownBy(() -> broker.createTopic("reader-none", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("partitions must be at least 1, was 0");
  }

  private static Duration deadline() {
    return Duration.ofSeconds(30);
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }
}
