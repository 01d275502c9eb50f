package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.Clock;
import io.github.lowwater.ManualClock;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * A stalled loop (issue 45, item 5): the loop stops calling {@code onPoll} while its consumer stays
 * in the group. Every progress reading is as of the last {@code onPoll}, so they all stand still
 * (the processed lag stayed 0 while the progress group's lag grew to 4,116 records); {@code
 * millisSinceLastPoll()}, read on the live clock, is the one that grows. Before the fix there was
 * no reading that moved during a stall.
 */
class StalledLoopTest {

  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final TopicPartition P0 = new TopicPartition("arrivals", 0);

  static ConsumerRecord<String, String> record(TopicPartition tp, long offset, long timestamp) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        timestamp,
        TimestampType.CREATE_TIME,
        0,
        0,
        "k",
        "v",
        new RecordHeaders(),
        Optional.empty());
  }

  @Test
  void theTimeSinceTheLastPollIsUnknownBeforeTheFirstAndGrowsWhileTheLoopStalls() throws Exception {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    assertThat(windows.millisSinceLastPoll()).isEqualTo(-1);

    clock.advance(Duration.ofSeconds(5));
    windows.onPoll(
        new ConsumerRecords<>(Map.of(P0, List.of(record(P0, 0, NOW.toEpochMilli()))), Map.of()),
        ConsumerRecord::key,
        r -> 1L);
    assertThat(windows.millisSinceLastPoll()).isZero();

    clock.advance(Duration.ofNanos(999_999));
    assertThat(windows.millisSinceLastPoll()).isZero(); // whole milliseconds, rounded down
    clock.advance(Duration.ofNanos(1));
    assertThat(windows.millisSinceLastPoll()).isEqualTo(1);

    long resumeDistance = windows.resumeDistance(P0);
    clock.advance(Duration.ofMinutes(3)); // the stall: no onPoll
    // read by a metrics thread, not the polling one
    assertThat(CompletableFuture.supplyAsync(windows::millisSinceLastPoll).get())
        .isEqualTo(1 + 180_000);
    assertThat(windows.resumeDistance(P0)).isEqualTo(resumeDistance); // stands still

    windows.onPoll(
        ConsumerRecords.<String, String>empty(),
        ConsumerRecord::key,
        r -> 1L); // an empty poll counts
    assertThat(windows.millisSinceLastPoll()).isZero();
  }

  @Test
  void anOnPollThatThrowsStillCountsAsAPoll() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    windows.onPoll(ConsumerRecords.<String, String>empty(), ConsumerRecord::key, r -> 1L);
    clock.advance(Duration.ofMinutes(1));
    assertThatThrownBy(
            () ->
                windows.onPoll(
                    new ConsumerRecords<>(
                        Map.of(P0, List.of(record(P0, 0, NOW.toEpochMilli()))), Map.of()),
                    ConsumerRecord::key,
                    r -> {
                      throw new IllegalStateException("poison");
                    }))
        .hasMessage("poison");
    assertThat(windows.millisSinceLastPoll()).isZero(); // the loop runs: it is not a stall
  }

  @Test
  void aJoinsTimeSinceTheLastPollGrowsWhileTheLoopStalls() {
    ManualClock clock = new ManualClock(NOW);
    KafkaJoin<String, String, String, String> join =
        KafkaJoin.<String, String, String, String>builder(
                JoinInterval.between(Duration.ZERO, Duration.ofMinutes(10)),
                (k, l, r) -> l + "|" + r)
            .topics("orders", "payments")
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    assertThat(join.millisSinceLastPoll()).isEqualTo(-1);
    join.onPoll(
        ConsumerRecords.<String, String>empty(), r -> r.key(), r -> r.value(), r -> r.value());
    assertThat(join.millisSinceLastPoll()).isZero();
    clock.advance(Duration.ofSeconds(42));
    assertThat(join.millisSinceLastPoll()).isEqualTo(42_000);
  }

  @Test
  void theStampComparesDifferencesSoANanoTimeThatWrapsStillCounts() {
    long[] nanos = {Long.MAX_VALUE - 500_000_000L};
    Clock wrapping =
        new Clock() {
          @Override
          public long monotonicNanos() {
            return nanos[0];
          }

          @Override
          public long wallMillis() {
            return 0;
          }
        };
    PollStamp stamp = new PollStamp(wrapping);
    stamp.stamp();
    nanos[0] += 2_000_000_000L; // overflows past Long.MAX_VALUE, as System.nanoTime may
    assertThat(stamp.millisSinceLast()).isEqualTo(2_000);
    nanos[0] -= 3_000_000_000L; // a reading behind the stamp
    assertThat(stamp.millisSinceLast()).isZero();
  }
}
