package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.MINUTE;
import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.P0;
import static io.github.lowwater.micrometer.Fixtures.P1;
import static io.github.lowwater.micrometer.Fixtures.P2;
import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.describe;
import static io.github.lowwater.micrometer.Fixtures.record;
import static io.github.lowwater.micrometer.Fixtures.records;
import static io.github.lowwater.micrometer.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaWindowsMetrics} read through a {@link SimpleMeterRegistry}, fed hand-built records
 * without a broker.
 */
class KafkaWindowsMetricsTest {

  static final Tags GROUP = Tags.of("group", "counter");

  final ManualClock clock = new ManualClock(NOW);
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  KafkaWindows.Builder<Long, Long> builder(Duration lateness) {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(lateness)
        .clock(clock);
  }

  /** One poll: every record counts 1 under key {@code "k"}; a {@code null} value is skipped. */
  static void feed(KafkaWindows<String, Long, Long> windows, ConsumerRecords<String, String> rs) {
    windows.onPoll(rs, ConsumerRecord::key, r -> r.value() == null ? null : 1L);
  }

  static Tags partition(TopicPartition tp) {
    return GROUP.and("topic", tp.topic()).and("partition", Integer.toString(tp.partition()));
  }

  /**
   * Issue 33: the progress meters read what {@code KafkaWindows} publishes at the end of each poll:
   * the consumer's lag, the records a new owner would read again and how long ago the first of them
   * was read; NaN before they are known.
   */
  @Test
  void theProgressMetersShowTheLagTheResumeDistanceAndTheResumeAge() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    consumer.updateEndOffsets(Map.of(P0, 5L));
    KafkaWindows<String, Long, Long> windows = builder(Duration.ZERO).consumer(consumer).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    new KafkaWindowsMetrics(windows, GROUP, clock).bindTo(registry);
    assertThat(value(registry, "lowwater.partition.lag", partition(P0))).isNaN();
    assertThat(value(registry, "lowwater.partition.resume.distance", partition(P0))).isNaN();
    assertThat(value(registry, "lowwater.resume.distance.max", GROUP)).isNaN();

