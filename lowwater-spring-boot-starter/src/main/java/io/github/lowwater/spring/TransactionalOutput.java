package io.github.lowwater.spring;

import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.kafka.TransactionalSink;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;

/** A listener's transactional output: one {@link TransactionalSink} per consumer. */
final class TransactionalOutput<K, R> {
  private final String topic;
  private final Serializer<K> keySerializer;
  private final Serializer<R> valueSerializer;
  private final String transactionalIdPrefix;

  TransactionalOutput(
      String topic,
      Serializer<K> keySerializer,
      Serializer<R> valueSerializer,
      String transactionalIdPrefix) {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank, was '" + topic + "'");
    }
    if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
      throw new IllegalArgumentException(
          "transactionalIdPrefix must not be blank, was '" + transactionalIdPrefix + "'");
    }
    this.topic = topic;
    this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
    this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
    this.transactionalIdPrefix = transactionalIdPrefix;
  }

  /** The {@code transactional.id} of a listener's consumer {@code index}. */
  String transactionalId(String listener, int index) {
    return transactionalIdPrefix + "-" + listener + "-" + index;
  }

  <KR, VR, V> ResultSink<K, R> sink(
      SinkContext<KR, VR, K, V, R> context, Map<String, Object> hostProducer) {
    Map<String, Object> config = new HashMap<>(hostProducer);
    // The sink sends bytes and owns its transactions: the host's serializers and transaction
    // prefix are not its own.
    config.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
    config.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
    config.put(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        transactionalId(context.listener(), context.index()));
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.putIfAbsent(
        ProducerConfig.CLIENT_ID_CONFIG, "lowwater-" + context.listener() + "-" + context.index());
    return TransactionalSink.builder(context.windows(), topic, config)
        .keySerializer(keySerializer)
        .valueSerializer(valueSerializer)
        .build();
  }
}
