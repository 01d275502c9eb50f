package io.github.lowwater.spring;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application of the Spring broker tests, as a user would write it: one {@code
 * LowwaterListener} bean counting records per key in 10-second windows, and Spring Boot's
 * properties for the rest. Each test starts several, as the instances of one service.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class CountingApp {

  /** One instance's settings and what the test sees of it. */
  static final class Instance {
    final String topic;
    final String group;
    final int concurrency;
    final ManualClock clock;
    final Rows rows;
    final String outputTopic; // null: rows go to the Rows sink
    final String transactionalIdPrefix;
    final List<String> deadLetters = new CopyOnWriteArrayList<>();
    final AtomicInteger writes = new AtomicInteger();
    volatile boolean crashAfterNextWrite;
    final CountDownLatch crashed = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    ConfigurableApplicationContext context;

    Instance(String topic, String group, int concurrency, ManualClock clock, Rows rows) {
      this(topic, group, concurrency, clock, rows, null, null);
    }

    Instance(
        String topic,
        String group,
        int concurrency,
        ManualClock clock,
        Rows rows,
        String outputTopic,
        String transactionalIdPrefix) {
      this.topic = topic;
      this.group = group;
      this.concurrency = concurrency;
      this.clock = clock;
      this.rows = rows;
      this.outputTopic = outputTopic;
      this.transactionalIdPrefix = transactionalIdPrefix;
    }

    /**
     * The sink's write: upsert, then, if told to, die before the commit: the consumer's thread
     * stops dead (no poll, no commit, no callback) until the test releases it at its end.
     */
    void write(List<WindowResult<String, Long>> written) throws InterruptedException {
      rows.upsert(written);
      writes.incrementAndGet();
      if (crashAfterNextWrite && !written.isEmpty()) {
        crashed.countDown();
        release.await(5, TimeUnit.MINUTES);
        throw new IllegalStateException("the crashed instance came back: its commit must not run");
      }
    }

    /** The windows of every consumer of this instance that has had partitions. */
    List<KafkaWindows<?, ?, ?>> windows() {
      List<KafkaWindows<?, ?, ?>> all = new ArrayList<>();
      var containers = context.getBean(io.github.lowwater.spring.boot.LowwaterContainers.class);
      for (LowwaterContainer<?, ?> c : containers.containers()) {
        for (int i = 0; i < concurrency; i++) {
          if (c.windows(i) != null) {
            all.add(c.windows(i));
          }
        }
      }
      return all;
    }

    /** Starts the instance: a Spring Boot application with these properties. */
    Instance start(String... properties) {
      context =
          new SpringApplicationBuilder(CountingApp.class)
              .web(WebApplicationType.NONE)
              .bannerMode(Banner.Mode.OFF)
              .logStartupInfo(false)
              .initializers(c -> c.getBeanFactory().registerSingleton("instance", this))
              .properties(properties)
              .run();
      return this;
    }

    /** A deploy's stop: the context closes, its consumers leave the group. */
    void stop() {
      release.countDown();
      context.close();
    }
  }

  @Bean
  LowwaterListener<String, String, String, Long, Long> counts(Instance instance) {
    LowwaterListener.Builder<String, String, String, Long, Long> b =
        LowwaterListener.<String, String, String, Long, Long>builder(instance.topic)
            .groupId(instance.group)
            .windows(
                () ->
                    KafkaWindows.builder(
                            Duration.ofMillis(Feed.WINDOW_MILLIS), Aggregators.sumLong())
                        .clock(instance.clock)
                        .quietAdvanceAfter(Duration.ofSeconds(30)))
            .mapper(
                (record, out) -> {
                  if ("poison".equals(record.value())) {
                    throw new IllegalArgumentException("a record no mapper can read");
                  }
                  out.emit(record.timestamp(), record.key(), 1L);
                })
            .deadLetter(
                (record, failure) ->
                    instance.deadLetters.add(
                        record.topic() + "-" + record.partition() + "@" + record.offset()))
            .concurrency(instance.concurrency)
            .idleTick(Duration.ofMillis(200))
            .errorBackOff(Duration.ofMillis(100));
    if (instance.outputTopic != null) {
      b.transactionalSink(
          instance.outputTopic,
          new StringSerializer(),
          new LongSerializer(),
          instance.transactionalIdPrefix);
    } else {
      b.rowWriter(instance::write);
    }
    return b.build();
  }
}
