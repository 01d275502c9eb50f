package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.spring.boot.LowwaterAutoConfiguration;
import io.github.lowwater.spring.boot.LowwaterContainers;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.transaction.KafkaTransactionManager;

/**
 * The starter's wiring, one check each: what it closes whatever Spring Boot's context holds, and
 * every setting it refuses, by name. Contexts that start run against the test broker; those that
 * are refused fail before any consumer is created.
 */
class LowwaterAutoConfigurationTest {

  @BeforeAll
  static void broker() {
    LowwaterBroker.shared().createTopic("wiring", 2);
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(KafkaAutoConfiguration.class, LowwaterAutoConfiguration.class))
          .withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap());

  private static String bootstrap() {
    return LowwaterBroker.shared().bootstrapServers();
  }

  static LowwaterListener.Builder<String, String, String, Long, Long> listener() {
    return LowwaterListener.<String, String, String, Long, Long>builder("wiring")
        .groupId("wiring-group")
        .windows(() -> KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong()))
        .mapper(ConsumerRecord::key, r -> 1L)
        .rowWriter(rows -> {});
  }

  @Configuration(proxyBeanMethods = false)
  static class Plain {
    @Bean
    LowwaterListener<String, String, String, Long, Long> counts() {
      return listener().concurrency(2).build();
    }
  }

  /** Everything Boot would hand its own container factory, and a container transaction. */
  @Configuration(proxyBeanMethods = false)
  static class WithBootsContainerBeans {
    @Bean
    CommonErrorHandler retryingErrorHandler() {
      return new DefaultErrorHandler();
    }

    @Bean
    LowwaterListener<String, String, String, Long, Long> counts() {
      return listener().build();
    }
  }

  @Test
  void everyCommitPathIsClosedWhateverBootsContextHolds() {
    runner
        .withUserConfiguration(WithBootsContainerBeans.class)
        .withPropertyValues(
            "spring.kafka.producer.transaction-id-prefix=tx-", // Boot adds a transaction manager
            "spring.kafka.listener.ack-mode=batch",
            "spring.kafka.listener.type=batch")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(KafkaTransactionManager.class);
              LowwaterContainers containers = context.getBean(LowwaterContainers.class);
              KafkaMessageListenerContainer<?, ?> c =
                  containers.containers().get(0).containers().get(0);
              ContainerProperties p = c.getContainerProperties();
              assertThat(p.getAckMode()).isEqualTo(ContainerProperties.AckMode.MANUAL);
              assertThat(p.getAssignmentCommitOption())
                  .isEqualTo(ContainerProperties.AssignmentCommitOption.NEVER);
              assertThat(p.getKafkaAwareTransactionManager()).isNull();
              assertThat(c.getCommonErrorHandler()).isInstanceOf(MemberErrorHandler.class);
              assertThat(c.getCommonErrorHandler().isAckAfterHandle()).isFalse();
              assertThat(p.getIdleEventInterval()).isEqualTo(5_000L);
              assertThat(p.getMessageListener()).isInstanceOf(MemberListener.class);
            });
  }

  @Test
  void concurrencyGivesOneContainerPerConsumerEachWithItsOwnClientId() {
    runner
        .withUserConfiguration(Plain.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              var containers =
                  context.getBean(LowwaterContainers.class).containers().get(0).containers();
              assertThat(containers).hasSize(2);
              assertThat(containers.get(0).getBeanName()).isEqualTo("wiring-group-0");
              assertThat(containers.get(1).getBeanName()).isEqualTo("wiring-group-1");
              assertThat(containers).allMatch(KafkaMessageListenerContainer::isRunning);
              // The application reaches a listener's containers by the listener's name.
              LowwaterContainers all = context.getBean(LowwaterContainers.class);
              assertThat(all.container("wiring-group")).isSameAs(all.containers().get(0));
              org.assertj.core.api.Assertions.assertThatThrownBy(() -> all.container("other"))
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessage(
                      "no LowwaterListener is named 'other'; the listeners are [wiring-group]");
            });
  }

  @Test
  void eachConsumersWindowsGetMetersOnBootsRegistryRemovedAtTheStop() {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    // A group of its own: the other tests' members of wiring-group must not delay its assignment.
    runner
        .withBean(
            "metered",
            LowwaterListener.class,
            () -> listener().groupId("wiring-meters").concurrency(2).build())
        .withBean(io.micrometer.core.instrument.MeterRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
              while (registry.find("lowwater.partitions.assigned").gauges().size() < 2) {
                assertThat(System.nanoTime()).as("both consumers' meters").isLessThan(deadline);
                Thread.sleep(50);
              }
              assertThat(
                      registry.find("lowwater.partitions.assigned").gauges().stream()
                          .map(g -> g.getId().getTag("lowwater.consumer"))
                          .sorted()
                          .toList())
                  .containsExactly("0", "1");
              assertThat(
                      registry
                          .find("lowwater.partitions.assigned")
                          .tag("lowwater.listener", "wiring-meters")
                          .tag("group", "wiring-meters") // what the alert rules aggregate by
                          .gauges())
                  .hasSize(2);
            });
    assertThat(registry.find("lowwater.partitions.assigned").gauges())
        .as("removed with the consumers")
        .isEmpty();
  }

  /**
   * Guards the blind meters of issue 45 (item 3): the starter bound {@code KafkaWindowsMetrics}
   * when a consumer's windows were built, before any partition was handed to them, and never
   * refreshed the binder, so no {@code lowwater.partition.*} meter ever appeared (the runbook's
   * {@code lowwater_partition_watermark_lag_milliseconds} and three dashboard panels were empty).
   * Once the consumers have their partitions, each partition has its meters, tagged with its topic
   * and number.
   */
  @Test
  void everyPartitionGetsItsMetersOnceTheConsumersHoldThem() {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    runner
        .withBean(
            "metered",
            LowwaterListener.class,
            () -> listener().groupId("wiring-partition-meters").concurrency(2).build())
        .withBean(io.micrometer.core.instrument.MeterRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
              while (partitionsWithMeters(registry, "lowwater.partition.watermark.lag").size()
                  < 2) {
                assertThat(System.nanoTime())
                    .as("meters of both partitions: %s", registry.getMetersAsString())
                    .isLessThan(deadline);
                Thread.sleep(50);
              }
              for (String name :
                  java.util.List.of(
                      "lowwater.partition.watermark.lag",
                      "lowwater.partition.frontier.lag",
                      "lowwater.partition.lag",
                      "lowwater.partition.resume.distance",
                      "lowwater.partition.resume.age")) {
                assertThat(partitionsWithMeters(registry, name)).as(name).containsExactly("0", "1");
              }
            });
    assertThat(registry.find("lowwater.partition.watermark.lag").meters())
        .as("removed with the consumers")
        .isEmpty();
  }

  private static java.util.List<String> partitionsWithMeters(
      io.micrometer.core.instrument.MeterRegistry registry, String name) {
    return registry.find(name).tag("topic", "wiring").meters().stream()
        .map(m -> m.getId().getTag("partition"))
        .sorted()
        .toList();
  }

  @Test
  void autoCommitIsRefusedByName() {
    runner
        .withUserConfiguration(Plain.class)
        .withPropertyValues("spring.kafka.consumer.enable-auto-commit=true")
        .run(context -> assertRefused(context, "enable.auto.commit=true"));
  }

  @Test
  void mergedWithConcurrencyAboveOneIsRefused() {
    runner
        .withBean(
            "merged",
            LowwaterListener.class,
            () ->
                LowwaterListener.<String, String, String, Long, Long>builder("wiring")
                    .groupId("wiring-merged")
                    .windows(
                        () ->
                            KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
                                .resultScope(ResultScope.MERGED))
                    .mapper(ConsumerRecord::key, r -> 1L)
                    .rowWriter(rows -> {})
                    .concurrency(2)
                    .build())
        .run(context -> assertRefused(context, "resultScope(MERGED) with concurrency 2"));
  }

  @Test
  void aTransactionalSinkWithoutReadCommittedIsRefused() {
    runner
        .withBean(
            "tx",
            LowwaterListener.class,
            () ->
                listenerWithoutSink()
                    .transactionalSink(
                        "out",
                        new org.apache.kafka.common.serialization.StringSerializer(),
                        new org.apache.kafka.common.serialization.LongSerializer(),
                        "app-0")
                    .build())
        .run(context -> assertRefused(context, "isolation.level=read_uncommitted"));
  }

  @Test
  void aCustomizerThatOpensACommitPathIsRefusedNamingIt() {
    refusedWith(
        c -> c.getContainerProperties().setAckMode(ContainerProperties.AckMode.BATCH),
        "ackMode BATCH");
    refusedWith(
        c ->
            c.getContainerProperties()
                .setAssignmentCommitOption(ContainerProperties.AssignmentCommitOption.ALWAYS),
        "assignmentCommitOption ALWAYS");
    refusedWith(
        c -> c.setCommonErrorHandler(new DefaultErrorHandler()),
        "a container error handler (org.springframework.kafka.listener.DefaultErrorHandler)");
    refusedWith(
        c ->
            c.getContainerProperties()
                .setKafkaAwareTransactionManager(new KafkaTransactionManager<>(transactional())),
        "a container transaction manager");
    refusedWith(
        c -> c.setBatchInterceptor((records, consumer) -> records),
        "a record or batch interceptor");
    // Consumer settings put in by the customizer are checked too, whatever their value's type.
    refusedWith(
        c ->
            c.getContainerProperties().getKafkaConsumerProperties().put("enable.auto.commit", true),
        "enable.auto.commit=true");
  }

  @Test
  void twoListenersWithOneNameAreRefused() {
    runner
        .withBean("one", LowwaterListener.class, () -> listener().build())
        .withBean("two", LowwaterListener.class, () -> listener().build())
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessageContaining("two LowwaterListener beans are named 'wiring-group'");
            });
  }

  @Test
  void withoutSpringKafkaTheStarterBacksOff() {
    runner
        .withClassLoader(new FilteredClassLoader(KafkaMessageListenerContainer.class))
        .withUserConfiguration(Plain.class)
        .run(context -> assertThat(context).doesNotHaveBean(LowwaterContainers.class));
  }

  private void refusedWith(
      Consumer<KafkaMessageListenerContainer<String, String>> customizer, String setting) {
    runner
        .withBean(
            "customized",
            LowwaterListener.class,
            () -> listener().containerCustomizer(customizer).build())
        .run(context -> assertRefused(context, setting));
  }

  private static org.springframework.kafka.core.ProducerFactory<String, String> transactional() {
    var factory =
        new org.springframework.kafka.core.DefaultKafkaProducerFactory<String, String>(
            java.util.Map.of());
    factory.setTransactionIdPrefix("tx-");
    return factory;
  }

  private static LowwaterListener.Builder<String, String, String, Long, Long>
      listenerWithoutSink() {
    return LowwaterListener.<String, String, String, Long, Long>builder("wiring")
        .groupId("wiring-tx")
        .windows(() -> KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong()))
        .mapper(ConsumerRecord::key, r -> 1L);
  }

  private static void assertRefused(
      org.springframework.boot.test.context.assertj.AssertableApplicationContext context,
      String setting) {
    assertThat(context).hasFailed();
    Throwable cause = context.getStartupFailure();
    while (cause != null && !(cause instanceof UnsafeContainerException)) {
      cause = cause.getCause();
    }
    assertThat(cause)
        .as("an UnsafeContainerException in %s", context.getStartupFailure())
        .isNotNull();
    assertThat(((UnsafeContainerException) cause).setting()).isEqualTo(setting);
    assertThat(cause.getMessage()).contains("refuses to start").contains(setting);
  }
}
