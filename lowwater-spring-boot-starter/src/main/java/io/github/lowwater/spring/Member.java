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

  /** The consumer whose windows could not be built at its assignment; null otherwise. */
  private Consumer<?, ?> failedFor;

  private Runnable stopper = () -> {};

  /** Read by other threads (LowwaterContainer.windows(i), for stats): volatile. */
  private volatile KafkaWindows<K, V, R> windows;

  private ConsumerRebalanceListener windowsListener;
  private ResultSink<K, R> sink;
  private WindowsObserver.Observation observation;

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
  ConsumerRebalanceListener listenerFor(Consumer<?, ?> consumer) {
    if (this.consumer != consumer) {
      build(consumer);
    }
    return windowsListener;
  }

  /**
   * Builds the windows, the sink and the meters for {@code consumer}, all or none: if one cannot be
   * built (a transactional producer that cannot initialize, a sink factory that throws), the member
   * keeps no windows and the next poll (or idle tick) tries again.
   */
  @SuppressWarnings("unchecked")
  private void build(Consumer<?, ?> consumer) {
    close();
    failedFor = consumer;
    KafkaWindows<K, V, R> w = spec.newWindows(consumer);
    ResultSink<K, R> s = null;
    try {
      s =
          spec.newSink(
              new SinkContext<>((Consumer<KR, VR>) consumer, w, spec.name(), index),
              producerConfig);
      WindowsObserver.Observation o = observer.windowsCreated(spec, index, w);
      this.consumer = consumer;
      this.windows = w;
      this.windowsListener = w.rebalanceListener();
      this.sink = s;
      this.observation = o;
      failedFor = null;
      LOG.info("{}: windows and sink ready for a new consumer", name());
    } catch (RuntimeException e) {
      if (s instanceof AutoCloseable c) {
        closeQuietly(c, "sink");
      }
      throw e;
    }
  }

  /**
   * After a build that failed at an assignment: builds again and hands the consumer's partitions to
   * the new windows. The records of the poll at hand were taken by the consumer but not by any
   * windows, so each of their partitions is sought back to its first record, whether the build
   * succeeds or throws again (to the error handler): the next poll delivers them again.
   */
  private void rebuild(Consumer<?, ?> pending, ConsumerRecords<KR, VR> records) {
    try {
      build(pending);
      windowsListener.onPartitionsAssigned(pending.assignment());
      LOG.info("{}: built at last; the records of this poll are read again", name());
    } finally {
      for (TopicPartition tp : records.partitions()) {
        pending.seek(tp, records.records(tp).get(0).offset());
      }
    }
  }

  /**
   * Stops the member's container for good, from another thread (a container must not be stopped on
   * its own consumer thread), when its transactional sink was closed by a fatal error; set by the
   * container once built.
   */
  void stopper(Runnable stop) {
    this.stopper = stop;
  }

  /** Stops the container if the sink was closed for good; returns whether it did. */
  boolean stopIfSinkClosedForGood(Throwable cause) {
    if (!sinkClosedForGood()) {
      return false;
    }
    LOG.error(
        "{}: the transactional sink was closed by a fatal error; stopping this consumer's container"
            + " (its partitions go to the group's other members; restart the application to bring it"
            + " back)",
        name(),
        cause);
    Thread t = new Thread(stopper, "lowwater-stop-" + name());
    t.setDaemon(true);
    t.start();
    return true;
  }

  /** One turn of the README's loop: feed the poll, then write and commit. */
  void onPoll(ConsumerRecords<KR, VR> records) {
    if (windows == null) {
      if (failedFor != null) {
        try {
          rebuild(failedFor, records); // the poll's records come again at the next poll
        } finally {
          refreshObservation();
        }
      }
      return;
    }
    try {
      windows.onPoll(records, mapper);
      windows.emit(sink);
    } finally {
      refreshObservation();
    }
  }

  /**
   * Tells the observation (the meters) that the windows' assignment may have changed: after every
   * poll and idle tick, and after every rebalance callback ({@link MemberRebalanceListener}).
   */
  void refreshObservation() {
    if (observation != null) {
      try {
        observation.refresh();
      } catch (RuntimeException e) {
        LOG.warn("{}: refreshing the meters failed", name(), e);
      }
    }
  }

  /** The windows' partitions among {@code partitions}: a lost partition is revoked once. */
  List<TopicPartition> held(Collection<TopicPartition> partitions) {
    return windows == null
        ? List.of()
        : partitions.stream().filter(windows.assignedPartitions()::contains).toList();
  }

  /**
   * Drops the windows, closes the sink and the meters; the next consumer builds new ones. On the
   * consumer's thread: at a new consumer, and when the container's consumer stops ({@link
   * MemberListener#unregisterSeekCallback()}).
   */
  void close() {
    if (sink instanceof AutoCloseable c) {
      closeQuietly(c, "sink");
    }
    if (observation != null) {
      closeQuietly(observation, "meters");
    }
    consumer = null;
    failedFor = null;
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
