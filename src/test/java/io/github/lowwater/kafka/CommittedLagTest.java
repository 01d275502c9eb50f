package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * How far the committed offset trails the read position with steady traffic (issue 45, item 5):
 * docs/operations.md said the committed lag "never goes below about a window's worth"; measured on
 * a live group (1-minute windows, 30 s lateness) it saws between about the lateness (34 s) and the
 * window plus the lateness (89 s). This pins the edges the page now states, derived from rule 26
 * (the offset of the oldest record in a window not yet returned): with one record a second, the lag
 * in records is its span in seconds, {@code L + ((F - L) mod W)} for tumbling windows.
 */
class CommittedLagTest {

  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final long T = NOW.toEpochMilli(); // a multiple of a minute
  static final TopicPartition P0 = new TopicPartition("arrivals", 0);

  /**
   * The smallest and largest committed lag, in records, over ten minutes at one record a second.
   */
  static long[] floorAndPeak(KafkaWindows.Builder<Long, Long> builder) {
    KafkaWindows<String, Long, Long> windows =
        builder.clock(new ManualClock(NOW)).consumer(new MockConsumer<>("earliest")).build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    long floor = Long.MAX_VALUE;
    long peak = Long.MIN_VALUE;
    for (int i = 0; i < 600; i++) {
      ConsumerRecord<String, String> r = StalledLoopTest.record(P0, i, T + i * 1_000L);
      windows.onPoll(
          new ConsumerRecords<>(Map.of(P0, List.of(r)), Map.of()), ConsumerRecord::key, c -> 1L);
      windows.pollFinalized();
      long lag = (i + 1) - windows.committableOffsets().get(P0).offset();
      if (i >= 300) { // steady state
        floor = Math.min(floor, lag);
        peak = Math.max(peak, lag);
      }
    }
    return new long[] {floor, peak};
  }

  @Test
  void withTumblingWindowsTheCommittedLagSawsBetweenTheLatenessAndTheWindowPlusTheLateness() {
    assertThat(
            floorAndPeak(
                KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
                    .allowedLateness(Duration.ofSeconds(30))))
        .containsExactly(31, 90); // records: L + 1 and W + L (the record at F counts)
  }

  @Test
  void withHoppingWindowsItSawsBetweenSizeMinusAdvancePlusLatenessAndSizePlusLateness() {
    assertThat(
            floorAndPeak(
                KafkaWindows.builder(Duration.ofMinutes(2), Aggregators.sumLong())
                    .hopping(Duration.ofMinutes(1))
                    .allowedLateness(Duration.ofSeconds(30))))
        .containsExactly(91, 150);
  }
}
