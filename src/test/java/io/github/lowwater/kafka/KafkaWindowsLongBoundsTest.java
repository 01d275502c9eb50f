package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * Records at the {@code long} bounds and the end of input with a grace period (issue 32, defects 5
 * and 6): a record that can never be windowed goes to the late path instead of failing every poll,
 * and after {@code finishAll()} nothing holds the commit.
 */
class KafkaWindowsLongBoundsTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final List<String> late = new ArrayList<>();

  static ConsumerRecord<String, String> at(long offset, long timestampMillis) {
    return KafkaWindowsWallClockTest.record(offset, timestampMillis, "a");
  }

  KafkaWindows<String, Long, Long> build(KafkaWindows.Builder<Long, Long> b) {
    KafkaWindows<String, Long, Long> w =
        b.allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .lateRecordHandler(
                (r, reason, t, end, watermark) -> late.add(r.offset() + " " + reason + " " + end))
            .<String, Long>build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  /**
   * Defect 5: hopping windows refuse an event time within a size of {@code Long.MAX_VALUE}; the
   * refusal propagated out of {@code onPoll}, the rewind brought the record back, and the partition
   * never got past it. It is a valid CreateTime: it goes to the late path.
   */
  @Test
  void aHoppingRecordNearLongMaxGoesToTheLatePathAndThePartitionGoesOn() {
    KafkaWindows<String, Long, Long> w =
        build(
            KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                .hopping(Duration.ofMinutes(1)));
    KafkaWindowsTest.feed(
        w, record(P0, 0, 1, "a"), at(1, Long.MAX_VALUE - 1), at(2, Long.MIN_VALUE + 1));
    assertThat(late) // reported with no window end
        .containsExactly("1 LATE " + Long.MAX_VALUE, "2 LATE " + Long.MAX_VALUE);
    assertThat(w.stats().late()).isEqualTo(2);
    assertThat(w.committableOffsets().get(P0).offset()).isEqualTo(0); // [.., 1m] still open
    List<WindowResult<String, Long>> rows = w.pollFinalized(); // the frontier moved to the bound
    assertThat(rows).extracting(WindowResult::value).containsOnly(1L);
    assertThat(w.committableOffsets().get(P0).offset()).isEqualTo(3);
  }

  /**
   * Defect 6: after {@code finishAll()} the returned-through time was {@code Long.MAX_VALUE -
   * grace}, so windows ending above it (every window with a grace period of {@code FOREVER}) kept
   * the commit at their first record although every window was retired and drained.
   */
  @Test
  void afterFinishAllAGracePeriodOfForeverHoldsNothing() {
    KafkaWindows<String, Long, Long> w =
        build(
            KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                .grace(ChronoUnit.FOREVER.getDuration()));
    KafkaWindowsTest.feed(w, record(P0, 0, 1, "a"), record(P0, 1, 7, "a"));
    w.finishAll();
    assertThat(w.pollFinalized()).isNotEmpty();
    assertThat(w.committableOffsets().get(P0).offset()).isEqualTo(2);
  }

  /** Defect 6 at the bound: a record stamped {@code Long.MAX_VALUE}, a grace period of a minute. */
  @Test
  void afterFinishAllARecordAtLongMaxWithAGracePeriodHoldsNothing() {
    KafkaWindows<String, Long, Long> w =
        build(
            KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                .grace(Duration.ofMinutes(1)));
    KafkaWindowsTest.feed(w, record(P0, 0, 1, "a"), at(1, Long.MAX_VALUE));
    w.finishAll();
    assertThat(w.pollFinalized()).isNotEmpty();
    assertThat(w.committableOffsets().get(P0).offset()).isEqualTo(2);
  }
}
