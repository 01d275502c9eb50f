package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Alignment}'s rules, each at its edge, on a {@link MockConsumer}. */
class AlignmentTest {

  static final long MINUTE = 60_000;
  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);
  static final TopicPartition P2 = new TopicPartition("t", 2);

  ManualClock clock;
  MockConsumer<String, String> consumer;
  TumblingWindows<String, Long, Long> windows;
  Alignment alignment;

  @BeforeEach
  void setUp() {
    clock = new ManualClock();
    consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0, P1, P2));
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L, P2, 0L));
    windows =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(1))
            .idleTimeout(Duration.ofMinutes(2))
            .clock(clock)
            .build();
    alignment = new Alignment(consumer, 10 * MINUTE);
  }

  /** P0 and P2 at 0, P1 at 20 minutes: the watermark is -1 minute, P1 is 21 minutes ahead. */
  void p1TwentyMinutesAhead() {
    windows.add(P0, 0, "k", 1L);
    windows.add(P1, 20 * MINUTE, "k", 1L);
    windows.add(P2, 0, "k", 1L);
  }

  @Test
  void aPartitionMoreThanMaxDriftAheadIsPausedAndResumedOnceBackWithin() {
    p1TwentyMinutesAhead();
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).containsExactly(P1);
    assertThat(alignment.paused()).containsExactly(P1);
    windows.add(P0, 15 * MINUTE, "k", 1L);
    windows.add(P2, 15 * MINUTE, "k", 1L); // watermark 14 min: P1 is 6 min ahead
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).isEmpty();
    assertThat(alignment.pauses()).isEqualTo(1);
    assertThat(alignment.resumes()).isEqualTo(1);
  }

  @Test
  void exactlyMaxDriftAheadIsNotPaused() {
    windows.add(P0, 0, "k", 1L);
    windows.add(P1, 10 * MINUTE - MINUTE, "k", 1L); // frontier - watermark = 10 min exactly
    windows.add(P2, 0, "k", 1L);
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).isEmpty();
  }

  /** Regression: the alignment took over a pause the caller made, and later lifted it. */
  @Test
  void aPartitionTheCallerPausedIsNeitherTakenOverNorResumed() {
    p1TwentyMinutesAhead();
    consumer.pause(List.of(P1)); // the caller's own pause, say for back-pressure
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(alignment.paused()).isEmpty();
    windows.add(P0, 25 * MINUTE, "k", 1L);
    windows.add(P2, 25 * MINUTE, "k", 1L); // P1 is no longer ahead
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).as("still the caller's pause").containsExactly(P1);
    assertThat(alignment.resumes()).isZero();
  }

  @Test
  void aPartitionTheAlignmentPausedAndTheCallerResumedIsPausedAgainWhileAhead() {
    p1TwentyMinutesAhead();
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    consumer.resume(List.of(P1));
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).containsExactly(P1);
  }

  /**
   * Regression: before the first watermark, the alignment took the minimum over every partition's
   * frontier, idle ones included, and paused the only active partition behind an idle one's old
   * frontier.
   */
  @Test
  void beforeTheFirstWatermarkAnIdlePartitionCannotGetTheOnlyActiveOnePaused() {
    TopicPartition p3 = new TopicPartition("t", 3);
    windows.register(P2); // assigned, never delivers
    windows.add(P0, 0, "k", 1L);
    clock.advance(Duration.ofMinutes(3)); // P0 and P2 go idle
    windows.refresh();
    windows.register(p3); // assigned later, not delivered yet: still no watermark
    windows.add(P1, 60 * MINUTE, "k", 1L);
    assertThat(windows.watermark()).isEqualTo(Long.MIN_VALUE);
    assertThat(windows.isActive(P0)).isFalse();
    alignment.align(List.of(P0, P1, P2, p3), windows, consumer.paused());
    assertThat(consumer.paused()).as("P1 is the only active partition").isEmpty();
  }

  @Test
  void beforeTheFirstWatermarkTheActivePartitionsAlignOnTheSlowestOfThem() {
    windows.register(P2);
    windows.add(P0, 0, "k", 1L);
    windows.add(P1, 60 * MINUTE, "k", 1L);
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    assertThat(consumer.paused()).containsExactly(P1);
  }

  @Test
  void aForgottenPartitionIsNoLongerCountedAsPausedByTheAlignment() {
    p1TwentyMinutesAhead();
    alignment.align(List.of(P0, P1, P2), windows, consumer.paused());
    alignment.forget(P1);
    assertThat(alignment.pausedAny()).isFalse();
  }
}
