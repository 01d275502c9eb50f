package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;

/**
 * The control: the same windows fed from a {@code @KafkaListener} on Spring Boot's default
 * container factory (a batch listener, every other setting Spring's default), which is what a
 * Spring team writes without the starter. The container commits each poll's last offset + 1 ({@code
 * AckMode.BATCH}), without a checkpoint; at a plain restart the window still open is lost: its
 * records are behind the commit, and no instance ever writes its rows. The starter's group test
 * ({@link SpringGroupBrokerTest}) runs the same hand-over and loses nothing.
 */
class SpringDefaultsControlTest {

  private static final int PARTITIONS = 4;
  private static final String TOPIC = "spring-defaults";

  private static final ManualClock CLOCK = new ManualClock(Instant.parse("2026-01-01T01:00:00Z"));
  private static final long BASE = Instant.parse("2026-01-01T00:50:00Z").toEpochMilli();

  /** One instance's windows, built on its consumer, and the shared rows. */
  static final class Holder {
    final Rows rows;
    KafkaWindows<String, Long, Long> windows;

    Holder(Rows rows) {
      this.rows = rows;
    }

    KafkaWindows<String, Long, Long> windows(Consumer<?, ?> consumer) {
      if (windows == null) {
        windows =
            KafkaWindows.builder(Duration.ofMillis(Feed.WINDOW_MILLIS), Aggregators.sumLong())
                .clock(CLOCK)
                .allowedLateness(
                    Duration.ZERO) // in order per partition: the last window stays open
                .consumer(consumer)
                .build();
      }
      return windows;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class DefaultsApp {
    private final Holder holder;

    DefaultsApp(Holder holder) {
      this.holder = holder;
    }

    /** Boot's default factory takes this bean as its rebalance listener. */
    @Bean
    ConsumerAwareRebalanceListener windowsListener() {
      return new ConsumerAwareRebalanceListener() {
        @Override
        public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> p) {
          holder.windows(consumer).rebalanceListener().onPartitionsAssigned(p);
        }

        @Override
        public void onPartitionsRevokedBeforeCommit(
            Consumer<?, ?> consumer, Collection<TopicPartition> p) {
          holder.windows(consumer).rebalanceListener().onPartitionsRevoked(p);
        }
      };
    }

    @KafkaListener(topics = TOPIC, groupId = TOPIC + "-group")
    void onPoll(ConsumerRecords<String, String> records, Consumer<String, String> consumer) {
      KafkaWindows<String, Long, Long> windows = holder.windows(consumer);
      windows.onPoll(records, ConsumerRecord::key, r -> 1L);
      holder.rows.upsert(windows.pollFinalized());
    }
  }

  @Test
  void springsDefaultContainerLosesTheOpenWindowAtAPlainRestart() throws Exception {
    LowwaterBroker broker = LowwaterBroker.shared();
    broker.createTopic(TOPIC, PARTITIONS);
    Feed feed = new Feed(broker.bootstrapServers(), TOPIC, PARTITIONS, BASE);
    Rows rows = new Rows();
    String[] properties = {
      "spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
      "spring.kafka.consumer.auto-offset-reset=earliest",
      "spring.kafka.listener.type=batch"
    };

    feed.produce(0, 200);
    Holder first = new Holder(rows);
    ConfigurableApplicationContext one = start(first, properties);
    try {
      SpringGroupBrokerTest.await(
          () ->
              committed(broker).size() == PARTITIONS
                  && committed(broker).values().stream().allMatch(om -> om.offset() == 200),
          "the container commits every record it polled");
    } finally {
      one.close(); // a deploy's plain stop
    }
    Map<TopicPartition, OffsetAndMetadata> committed = committed(broker);
    assertThat(CommittedOffsets.withoutMetadata(committed, "lw")).isEqualTo(committed);

    feed.produce(200, 220);
    Holder second = new Holder(rows);
    ConfigurableApplicationContext two = start(second, properties);
    try {
      long w190 = BASE + 190_000;
      long w200 = BASE + 200_000;
      SpringGroupBrokerTest.await(
          () -> rows.summed().keySet().stream().anyMatch(k -> k.startsWith(w200 + "/")),
          "the restarted instance writes the next window");
      Map<String, Long> lost = new TreeMap<>(feed.truth);
      lost.keySet().removeIf(k -> !k.startsWith(w190 + "/"));
      assertThat(lost.values().stream().mapToLong(Long::longValue).sum())
          .as("the records of the window open at the restart")
          .isEqualTo(40);
      assertThat(rows.summed()).doesNotContainKeys(lost.keySet().toArray(String[]::new));
    } finally {
      two.close();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> committed(LowwaterBroker broker) {
    try (Admin admin = broker.admin()) {
      return CommittedOffsets.of(admin, TOPIC + "-group");
    }
  }

  private static ConfigurableApplicationContext start(Holder holder, String... properties) {
    return new SpringApplicationBuilder(DefaultsApp.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .logStartupInfo(false)
        .initializers(c -> c.getBeanFactory().registerSingleton("holder", holder))
        .properties(properties)
        .run();
  }
}
