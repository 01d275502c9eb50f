package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.CachedClock;
import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The two result scopes, each on its own: which windows a new partition feeds, what a revocation
 * keeps, and how the instance's readings are formed.
 */
class WindowScopeTest {

  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);
  static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

  final ManualClock clock = new ManualClock(Instant.ofEpochMilli(T0 + 3_600_000));
  final CachedClock cached = new CachedClock(clock);
  final PartitionTable<String, Long, Long> table = new PartitionTable<>();

  WindowScope<String, Long, Long> scope(ResultScope scope) {
    KafkaSettings<Long, Long> settings =
        new KafkaSettings<>(
            Duration.ofMinutes(5),
            null,
            null,
            null,
            null,
            null,
            null,
            Aggregators.sumLong(),
            new FrozenOptions().allowedLateness(Duration.ZERO),
            clock,
            null,
            scope,
            Duration.ofSeconds(10).toNanos(),
            new MockConsumer<String, String>("earliest"),
            Long.MAX_VALUE,
            Duration.ofSeconds(90).toNanos(),
            Duration.ofHours(1).toMillis(),
            -1,
            null,
            MissingRecordsPolicy.MARK,
            ResumeLimit.NONE);
    return WindowScope.of(
        settings, cached, new RecordAdmission<>(null, scope == ResultScope.MERGED), null, 0);
  }

  PartitionState<String, Long, Long> assign(WindowScope<String, Long, Long> s, TopicPartition tp) {
    PartitionState<String, Long, Long> p = s.givenBack(tp);
    if (p == null) {
      p = s.newPartition(tp, 0);
    }
    table.put(p);
    table.publish(PartitionTable.NO_STATS);
    return p;
  }

  @Test
  void perPartitionEachPartitionHasItsOwnWindowsAndTheInstanceReadsTheirMinimum() {
    WindowScope<String, Long, Long> s = scope(ResultScope.PER_PARTITION);
    assertThat(s.watermark(table.view()))
        .as("none assigned")
        .isEqualTo(WatermarkTracker.NO_WATERMARK);
    PartitionState<String, Long, Long> p0 = assign(s, P0);
    PartitionState<String, Long, Long> p1 = assign(s, P1);
    assertThat(p0.windows).isNotSameAs(p1.windows);
    p0.windows.add(p0.source, T0 + 10_000, "a", 1L);
    assertThat(s.watermark(table.view()))
        .as("P1 holds it")
        .isEqualTo(WatermarkTracker.NO_WATERMARK);
    p1.windows.add(p1.source, T0 + 4_000, "a", 1L);
    assertThat(s.watermark(table.view())).isEqualTo(T0 + 4_000);
    assertThat(s.activePartitionCount(table.view())).isEqualTo(2);
    WindowStats stats = s.stats(table.view());
    assertThat(stats.accepted()).isEqualTo(2);
    assertThat(stats.watermark()).isEqualTo(T0 + 4_000);

    table.remove(P1);
    table.publish(s.revoked(p1));
    assertThat(s.stats(table.view()).accepted()).as("P1's count survives it").isEqualTo(2);
    assertThat(s.givenBack(P1)).as("per partition, nothing comes back").isNull();
    assertThatThrownBy(() -> s.seedWatermark(T0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("seedWatermark is for resultScope(MERGED)");
    assertThatThrownBy(s::windows)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("windows() is for resultScope(MERGED)");
  }

  @Test
  void mergedEveryPartitionFeedsTheSharedWindowsAndOneGivenBackTakesUpWhereItWas() {
    WindowScope<String, Long, Long> s = scope(ResultScope.MERGED);
    PartitionState<String, Long, Long> p0 = assign(s, P0);
    PartitionState<String, Long, Long> p1 = assign(s, P1);
    assertThat(p0.windows).isSameAs(p1.windows).isSameAs(s.windows());
    p0.windows.add(p0.source, T0 + 10_000, "a", 1L);
    p0.readPast(0);
    p1.windows.add(p1.source, T0 + 4_000, "a", 1L);
    assertThat(s.watermark(table.view())).isEqualTo(T0 + 4_000);

    List<TopicPartition> revoked = new ArrayList<>(List.of(P1, P0));
    s.revocationOrder(revoked);
    assertThat(revoked).as("fastest first").containsExactly(P0, P1);
    table.remove(P0);
    assertThat(s.revoked(p0)).isEqualTo(PartitionTable.NO_STATS);
    assertThat(s.stats(table.view()).accepted()).as("its records stay").isEqualTo(2);
    PartitionState<String, Long, Long> back = assign(s, P0);
    assertThat(back).isSameAs(p0);
    assertThat(back.processedBelowOffset).as("what it had read is in the windows").isEqualTo(1);

    table.remove(P0);
    s.revoked(back);
    s.rebalanced(); // not given back in this rebalance: gone
    assertThat(s.givenBack(P0)).isNull();
    assertThat(s.seedWatermark(T0 + 60_000)).isEqualTo(T0 + 60_000);
  }

  @Test
  void thePerPollStepAdvancesAQuietPartitionAndCountsIt() {
    WindowScope<String, Long, Long> s = scope(ResultScope.PER_PARTITION);
    PartitionState<String, Long, Long> p0 = assign(s, P0);
    p0.windows.add(p0.source, clock.wallMillis() - 60_000, "a", 1L);
    p0.readPast(0); // else it waits for records a previous owner read
    s.afterPoll(table, Set.of(), Duration.ofSeconds(89).toNanos(), clock.wallMillis());
    assertThat(s.quietAdvances()).as("89 s: not quiet yet").isZero();
    s.afterPoll(table, Set.of(P0), Duration.ofSeconds(91).toNanos(), clock.wallMillis());
    assertThat(s.quietAdvances()).as("paused time is not quiet").isZero();
    s.afterPoll(table, Set.of(), Duration.ofSeconds(91).toNanos(), clock.wallMillis());
    assertThat(s.quietAdvances()).isOne();
    assertThat(p0.windows.watermark()).isEqualTo(clock.wallMillis());
  }
}