    consumer.addRecord(record(P0, 0, T + MINUTE));
    consumer.addRecord(record(P0, 1, T + 2 * MINUTE));
    feed(windows, consumer.poll(Duration.ZERO));
    clock.advance(Duration.ofSeconds(40));
    assertThat(value(registry, "lowwater.partition.lag", partition(P0))).isEqualTo(3.0);
    assertThat(value(registry, "lowwater.lag.max", GROUP)).isEqualTo(3.0);
    assertThat(value(registry, "lowwater.partition.resume.distance", partition(P0))).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.resume.distance.max", GROUP)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.partition.resume.age", partition(P0))).isEqualTo(40_000.0);
    assertThat(value(registry, "lowwater.resume.age.max", GROUP)).isEqualTo(40_000.0);
    assertThat(value(registry, "lowwater.partition.resume.event.age", partition(P0)))
        .isEqualTo(1.0 * MINUTE);
  }

  /**
   * Issue 45, item 5: during a stall (the loop stops calling {@code onPoll}, the consumer stays in
   * the group) every progress meter stands still, the processed lag at what it was; the time since
   * the last {@code onPoll}, computed at scrape time, is the meter that grows and that an alert can
   * see. Before the fix no meter moved during a stall.
   */
  @Test
  void aStalledLoopShowsInTheTimeSinceTheLastPollWhileTheProcessedLagStandsStill() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    consumer.updateEndOffsets(Map.of(P0, 2L));
    KafkaWindows<String, Long, Long> windows = builder(Duration.ZERO).consumer(consumer).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    new KafkaWindowsMetrics(windows, GROUP, clock).bindTo(registry);
    assertThat(value(registry, "lowwater.last.poll.age", GROUP)).isNaN(); // no onPoll yet

    consumer.addRecord(record(P0, 0, T + MINUTE));
    consumer.addRecord(record(P0, 1, T + 2 * MINUTE));
    feed(windows, consumer.poll(Duration.ZERO));
    assertThat(value(registry, "lowwater.last.poll.age", GROUP)).isZero();
    assertThat(value(registry, "lowwater.lag.max", GROUP)).isZero();

    consumer.updateEndOffsets(Map.of(P0, 4_118L)); // the log grows, nobody polls
    clock.advance(Duration.ofMinutes(4));
    assertThat(value(registry, "lowwater.lag.max", GROUP)).isZero(); // as of the last onPoll
    assertThat(value(registry, "lowwater.last.poll.age", GROUP)).isEqualTo(240_000.0);

    feed(windows, consumer.poll(Duration.ZERO)); // the loop runs again
    assertThat(value(registry, "lowwater.last.poll.age", GROUP)).isZero();
    assertThat(value(registry, "lowwater.lag.max", GROUP)).isEqualTo(4_116.0);
  }

  @Test
  void bindsTheInstanceAndPartitionMetersWithTheirUnitsTagsAndValues() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    new KafkaWindowsMetrics(windows, GROUP, clock).bindTo(registry);
    assertThat(describe(registry))
        .containsExactly(
            "lowwater.alignment.pauses COUNTER pauses [group=counter]",
            "lowwater.alignment.resumes COUNTER resumes [group=counter]",
            "lowwater.entries.open GAUGE entries [group=counter]",
            "lowwater.events.accepted COUNTER events [group=counter]",
            "lowwater.events.future COUNTER events [group=counter]",
            "lowwater.events.late COUNTER events [group=counter]",
            "lowwater.group.watermark.lag GAUGE milliseconds [group=counter]",
            "lowwater.lag.max GAUGE records [group=counter]",
            "lowwater.last.poll.age GAUGE milliseconds [group=counter]",
            "lowwater.missing.records.events COUNTER events [group=counter]",
            "lowwater.partition.frontier.lag GAUGE milliseconds"
                + " [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.frontier.lag GAUGE milliseconds"
                + " [group=counter,partition=1,topic=arrivals]",
            "lowwater.partition.lag GAUGE records [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.lag GAUGE records [group=counter,partition=1,topic=arrivals]",
            "lowwater.partition.resume.age GAUGE milliseconds"
                + " [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.resume.age GAUGE milliseconds"
                + " [group=counter,partition=1,topic=arrivals]",
            "lowwater.partition.resume.distance GAUGE records"
                + " [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.resume.distance GAUGE records"
                + " [group=counter,partition=1,topic=arrivals]",
            "lowwater.partition.resume.event.age GAUGE milliseconds"
                + " [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.resume.event.age GAUGE milliseconds"
                + " [group=counter,partition=1,topic=arrivals]",
            "lowwater.partition.watermark.lag GAUGE milliseconds"
                + " [group=counter,partition=0,topic=arrivals]",
            "lowwater.partition.watermark.lag GAUGE milliseconds"
                + " [group=counter,partition=1,topic=arrivals]",
            "lowwater.partitions.active GAUGE partitions [group=counter]",
            "lowwater.partitions.assigned GAUGE partitions [group=counter]",
            "lowwater.partitions.held GAUGE partitions [group=counter]",
            "lowwater.partitions.idle GAUGE partitions [group=counter]",
            "lowwater.partitions.over.resume.limit GAUGE partitions [group=counter]",
            "lowwater.partitions.paused GAUGE partitions [group=counter]",
            "lowwater.progress.commits COUNTER calls [group=counter]",
            "lowwater.progress.failures COUNTER calls [group=counter]",
            "lowwater.quiet.advances COUNTER advances [group=counter]",
            "lowwater.records.redelivered COUNTER records [group=counter]",
            "lowwater.records.skipped COUNTER records [group=counter]",
            "lowwater.resume.age.max GAUGE milliseconds [group=counter]",
            "lowwater.resume.distance.max GAUGE records [group=counter]",
            "lowwater.rows.early COUNTER rows [group=counter]",
            "lowwater.rows.incomplete COUNTER rows [group=counter]",
            "lowwater.rows.late COUNTER rows [group=counter]",
            "lowwater.watermark.lag GAUGE milliseconds [group=counter]",
            "lowwater.windows.finalized COUNTER windows [group=counter]",
            "lowwater.windows.open GAUGE windows [group=counter]",
            "lowwater.windows.retired COUNTER windows [group=counter]");
    assertThat(value(registry, "lowwater.watermark.lag", GROUP)).isNaN();
    assertThat(value(registry, "lowwater.partition.frontier.lag", partition(P0))).isNaN();

    clock.advance(Duration.ofMinutes(10)); // the wall clock is at T + 10 min
    feed(
        windows,
        records(
            record(P0, 0, T + MINUTE),
            record(P0, 1, T + 6 * MINUTE), // P0's watermark is T + 6 min: its [T, T + 5) closes
            record(P0, 2, T + 4 * MINUTE, null), // no value: skipped
            record(P0, 3, T + 3 * MINUTE), // late on P0
            record(P1, 0, T + 2 * MINUTE)));

    assertThat(value(registry, "lowwater.partition.frontier.lag", partition(P0)))
        .isEqualTo(4.0 * MINUTE);
    assertThat(value(registry, "lowwater.partition.watermark.lag", partition(P0)))
        .isEqualTo(4.0 * MINUTE);
    assertThat(value(registry, "lowwater.partition.frontier.lag", partition(P1)))
        .isEqualTo(8.0 * MINUTE);
    assertThat(value(registry, "lowwater.partition.watermark.lag", partition(P1)))
        .isEqualTo(8.0 * MINUTE);
    assertThat(value(registry, "lowwater.watermark.lag", GROUP))
        .as("the instance's watermark is the slowest partition's")
        .isEqualTo(8.0 * MINUTE);
    assertThat(value(registry, "lowwater.group.watermark.lag", GROUP))
        .as("without a consumer there is no group watermark")
        .isNaN();
    assertThat(value(registry, "lowwater.partitions.assigned", GROUP)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.windows.open", GROUP)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.entries.open", GROUP)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.windows.finalized", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.events.accepted", GROUP)).isEqualTo(3.0);
    assertThat(value(registry, "lowwater.events.late", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.events.future", GROUP)).isZero();
    assertThat(value(registry, "lowwater.records.skipped", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.records.redelivered", GROUP)).isZero();
    assertThat(value(registry, "lowwater.quiet.advances", GROUP)).isZero();
    assertThat(value(registry, "lowwater.alignment.pauses", GROUP)).isZero();
    assertThat(value(registry, "lowwater.alignment.resumes", GROUP)).isZero();
    assertThat(value(registry, "lowwater.partitions.active", GROUP)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.partitions.idle", GROUP)).isZero();
    assertThat(value(registry, "lowwater.partitions.paused", GROUP)).isZero();

    clock.advance(Duration.ofMinutes(3)); // both partitions silent beyond the 2-minute timeout
    feed(windows, records(record(P1, 1, T + 3 * MINUTE)));
    assertThat(value(registry, "lowwater.partitions.active", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.partitions.idle", GROUP)).isEqualTo(1.0);
  }

  @Test
  void sessionWindowsShowTheAgeOfEachPartitionsOldestPendingSession() {
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.sessions(Duration.ofMinutes(1), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsMetrics metrics = new KafkaWindowsMetrics(windows, GROUP, clock);
    metrics.bindTo(registry);
    String age = "lowwater.partition.session.oldest.age";
    assertThat(value(registry, age, partition(P0))).as("nothing read yet").isNaN();
    feed(windows, records(record(P0, 0, T - 3 * MINUTE), record(P0, 1, T - 2 * MINUTE)));
    windows.pollFinalized(); // the sessions [T-3m, T-2m) and [T-2m, T-1m): the first returned
    assertThat(value(registry, age, partition(P0))).isEqualTo(2.0 * MINUTE);
    feed(windows, records(record(P0, 2, T)));
    windows.pollFinalized();
    assertThat(value(registry, age, partition(P0))).isZero();

    KafkaWindows<String, Long, Long> tumbling =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    tumbling.rebalanceListener().onPartitionsAssigned(List.of(P0));
    SimpleMeterRegistry other = new SimpleMeterRegistry();
    new KafkaWindowsMetrics(tumbling, GROUP, clock).bindTo(other);
    assertThat(other.find(age).meters()).as("windows of a size have no sessions").isEmpty();
  }

  @Test
  void aPartitionThatLeavesLosesItsMetersAtTheNextRefresh() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    ConsumerRebalanceListener listener = windows.rebalanceListener();
    listener.onPartitionsAssigned(List.of(P0, P1));
    KafkaWindowsMetrics metrics = new KafkaWindowsMetrics(windows, GROUP, clock);
    SimpleMeterRegistry other = new SimpleMeterRegistry();
    metrics.bindTo(registry);
    metrics.bindTo(other);
    feed(windows, records(record(P0, 0, T - MINUTE), record(P1, 0, T - 2 * MINUTE)));
    assertThat(value(registry, "lowwater.partition.frontier.lag", partition(P1)))
        .isEqualTo(2.0 * MINUTE);

    listener.onPartitionsRevoked(List.of(P1));
    assertThat(value(registry, "lowwater.partition.frontier.lag", partition(P1)))
        .as("before the refresh: NaN, never the stale value")
        .isNaN();
    metrics.refresh();
    for (SimpleMeterRegistry r : List.of(registry, other)) {
      assertThat(r.find("lowwater.partition.frontier.lag").tag("partition", "1").meters())
          .isEmpty();
      assertThat(r.find("lowwater.partition.watermark.lag").tag("partition", "1").meters())
          .isEmpty();
      assertThat(value(r, "lowwater.partition.frontier.lag", partition(P0))).isEqualTo(MINUTE);
    }
    assertThat(metrics.partitionsWithMeters()).containsExactly(P0);

    listener.onPartitionsAssigned(List.of(P2));
    metrics.refresh();
    assertThat(metrics.partitionsWithMeters()).containsExactlyInAnyOrder(P0, P2);
    assertThat(value(other, "lowwater.partition.frontier.lag", partition(P2))).isNaN();
    feed(windows, records(record(P2, 0, T)));
    assertThat(value(other, "lowwater.partition.frontier.lag", partition(P2))).isZero();

    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    assertThat(other.getMeters()).isEmpty();
  }

  @Test
  void aRefreshBeforeBindingRegistersTheKnownPartitionsOnBind() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsMetrics metrics = new KafkaWindowsMetrics(windows, GROUP, clock);
    metrics.refresh();
    metrics.bindTo(registry);
    assertThat(registry.find("lowwater.partition.frontier.lag").meters()).hasSize(1);
    assertThat(registry.find("lowwater.partition.watermark.lag").meters()).hasSize(1);
  }

  @Test
  void bindingAgainRefreshesAndACloseThenBindRegistersEveryMeterAgain() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsMetrics metrics = new KafkaWindowsMetrics(windows, GROUP, clock);
    metrics.bindTo(registry);
    assertThat(registry.getMeters()).hasSize(30 + 6); // 30 instance meters, 6 per partition
    windows.rebalanceListener().onPartitionsAssigned(List.of(P1));
    metrics.bindTo(registry); // already bound: only refreshes
    assertThat(registry.getMeters()).hasSize(30 + 12);
    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    metrics.bindTo(registry);
    assertThat(registry.getMeters()).hasSize(30 + 12);
    assertThat(metrics.partitionsWithMeters()).containsExactlyInAnyOrder(P0, P1);
  }

  @Test
  void theQuietPeriodAdvanceIsCounted() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ofMinutes(1))
            .quietAdvanceAfter(Duration.ofSeconds(90))
            .consumer(new MockConsumer<>("earliest"))
            .build();
    KafkaWindowsMetrics metrics = new KafkaWindowsMetrics(windows, GROUP, clock);
    metrics.bindTo(registry);
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(windows, records(record(P0, 0, T)));
    metrics.refresh(); // as the loop does after each poll: P0's meters appear
    clock.advance(Duration.ofSeconds(100));
    feed(windows, records());
    assertThat(windows.quietAdvances()).isPositive();
    assertThat(value(registry, "lowwater.quiet.advances", GROUP))
        .isEqualTo((double) windows.quietAdvances());
    assertThat(value(registry, "lowwater.partition.watermark.lag", partition(P0)))
        .as("advanced to the wall clock minus the allowed lateness")
        .isEqualTo(1.0 * MINUTE);
  }

  @Test
  void theAlignmentsPausesAndResumesAreCounted() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0, P1));
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ofMinutes(1))
            .resultScope(ResultScope.MERGED)
            .consumer(consumer)
            .maxDrift(Duration.ofMinutes(10))
            .build();
    new KafkaWindowsMetrics(windows, GROUP, clock).bindTo(registry);
    feed(windows, records(record(P0, 0, T), record(P1, 0, T + 20 * MINUTE))); // P1 21 min ahead
    assertThat(value(registry, "lowwater.alignment.pauses", GROUP)).isEqualTo(1.0);
    feed(windows, records(record(P0, 1, T + 15 * MINUTE))); // P1 is 6 min ahead: resumed
    assertThat(value(registry, "lowwater.alignment.pauses", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.alignment.resumes", GROUP)).isEqualTo(1.0);
  }

  /**
   * A second owner re-reads a record of a window the first owner wrote (its checkpoint says so):
   * counted as redelivered, not late; a record the first owner declared late is late again.
   */
  @Test
  void recordsOfAWindowThePreviousOwnerWroteAreCountedAsRedelivered() {
    KafkaWindows<String, Long, Long> first =
        builder(Duration.ofMinutes(2)).consumer(new MockConsumer<>("earliest")).build();
    first.rebalanceListener().onPartitionsAssigned(List.of(P0));
    feed(
        first,
        records(
            record(P0, 0, T + MINUTE),
            record(P0, 1, T + 6 * MINUTE),
            record(P0, 2, T + 2 * MINUTE), // into [0, 5): the watermark is 4 min
            record(P0, 3, T + 8 * MINUTE),
            record(P0, 4, T + MINUTE))); // late: the watermark is 6 min
    assertThat(first.pollFinalized()).extracting(WindowResult::start).containsExactly(T);
    Map<TopicPartition, OffsetAndMetadata> committed = first.committableOffsets();
    assertThat(committed.get(P0).offset()).isEqualTo(1);

    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> second =
        builder(Duration.ofMinutes(2)).consumer(consumer).build();
    new KafkaWindowsMetrics(second, GROUP, clock).bindTo(registry);
    consumer.subscribe(List.of(P0.topic()), second.rebalanceListener());
    consumer.commitSync(committed);
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    consumer.rebalance(List.of(P0));
    feed(
        second,
        records(
            record(P0, 1, T + 6 * MINUTE),
            record(P0, 2, T + 2 * MINUTE),
            record(P0, 3, T + 8 * MINUTE),
            record(P0, 4, T + MINUTE)));

    assertThat(value(registry, "lowwater.records.redelivered", GROUP)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.events.late", GROUP)).isEqualTo(1.0);
  }

  @Test
  void tagsThatTheMetersAddAreRejected() {
    KafkaWindows<String, Long, Long> windows =
        builder(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    assertThatThrownBy(() -> new KafkaWindowsMetrics(windows, Tags.of("partition", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition");
    assertThatThrownBy(() -> new KafkaWindowsMetrics(windows, Tags.of("topic", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic");
    assertThatThrownBy(() -> new KafkaWindowsMetrics(windows, GROUP, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
  }
}
