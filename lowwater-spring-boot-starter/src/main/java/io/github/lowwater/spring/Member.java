package io.github.lowwater.spring;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RecordMapper;
import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.kafka.TransactionalSink;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a listener: its windows, its sink and its meters, built when the container's
 * consumer first gets partitions (the windows need that consumer), and built again for a new
 * consumer after a container restart. Used on the consumer's thread only, but for {@link #close()},
 * which runs after the container has stopped.
 */
final class Member<KR, VR, K, V, R> {
  private static final Logger LOG = LoggerFactory.getLogger(Member.class);

  private final LowwaterListener<KR, VR, K, V, R> spec;
  private final int index;
  private final Map<String, Object> producerConfig;
  private final WindowsObserver observer;
  private final RecordMapper<KR, VR, K, V> mapper;

  private Consumer<?, ?> consumer;
  private KafkaWindows<K, V, R> windows;
  private ConsumerRebalanceListener windowsListener;
  private ResultSink<K, R> sink;
  private AutoCloseable observation;

  Member(
      LowwaterListener<KR, VR, K, V, R> spec,
      int index,
      Map<String, Object> producerConfig,
      WindowsObserver observer) {
    this.spec = spec;
    this.index = index;
    this.producerConfig = producerConfig;
    this.observer = observer;
    this.mapper = spec.mapper();
  }

  String name() {
    return spec.name() + "-" + index;
  }

  /** The windows, once the consumer has had partitions; else null. */
  KafkaWindows<K, V, R> windows() {
    return windows;
  }

  /** Whether the sink cannot be used again (a fatal error closed the transactional sink). */
  boolean sinkClosedForGood() {
    return sink instanceof TransactionalSink<?, ?> t && t.isClosed();
  }

  /** The windows' rebalance listener, for {@code consumer}: new windows for a new consumer. */
  @SuppressWarnings("unchecked")
  ConsumerRebalanceListener listenerFor(Consumer<?, ?> consumer) {
    if (this.consumer != consumer) {
      close();
      this.consumer = consumer;
      windows = spec.newWindows(consumer);
      windowsListener = windows.rebalanceListener();
      sink =
          spec.newSink(
              new SinkContext<>((Consumer<KR, VR>) consumer, windows, spec.name(), index),
              producerConfig);
      observation = observer.windowsCreated(spec.name(), index, windows);
      LOG.info("{}: windows and sink ready for a new consumer", name());
    }
    return windowsListener;
  }

  /** One turn of the README's loop: feed the poll, then write and commit. */
  void onPoll(ConsumerRecords<KR, VR> records) {
    windows.onPoll(records, mapper);
    windows.emit(sink);
  }

  /** The windows' partitions among {@code partitions}: a lost partition is revoked once. */
  List<TopicPartition> held(Collection<TopicPartition> partitions) {
    return windows == null
        ? List.of()
        : partitions.stream().filter(windows.assignedPartitions()::contains).toList();
  }

  /** Drops the windows, closes the sink and the meters; the next consumer builds new ones. */
  void close() {
    if (sink instanceof AutoCloseable c) {
      closeQuietly(c, "sink");
    }
    if (observation != null) {
      closeQuietly(observation, "meters");
    }
    consumer = null;
    windows = null;
    windowsListener = null;
    sink = null;
    observation = null;
  }

  private void closeQuietly(AutoCloseable c, String what) {
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("{}: closing the {} failed", name(), what, e);
    }
  }
}
