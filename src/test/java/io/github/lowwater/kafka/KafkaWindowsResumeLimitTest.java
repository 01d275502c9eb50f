package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * Semantics rule 66: {@code resumeDistanceLimit}. A partition whose resume distance passes the
 * limit is counted and logged once per crossing, with what holds its commit: an open window, a
 * window in its grace period, or a session that has not ended.
 */
class KafkaWindowsResumeLimitTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofHours(1)));
  final MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);

  KafkaWindows<String, Long, Long> windows(KafkaWindows.Builder<Long, Long> builder) {
    consumer.updateEndOffsets(Map.of(P0, 100L));
    KafkaWindows<String, Long, Long> w =
        builder.allowedLateness(Duration.ZERO).clock(clock).consumer(consumer).build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  void read(KafkaWindows<String, Long, Long> w, long offset, double minute) {
    consumer.addRecord(record(P0, offset, minute, "a"));
    w.onPoll(consumer.poll(Duration.ZERO), ConsumerRecord::key, r -> 1L);
    w.pollFinalized();
  }

  @Test
  @ResourceLock(Resources.SYSTEM_ERR)
  void aPartitionPastTheLimitIsCountedAndLoggedOncePerCrossingWithWhatHoldsItsCommit() {
    KafkaWindows<String, Long, Long> w =
        windows(
            KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                .resumeDistanceLimit(2));
    String log =
        stderrOf(
            () -> {
              read(w, 0, 1);
              read(w, 1, 2);
              assertThat(w.resumeDistance(P0)).isEqualTo(2); // at the limit: not over it
              assertThat(w.partitionsOverResumeLimit()).isZero();
              read(w, 2, 3);
              assertThat(w.partitionsOverResumeLimit()).isEqualTo(1); // 3 > 2
              read(w, 3, 4); // still over: no second line
              assertThat(w.partitionsOverResumeLimit()).isEqualTo(1);
              read(w, 4, 6); // closes [0, 5), returned after this poll's readings
              read(w, 5, 7); // [5, 10) holds offset 4: the distance is 2
              assertThat(w.partitionsOverResumeLimit()).isZero();
              read(w, 6, 8); // over again: a second line
              assertThat(w.partitionsOverResumeLimit()).isEqualTo(1);
            });
    assertThat(log.lines().filter(l -> l.contains("over the resumeDistanceLimit of 2")))
        .hasSize(2)
        .first()
        .asString()
        .contains(P0.toString(), "3 records again", "the window ending at", "still open");
  }

  @Test
  @ResourceLock(Resources.SYSTEM_ERR)
  void theWarnNamesTheGracePeriodOrASessionThatHasNotEnded() {
    KafkaWindows<String, Long, Long> paned =
        windows(
            KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                .grace(Duration.ofMinutes(10))
                .resumeDistanceLimit(1));
    String graceLog =
        stderrOf(
            () -> {
              read(paned, 0, 1);
              read(paned, 1, 6); // [0, 5) ended, in its grace period until 15 min
            });
    assertThat(graceLog).contains("held by the grace period of the window ending at");

    MockConsumer<String, String> sessionsConsumer = KafkaWindowsTest.assigned(P0);
    sessionsConsumer.updateEndOffsets(Map.of(P0, 100L));
    KafkaWindows<String, Long, Long> sessions =
        KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .resumeDistanceLimit(1)
            .clock(clock)
            .consumer(sessionsConsumer)
            .build();
    sessions.rebalanceListener().onPartitionsAssigned(List.of(P0));
    String sessionLog =
        stderrOf(
            () -> {
              sessionsConsumer.addRecord(record(P0, 0, 1, "a"));
              sessionsConsumer.addRecord(record(P0, 1, 2, "a"));
              sessions.onPoll(sessionsConsumer.poll(Duration.ZERO), ConsumerRecord::key, r -> 1L);
            });
    assertThat(sessionLog)
        .contains("held by a session that has not ended")
        .contains("without maxSessionSpan");
  }

  @Test
  void aLimitThatIsNotPositiveIsRefusedByName() {
    assertThatThrownBy(
            () ->
                KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                    .resumeDistanceLimit(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("resumeDistanceLimit must be > 0: 0");
    KafkaWindows<String, Long, Long> none =
        windows(KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()));
    read(none, 0, 1);
    read(none, 1, 2);
    assertThat(none.partitionsOverResumeLimit()).as("no limit").isZero();
  }

  /** What slf4j-simple writes to System.err while {@code run} runs (it looks the stream up). */
  static String stderrOf(Runnable run) {
    PrintStream before = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      run.run();
    } finally {
      System.setErr(before);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
