package io.github.lowwater.spring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * Runs one {@link LowwaterListener}: {@code concurrency} listener containers, each with one
 * consumer and its own windows. Built and checked when it is created (the application's context
 * refuses to start on an unsafe setting, naming it), started and stopped with the context. A stop
 * stops every container at once, whose consumers unsubscribe: the windows drop their partitions
 * without a commit, and their next owners start from the last commit (a clean hand-over, as the
 * plain loop's close); each consumer's thread then closes its sink and meters.
 *
 * <p>Without Spring Boot: create it from a {@code ConsumerFactory} and register it as a bean (a
 * {@link SmartLifecycle}), or call {@link #start()} and {@link #stop()}.
 *
 * @param <KR> the record key type
 * @param <VR> the record value type
 */
public final class LowwaterContainer<KR, VR> implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(LowwaterContainer.class);

  /** The phase of spring-kafka's containers: started late, stopped early. */
  public static final int PHASE = Integer.MAX_VALUE - 100;

  private final String name;
  private final List<KafkaMessageListenerContainer<KR, VR>> containers = new ArrayList<>();
  private final List<Member<KR, VR, ?, ?, ?>> members = new ArrayList<>();
  private volatile boolean running;

  /**
   * Builds and checks the containers of {@code spec}; starts nothing.
   *
   * @param spec the listener
   * @param consumerFactory the host's consumer factory (Spring Boot's, with {@code
   *     spring.kafka.*}); its settings, with the listener's on top, make each consumer
   * @param producerConfig the host's producer settings, for a transactional sink; may be empty
   *     otherwise
   * @param observer told of each consumer's windows (meters); {@code (l, i, w) -> () -> {}} for
   *     none
   * @param <K> the window key type
   * @param <V> the aggregated value type
   * @param <R> the result type
   * @throws UnsafeContainerException if a setting would let something other than Lowwater commit,
   *     count records twice or merge the partitions of several consumers
   */
  public <K, V, R> LowwaterContainer(
      LowwaterListener<KR, VR, K, V, R> spec,
      ConsumerFactory<KR, VR> consumerFactory,
      Map<String, Object> producerConfig,
      WindowsObserver observer) {
    this.name = spec.name();
    Map<String, Object> consumerConfig =
        new HashMap<>(consumerFactory.getConfigurationProperties());
    consumerConfig.putAll(spec.consumerProperties());
    ContainerChecks.checkListener(spec, consumerConfig);
    ConsumerFactory<KR, VR> factory = consumerFactory;
    if (spec.keyDeserializer() != null) {
      // One deserializer per consumer: a consumer closes its own at the stop.
      factory =
          new DefaultKafkaConsumerFactory<>(
              consumerFactory.getConfigurationProperties(),
              spec.keyDeserializer(),
              spec.valueDeserializer());
    }
    for (int i = 0; i < spec.concurrency(); i++) {
      Member<KR, VR, K, V, R> member = new Member<>(spec, i, producerConfig, observer);
      MemberErrorHandler errors =
          new MemberErrorHandler(member, spec.errorBackOff(), spec.idleTick());
      MemberListener<KR, VR> listener = new MemberListener<>(member, errors);
      MemberRebalanceListener rebalance = new MemberRebalanceListener(member);

      ContainerProperties p = new ContainerProperties(spec.topics().toArray(String[]::new));
      p.setGroupId(spec.groupId());
      p.setClientId(spec.name());
      p.setAckMode(ContainerProperties.AckMode.MANUAL);
      p.setAssignmentCommitOption(ContainerProperties.AssignmentCommitOption.NEVER);
      p.setAsyncAcks(false);
      p.setIdleEventInterval(spec.idleTick().toMillis());
      p.setIdleBeforeDataMultiplier(1.0);
      // The idle check runs after a poll returns, and an empty poll waits pollTimeout (5 s by
      // default): no longer than the tick, or a tick would come up to a poll timeout late.
      p.setPollTimeout(
          Math.min(
              org.springframework.kafka.listener.ConsumerProperties.DEFAULT_POLL_TIMEOUT,
              spec.idleTick().toMillis()));
      p.setMessageListener(listener);
      p.setConsumerRebalanceListener(rebalance);
      Properties overrides = new Properties();
      overrides.putAll(spec.consumerProperties());
      p.setKafkaConsumerProperties(overrides);

      KafkaMessageListenerContainer<KR, VR> container =
          new KafkaMessageListenerContainer<>(factory, p);
      container.setBeanName(member.name());
      container.setClientIdSuffix("-" + i);
      container.setCommonErrorHandler(errors);
      member.stopper(container::stop);
      errors.running(container::isRunning);
      spec.customizer().accept(container);
      ContainerChecks.checkContainer(
          spec.name(),
          spec.transactional(),
          consumerConfig,
          container,
          listener,
          rebalance,
          errors);
      containers.add(container);
      members.add(member);
    }
  }

  /**
   * Starts every container; if one cannot start, stops those already started and throws.
   *
   * @throws RuntimeException what the container that could not start threw
   */
  @Override
  public void start() {
    running = true;
    List<KafkaMessageListenerContainer<KR, VR>> started = new ArrayList<>();
    try {
      for (KafkaMessageListenerContainer<KR, VR> c : containers) {
        c.start();
        started.add(c);
      }
    } catch (RuntimeException e) {
      stopAll(started);
      running = false;
      throw e;
    }
    LOG.info("Lowwater listener '{}' started: {} consumer(s)", name, containers.size());
  }

  /**
   * Stops every container at once (each waits for its consumer to close, which runs the windows'
   * revocation and closes the member's sink and meters on the consumer's own thread) and waits for
   * them all.
   */
  @Override
  public void stop() {
    stopAll(containers);
    running = false;
    LOG.info("Lowwater listener '{}' stopped", name);
  }

  private void stopAll(List<KafkaMessageListenerContainer<KR, VR>> stopping) {
    CountDownLatch stopped = new CountDownLatch(stopping.size());
    for (KafkaMessageListenerContainer<KR, VR> c : stopping) {
      c.stop(stopped::countDown);
    }
    long waitMillis =
        stopping.isEmpty()
            ? 0
            : stopping.get(0).getContainerProperties().getShutdownTimeout() + 5_000;
    try {
      if (!stopped.await(waitMillis, TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Lowwater listener '{}': a consumer did not stop within {} ms; its thread closes its"
                + " sink when it ends",
            name,
            waitMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /**
   * The listener's name: its {@code name(...)}, or its group id when none was given.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * The containers, one per consumer, for inspection ({@code isRunning}, {@code
   * getAssignedPartitions}).
   *
   * @return the containers, unmodifiable
   */
  public List<KafkaMessageListenerContainer<KR, VR>> containers() {
    return List.copyOf(containers);
  }

  /**
   * The windows of consumer {@code index}, once it has had partitions, for inspection and tests:
   * use them on that consumer's thread only (from a sink, say), or read their thread-safe stats.
   *
   * @param index 0 to concurrency - 1
   * @return the windows, or null before the consumer's first assignment
   */
  public io.github.lowwater.kafka.KafkaWindows<?, ?, ?> windows(int index) {
    return members.get(index).windows();
  }
}
