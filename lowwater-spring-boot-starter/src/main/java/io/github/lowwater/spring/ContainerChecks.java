package io.github.lowwater.spring;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * The start-up checks of a listener's containers: every path by which a container would commit, or
 * retry records in memory, or replace them, is closed, and the settings that make Lowwater exact
 * hold. Each refusal names the setting (docs/spring.md, "What the starter closes").
 */
final class ContainerChecks {

  private ContainerChecks() {}

  /** The consumer settings and the listener's own, before any container is built. */
  static void checkListener(LowwaterListener<?, ?, ?, ?, ?> spec, Map<String, Object> consumer) {
    checkConsumerSettings(spec.name(), spec.transactional(), consumer);
    // The scope is the windows builder's: build one set of windows, on a consumer that is never
    // polled, to read it.
    KafkaWindows<?, ?, ?> probe = spec.newWindows(new MockConsumer<>("earliest"));
    if (probe.resultScope() == ResultScope.MERGED && spec.concurrency() > 1) {
      throw new UnsafeContainerException(
          spec.name(),
          "resultScope(MERGED) with concurrency " + spec.concurrency(),
          ": each consumer would merge only its own partitions, and MERGED is exact only for one"
              + " consumer that owns every partition. Use concurrency 1, or PER_PARTITION");
    }
    if (probe.resultScope() == ResultScope.CO_PARTITIONED) {
      checkCoPartitioningAssignor(spec.name(), consumer);
    }
  }

  /**
   * {@code CO_PARTITIONED} needs an assignor that keeps partition {@code i} of every topic on one
   * consumer (docs/kafka.md, "Two topics in one event time"): with another, its tasks would be held
   * (paused) rather than computed, which no one wants to find out in production. The classic
   * protocol's default list starts with the range assignor, which the group then uses.
   */
  static void checkCoPartitioningAssignor(String name, Map<?, ?> consumer) {
    Object configured = consumer.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
    String protocol = configured == null ? "classic" : String.valueOf(configured);
    if ("consumer".equalsIgnoreCase(protocol)) {
      Object assignor = consumer.get(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);
      if (!"range".equals(assignor == null ? null : String.valueOf(assignor))) {
        throw new UnsafeContainerException(
            name,
            "group.remote.assignor=" + assignor,
            "with resultScope(CO_PARTITIONED) and group.protocol=consumer: only the range"
                + " assignor keeps partition i of every topic on one consumer; set"
                + " spring.kafka.consumer.properties[group.remote.assignor]=range");
      }
      return;
    }
    Object strategy = consumer.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
    String first = firstAssignor(strategy);
    if (first != null && !first.equals(RangeAssignor.class.getName())) {
      throw new UnsafeContainerException(
          name,
          "partition.assignment.strategy=" + strategy,
          "with resultScope(CO_PARTITIONED): only the range assignor keeps partition i of every"
              + " topic on one consumer; set spring.kafka.consumer.properties"
              + "[partition.assignment.strategy]=org.apache.kafka.clients.consumer.RangeAssignor");
    }
  }

  /** The first assignor of a strategy given as a class, a name, or a list of either; null: none. */
  private static String firstAssignor(Object strategy) {
    Object first = strategy;
    if (strategy instanceof java.util.List<?> list) {
      first = list.isEmpty() ? null : list.get(0);
    } else if (strategy instanceof String text) {
      first = text.isBlank() ? null : text.split(",")[0].trim();
    }
    if (first instanceof Class<?> type) {
      return type.getName();
    }
    return first == null ? null : String.valueOf(first);
  }

  /**
   * The settings a consumer gets: the host's, the listener's, and those the customizer put in the
   * container's consumer properties (a value may be a {@code Boolean} or a {@code String}).
   */
  static void checkConsumerSettings(String name, boolean transactional, Map<?, ?> consumer) {
    if (Boolean.parseBoolean(
        String.valueOf(consumer.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)))) {
      throw new UnsafeContainerException(
          name,
          "enable.auto.commit=true",
          "(spring.kafka.consumer.enable-auto-commit): Kafka would commit the consumed positions,"
              + " past open windows and without checkpoints. Remove it or set it to false");
    }
    if (transactional
        && !"read_committed"
            .equals(String.valueOf(consumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG)))) {
      throw new UnsafeContainerException(
          name,
          "isolation.level=" + consumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG),
          "with a transactional sink: the consumers must read read_committed"
              + " (spring.kafka.consumer.isolation-level=read-committed), or they would read"
              + " offsets of transactions still open");
    }
  }

  /**
   * A container after the application's customizer ran: nothing that commits may be left. The
   * deprecated {@code getTransactionManager} is still read: spring-kafka 4.0 still honours it.
   */
  @SuppressWarnings("removal")
  static void checkContainer(
      String name,
      boolean transactional,
      Map<String, Object> consumer,
      KafkaMessageListenerContainer<?, ?> container,
      MemberListener<?, ?> listener,
      MemberRebalanceListener rebalance,
      MemberErrorHandler errors) {
    ContainerProperties p = container.getContainerProperties();
    Map<Object, Object> settings = new java.util.HashMap<>(consumer);
    settings.putAll(p.getKafkaConsumerProperties());
    checkConsumerSettings(name, transactional, settings);
    if (p.getAckMode() != ContainerProperties.AckMode.MANUAL) {
      throw new UnsafeContainerException(
          name,
          "ackMode " + p.getAckMode(),
          ": the container would commit the last processed offset + 1 after each poll, past open"
              + " windows and without checkpoints. Leave it MANUAL (the starter never acknowledges)");
    }
    if (p.getAssignmentCommitOption() != ContainerProperties.AssignmentCommitOption.NEVER) {
      throw new UnsafeContainerException(
          name,
          "assignmentCommitOption " + p.getAssignmentCommitOption(),
          ": the container would commit positions on assignment, without checkpoints. Leave it"
              + " NEVER");
    }
    if (p.isAsyncAcks()) {
      throw new UnsafeContainerException(name, "asyncAcks", ": leave it false");
    }
    if (p.getKafkaAwareTransactionManager() != null || p.getTransactionManager() != null) {
      throw new UnsafeContainerException(
          name,
          "a container transaction manager",
          ": it would commit offsets after the listener returns, without checkpoints. Use"
              + " transactionalSink(...), which commits rows and offsets in one transaction");
    }
    if (container.getCommonErrorHandler() != errors) {
      throw new UnsafeContainerException(
          name,
          "a container error handler ("
              + (container.getCommonErrorHandler() == null
                  ? "none"
                  : container.getCommonErrorHandler().getClass().getName())
              + ")",
          ": an error handler that retries the poll in memory counts its records twice, one that"
              + " seeks or acknowledges moves the commit past open windows. Leave the starter's");
    }
    if (container.getBatchInterceptor() != null || container.getRecordInterceptor() != null) {
      throw new UnsafeContainerException(
          name,
          "a record or batch interceptor",
          ": it may replace or drop records, which the windows must all see (a record the mapper"
              + " cannot read goes to deadLetter(...)). Remove it");
    }
    if (p.getMessageListener() != listener) {
      throw new UnsafeContainerException(
          name, "the message listener", ": it is the starter's; leave it");
    }
    if (p.getConsumerRebalanceListener() != rebalance) {
      throw new UnsafeContainerException(
          name,
          "the consumer rebalance listener",
          ": it is the starter's, which hands the partitions to the windows; leave it");
    }
    if (p.getIdleEventInterval() == null) {
      throw new UnsafeContainerException(
          name,
          "idleEventInterval null",
          ": the quiet-period rule would never run while no records arrive. Set idleTick(...)");
    }
  }
}
