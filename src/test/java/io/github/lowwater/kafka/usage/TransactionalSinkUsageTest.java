package io.github.lowwater.kafka.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RowKey;
import io.github.lowwater.kafka.SinkException;
import io.github.lowwater.kafka.TransactionalSink;
import io.github.lowwater.window.Aggregators;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, item 11: a user tests a service that uses {@link TransactionalSink} with Kafka's {@code
 * MockConsumer} and {@code MockProducer}, from a package of their own, through the public API only
 * ({@code build(Producer)} was package-private, so such a test could not be written). The service
 * is the loop of docs/kafka.md, "Exactly-once results to a Kafka topic".
 */
class TransactionalSinkUsageTest {

  static final String IN = "arrivals";
  static final String OUT = "counts-out";
  static final TopicPartition P0 = new TopicPartition(IN, 0);
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** The user's service: counts arrivals per key in 5-minute windows, exactly once to OUT. */
  static final class CountingService implements AutoCloseable {
    final MockConsumer<String, String> consumer;
    final KafkaWindows<String, Long, Long> windows;
    final TransactionalSink<String, Long> sink;

    CountingService(
        MockConsumer<String, String> consumer,
        MockProducer<byte[], byte[]> producer,
        ManualClock clock) {
      this.consumer = consumer;
      this.windows =
          KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
              .allowedLateness(Duration.ZERO)
              .clock(clock)
              .consumer(consumer)
              .build();
      this.sink =
          TransactionalSink.builder(windows, OUT)
              .keySerializer(new StringSerializer())
              .valueSerializer(new LongSerializer())
              .build(producer);
      consumer.subscribe(List.of(IN), windows.rebalanceListener());
    }

    /** One turn of the loop; returns whether the emit succeeded. */
    boolean turn() {
      windows.onPoll(consumer.poll(Duration.ofMillis(100)), ConsumerRecord::key, r -> 1L);
      try {
        windows.emit(sink);
        return true;
      } catch (SinkException e) {
        if (sink.isClosed()) {
          throw e;
        }
        return false; // aborted: the next turn writes the same rows again
      }
    }

    @Override
    public void close() {
      sink.close();
      consumer.close();
    }
  }

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
  final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());

  static ConsumerRecord<String, String> arrival(long offset, double minute, String key) {
    long millis = T0.toEpochMilli() + (long) (minute * 60_000);
    return new ConsumerRecord<>(
        IN,
        0,
        offset,
        millis,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME,
        0,
        0,
        key,
        "v",
        new org.apache.kafka.common.header.internals.RecordHeaders(),
        java.util.Optional.empty());
  }

  /** The committed records as "start-minute key=count". */
  List<String> committedRows() {
    List<String> rows = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : producer.history()) {
      RowKey k = RowKey.parse(r.key());
      rows.add(
          (k.start() - T0.toEpochMilli()) / 60_000
              + " "
              + new String(k.key(), StandardCharsets.UTF_8)
              + "="
              + ByteBuffer.wrap(r.value()).getLong());
    }
    return rows;
  }

  @Test
  void aServiceUsingTheSinkIsTestedWithAMockProducerThroughThePublicApi() {
    try (CountingService service = new CountingService(consumer, producer, clock)) {
      assertThat(producer.transactionInitialized()).isTrue(); // build(producer) initialized it
      consumer.updateBeginningOffsets(Map.of(P0, 0L));
      consumer.rebalance(List.of(P0));
      consumer.addRecord(arrival(0, 1, "a"));
      consumer.addRecord(arrival(1, 2, "a"));
      consumer.addRecord(arrival(2, 6, "b")); // closes [0, 5)

      assertThat(service.turn()).isTrue();

      assertThat(committedRows()).containsExactly("0 a=2");
      Map<TopicPartition, OffsetAndMetadata> offsets =
          producer.consumerGroupOffsetsHistory().get(0).get(consumer.groupMetadata().groupId());
      assertThat(offsets.get(P0).offset()).isEqualTo(2); // b's window is still open

      // The service's handling of an abortable error: the rows are written again, once.
      consumer.addRecord(arrival(3, 11, "c")); // closes [5, 10)
      producer.sendOffsetsToTransactionException = new CommitFailedException("rebalanced");
      assertThat(service.turn()).isFalse();
      producer.sendOffsetsToTransactionException = null;
      assertThat(committedRows()).containsExactly("0 a=2");
      assertThat(service.turn()).isTrue();
      assertThat(committedRows()).containsExactly("0 a=2", "5 b=1");
    }
    assertThat(producer.closed()).isTrue(); // the sink owns the producer
  }

  @Test
  void buildOverAProducerRefusesProducerSettingsItWouldIgnore() {
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .clock(clock)
            .consumer(consumer)
            .build();
    assertThatThrownBy(
            () ->
                TransactionalSink.builder(windows, OUT, Map.of("transaction.timeout.ms", "30000"))
                    .keySerializer(new StringSerializer())
                    .valueSerializer(new LongSerializer())
                    .build(producer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ignores producerConfig")
        .hasMessageEndingWith("{transaction.timeout.ms=30000}");
    assertThat(producer.transactionInitialized()).isFalse();
    assertThat(producer.closed()).isFalse(); // left untouched
  }
}
