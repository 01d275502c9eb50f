package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Test;

/**
 * The progress readings of issue 33: what lag monitors cannot see, because the committed offset
 * trails what is processed by design. The processed lag (the log end minus the consumer's
 * position), the resume distance (the records a new owner would read again) and the resume age (how
 * long ago, and how far back in event time, the record a new owner would resume from was read), per
 * partition and as maxima, published at the end of each {@code onPoll}.
 */
class KafkaWindowsProgressTest {

  static final long MINUTE = 60_000;

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));

  MockConsumer<String, String> consumer() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P1);
    consumer.updateEndOffsets(Map.of(P0, 10L, P1, 0L));
    return consumer;
  }

  KafkaWindows<String, Long, Long> windows(MockConsumer<String, String> consumer) {
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    return w;
  }

  void poll(KafkaWindows<String, Long, Long> w, MockConsumer<String, String> consumer) {
    w.onPoll(consumer.poll(Duration.ZERO), ConsumerRecord::key, r -> 1L);
  }

  @Test
  void theLagIsTheLogEndMinusThePositionAndTheResumePointTheOldestRecordStillNeeded() {
    MockConsumer<String, String> consumer = consumer();
    KafkaWindows<String, Long, Long> w = windows(consumer);
    assertThat(w.processedLag(P0)).as("before the first poll").isEqualTo(-1);
    assertThat(w.resumeDistance(P0)).isEqualTo(-1);
    assertThat(w.resumeAgeMillis(P0, clock.wallMillis())).isEqualTo(-1);
    assertThat(w.maxResumeDistance()).isEqualTo(-1);

    consumer.addRecord(record(P0, 0, 1, "a"));
    consumer.addRecord(record(P0, 1, 2, "a"));
    consumer.addRecord(record(P0, 2, 6, "a")); // closes [0, 5); [5, 10) opens here
    consumer.addRecord(record(P0, 3, 7, "b"));
    consumer.addRecord(record(P0, 4, 8, "a"));
    poll(w, consumer);
    assertThat(consumer.position(P0)).isEqualTo(5);
    assertThat(w.processedLag(P0)).as("end 10, position 5").isEqualTo(5);
    assertThat(w.processedLag(P1)).as("end 0, position 0").isZero();
    assertThat(w.maxProcessedLag()).isEqualTo(5);
    assertThat(w.resumeDistance(P0)).as("[0, 5) is not returned yet").isEqualTo(5);
    assertThat(w.resumeDistance(P1)).as("P1 has read nothing").isEqualTo(-1);
    assertThat(w.resumeEventAgeMillis(P0))
        .as("frontier 8 min, record 0 at 1 min")
        .isEqualTo(7 * MINUTE);
    clock.advance(Duration.ofSeconds(30));
    assertThat(w.resumeAgeMillis(P0, clock.wallMillis())).isEqualTo(30_000);
    assertThat(w.maxResumeAgeMillis(clock.wallMillis())).isEqualTo(30_000);

    w.pollFinalized(); // [0, 5) returned: the resume point moves to [5, 10)'s first record
    poll(w, consumer);
    assertThat(w.resumeDistance(P0)).isEqualTo(3);
    assertThat(w.resumeEventAgeMillis(P0)).isEqualTo(2 * MINUTE);
    assertThat(w.committableOffsets().get(P0).offset())
        .as("the resume point is what the commit says")
        .isEqualTo(5 - w.resumeDistance(P0));

    consumer.addRecord(record(P0, 5, 11, "a")); // closes [5, 10): nothing is held after the drain
    poll(w, consumer);
    w.pollFinalized();
    consumer.addRecord(record(P0, 6, 16, "a"));
    poll(w, consumer);
    w.pollFinalized();
    poll(w, consumer);
    assertThat(w.resumeDistance(P0)).as("[15, 20) holds offset 6").isEqualTo(1);
    w.finishAll();
    w.pollFinalized();
    poll(w, consumer);
    assertThat(w.resumeDistance(P0)).as("nothing held").isZero();
    assertThat(w.resumeAgeMillis(P0, clock.wallMillis())).isZero();
    assertThat(w.resumeEventAgeMillis(P0)).isZero();
    assertThat(w.processedLag(P0)).isEqualTo(3);
  }

  /**
   * A new owner that has not re-read what its predecessor read commits the predecessor's offset:
   * its resume distance counts from there, and the age of a record it has not read is not known.
   */
  @Test
  void aNewOwnerBehindItsPredecessorResumesFromThePredecessorsCommit() {
    MockConsumer<String, String> consumer = consumer();
    consumer.commitSync(
        Map.of(
            P0,
            new OffsetAndMetadata(2, new Checkpoint(millis(0), millis(3), millis(3), 6).encode())));
    KafkaWindows<String, Long, Long> w = windows(consumer);
    consumer.addRecord(record(P0, 2, 6, "a"));
    consumer.addRecord(record(P0, 3, 7, "a"));
    poll(w, consumer);
    assertThat(w.resumeDistance(P0)).as("from the committed 2 to the position 4").isEqualTo(2);
    assertThat(w.resumeAgeMillis(P0, clock.wallMillis())).isEqualTo(-1);
    assertThat(w.resumeEventAgeMillis(P0)).isEqualTo(-1);
  }

  @Test
  void aPartitionNotAssignedHasNoReadingsAndANullOneIsRefusedByName() {
    KafkaWindows<String, Long, Long> w = windows(consumer());
    w.rebalanceListener().onPartitionsRevoked(List.of(P1));
    assertThat(w.processedLag(P1)).isEqualTo(-1);
    assertThat(w.resumeDistance(P1)).isEqualTo(-1);
    assertThat(w.resumeAgeMillis(P1, clock.wallMillis())).isEqualTo(-1);
    assertThat(w.resumeEventAgeMillis(P1)).isEqualTo(-1);
    assertThatThrownBy(() -> w.processedLag(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("partition");
  }
}
