package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.describe;
import static io.github.lowwater.micrometer.Fixtures.record;
import static io.github.lowwater.micrometer.Fixtures.records;
import static io.github.lowwater.micrometer.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.kafka.KafkaJoin;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** {@link KafkaJoinMetrics} read through a {@link SimpleMeterRegistry}. */
class KafkaJoinMetricsTest {

  static final Tags TAGS = Tags.of("pipeline", "payments");
  static final TopicPartition L0 = new TopicPartition("orders", 0);
  static final TopicPartition R0 = new TopicPartition("payments", 0);
  static final TopicPartition L1 = new TopicPartition("orders", 1);

  @Test
  void bindsTheHeldPartitionsTasksRowsAndLateRecordsWithTheirUnitsAndTags() {
    ManualClock clock = new ManualClock(Fixtures.NOW);
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(L0, R0, L1));
    consumer.updateBeginningOffsets(Map.of(L0, 0L, R0, 0L, L1, 0L));
    KafkaJoin<String, String, String, String> join =
        KafkaJoin.<String, String, String, String>builder(
                JoinInterval.within(Duration.ofSeconds(10)), (k, l, r) -> l + "|" + r)
            .type(JoinType.LEFT)
            .allowedLateness(Duration.ZERO)
            .topics("orders", "payments")
            .consumer(consumer)
            .clock(clock)
            .build();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KafkaJoinMetrics metrics = new KafkaJoinMetrics(join, TAGS);
    metrics.bindTo(registry);
    assertThat(describe(registry))
        .containsExactlyInAnyOrder(
            "lowwater.partitions.held GAUGE partitions [pipeline=payments]",
            "lowwater.last.poll.age GAUGE milliseconds [pipeline=payments]",
            "lowwater.join.tasks GAUGE tasks [pipeline=payments]",
            "lowwater.join.rows COUNTER rows [kind=pair,pipeline=payments]",
            "lowwater.join.rows COUNTER rows [kind=unmatched,pipeline=payments]",
            "lowwater.join.rows.suppressed COUNTER rows [pipeline=payments]",
            "lowwater.events.late COUNTER events [pipeline=payments,side=left]",
            "lowwater.events.late COUNTER events [pipeline=payments,side=right]",
            "lowwater.records.redelivered COUNTER records [pipeline=payments]",
            "lowwater.records.skipped COUNTER records [pipeline=payments]",
            "lowwater.quiet.advances COUNTER advances [pipeline=payments]");

    assertThat(value(registry, "lowwater.last.poll.age", TAGS)).isNaN(); // no onPoll yet
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0, L1)); // task 1 is split
    assertThat(value(registry, "lowwater.partitions.held", TAGS)).isEqualTo(1);
    assertThat(value(registry, "lowwater.join.tasks", TAGS)).isEqualTo(1);
    join.onPoll(
        records(
            record(L0, 0, T, "o0"),
            record(L0, 1, T + 60_000, "o1"),
            record(L0, 2, T + 30_000, "o2"), // late on its own partition
            record(R0, 0, T + 5_000, "p0"),
            record(R0, 1, T + 61_000, "p1")),
        r -> r.key(),
        r -> r.value(),
        r -> r.value());
    join.pollResults();
    clock.advance(Duration.ofSeconds(75)); // a stall: the loop does not call onPoll
    assertThat(value(registry, "lowwater.last.poll.age", TAGS)).isEqualTo(75_000.0);
    assertThat(value(registry, "lowwater.join.rows", TAGS.and("kind", "pair"))).isEqualTo(2);
    assertThat(value(registry, "lowwater.join.rows", TAGS.and("kind", "unmatched"))).isZero();
    assertThat(value(registry, "lowwater.events.late", TAGS.and("side", "left"))).isEqualTo(1);
    assertThat(value(registry, "lowwater.events.late", TAGS.and("side", "right"))).isZero();
    assertThat(value(registry, "lowwater.quiet.advances", TAGS)).isZero();
    clock.advance(Duration.ofSeconds(15)); // 90 s without a record of either partition
    join.onPoll(records(), r -> r.key(), r -> r.value(), r -> r.value());
    assertThat(value(registry, "lowwater.quiet.advances", TAGS))
        .as("both partitions of task 0 raised to the wall clock")
        .isEqualTo(2);

    join.rebalanceListener().onPartitionsRevoked(List.of(R0)); // the counts outlive the task
    assertThat(value(registry, "lowwater.join.tasks", TAGS)).isZero();
    assertThat(value(registry, "lowwater.partitions.held", TAGS)).isEqualTo(2);
    assertThat(value(registry, "lowwater.join.rows", TAGS.and("kind", "pair"))).isEqualTo(2);

    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
  }
}
