package io.github.lowwater.spring.boot;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.micrometer.KafkaWindowsMetrics;
import io.github.lowwater.spring.LowwaterContainer;
import io.github.lowwater.spring.LowwaterListener;
import io.github.lowwater.spring.WindowsObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * Runs every {@link LowwaterListener} bean (docs/spring.md). Its consumers come from Spring Boot's
 * {@code ConsumerFactory}, so {@code spring.kafka.bootstrap-servers}, security, SSL bundles and
 * {@code spring.kafka.consumer.*} (the group protocol included) apply; a transactional sink's
 * producer takes Boot's producer settings. Boot's listener container factory is not used: its
 * {@code spring.kafka.listener.*} settings, and the error handler, transaction manager, interceptor
 * and rebalance listener beans it would take, do not apply to Lowwater's containers. With
 * Micrometer and a {@code MeterRegistry}, each consumer's windows get {@code KafkaWindowsMetrics},
 * tagged {@code group} (the group id, which the alert rules of docs/operations.md aggregate by),
 * {@code lowwater.listener} and {@code lowwater.consumer}.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaWindows.class, KafkaMessageListenerContainer.class})
public class LowwaterAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(LowwaterAutoConfiguration.class);

  /** Creates the auto-configuration; Spring Boot does. */
  public LowwaterAutoConfiguration() {}

  /**
   * The containers of every listener bean, built and checked now: an unsafe setting fails the
   * context's start, naming it.
   *
   * @param listeners the application's listeners
   * @param consumerFactory Boot's consumer factory
   * @param producerFactory Boot's producer factory, for transactional sinks
   * @param observer told of each consumer's windows (meters), if any
   * @param environment to name the {@code spring.kafka.listener.*} settings that do not apply
   * @return the containers
   */
  @Bean
  @ConditionalOnBean(LowwaterListener.class)
  @SuppressWarnings({"unchecked", "rawtypes"})
  public LowwaterContainers lowwaterContainers(
      List<LowwaterListener<?, ?, ?, ?, ?>> listeners,
      ConsumerFactory<?, ?> consumerFactory,
      ObjectProvider<ProducerFactory<?, ?>> producerFactory,
      ObjectProvider<WindowsObserver> observer,
      Environment environment) {
    logListenerSettingsThatDoNotApply(environment);
    ProducerFactory<?, ?> producers = producerFactory.getIfAvailable();
    Map<String, Object> producerConfig =
        producers == null ? Map.of() : producers.getConfigurationProperties();
    WindowsObserver meters = observer.getIfAvailable(() -> (l, i, w) -> () -> {});
    List<LowwaterContainer<?, ?>> containers = new ArrayList<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    for (LowwaterListener<?, ?, ?, ?, ?> listener : listeners) {
      if (!names.add(listener.name())) {
        throw new IllegalStateException(
            "two LowwaterListener beans are named '"
                + listener.name()
                + "' (a listener's name is its group id unless name(...) gives one): their"
                + " transactional ids, client ids and meter tags would collide; give each its own"
                + " name(...)");
      }
      containers.add(
          new LowwaterContainer(
              (LowwaterListener) listener,
              (ConsumerFactory) consumerFactory,
              producerConfig,
              meters));
    }
    return new LowwaterContainers(containers);
  }

  private static void logListenerSettingsThatDoNotApply(Environment environment) {
    if (!(environment instanceof ConfigurableEnvironment env)) {
      return;
    }
    TreeSet<String> names = new TreeSet<>();
    env.getPropertySources()
        .forEach(
            source -> {
              if (source instanceof EnumerablePropertySource<?> e) {
                for (String name : e.getPropertyNames()) {
                  if (name.startsWith("spring.kafka.listener.")) {
                    names.add(name);
                  }
                }
              }
            });
    if (!names.isEmpty()) {
      LOG.info(
          "{} configure Spring Boot's listener container factory; Lowwater's containers do not"
              + " use it (docs/spring.md)",
          names);
    }
  }

  /** Meters for each consumer's windows, when Micrometer is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Meters {

    @Bean
    @ConditionalOnMissingBean(WindowsObserver.class)
    WindowsObserver lowwaterWindowsMeters(ObjectProvider<MeterRegistry> registry) {
      return (listener, index, windows) -> {
        MeterRegistry r = registry.getIfAvailable();
        if (r == null) {
          return () -> {};
        }
        KafkaWindowsMetrics metrics =
            new KafkaWindowsMetrics(
                windows,
                Tags.of(
                    "group",
                    listener.groupId(),
                    "lowwater.listener",
                    listener.name(),
                    "lowwater.consumer",
                    Integer.toString(index)));
        metrics.bindTo(r); // before any partition: the member refreshes after each assignment
        return new WindowsObserver.Observation() {
          @Override
          public void refresh() {
            metrics.refresh(); // one volatile read when the assignment did not change
          }

          @Override
          public void close() {
            metrics.close();
          }
        };
      };
    }
  }
}
