package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.add;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.join;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * The edges of a hand-over that a review found: each test failed before its fix (a written row
 * rewritten with a partial value, a partition given back counted twice, a silent partition that
 * stopped committing, a quiet advance over a paused partition, a swallowed wakeup, a revoked
 * partition counted twice by a metrics thread).
 */
class KafkaWindowsHandOverEdgesTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));

  KafkaWindows.Builder<Long, Long> windows(Duration lateness) {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .allowedLateness(lateness)
        .clock(clock);
  }

  static List<WindowResult<String, Long>> pollAndWrite(
      MockConsumer<String, String> consumer,
      KafkaWindows<String, Long, Long> windows,
      KafkaWindowsMockConsumerTest.Sink sink) {
    windows.onPoll(consumer.poll(Duration.ofMillis(100)), ConsumerRecord::key, r -> 1L);
    List<WindowResult<String, Long>> results = windows.pollFinalized();
    results.forEach(sink::upsert);
    return results;
  }

  static void feed(KafkaWindows<String, Long, Long> w, ConsumerRecords<String, String> rs) {
    w.onPoll(rs, ConsumerRecord::key, r -> 1L);
  }

  /**
   * Finding 1. A record of a window the checkpoint says is written ({@code end <= e}) at an offset
   * the previous owner never read ({@code >= n}) is judged by the new owner's watermark. When e
   * came from a quiet-period advance, that watermark is below e, the record goes into a window
   * whose other records were skipped as redelivered, and the new owner overwrites the written row
   * with a partial value.
   */
  @Test
  void aRecordOfAWrittenWindowBeyondTheReadPositionNeverRewritesTheRowWithAPartialValue() {
    KafkaWindowsMockConsumerTest.Sink sink = new KafkaWindowsMockConsumerTest.Sink();
    Duration lateness = Duration.ofMinutes(10);
    // Instance A: [25, 30) opened first at offset 0, then [15, 20) twice (out of order, in time).
    MockConsumer<String, String> a = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> wa = windows(lateness).consumer(a).build();
    join(a, wa);
    add(a, record(P0, 0, 28, "a"), record(P0, 1, 19, "a"), record(P0, 2, 19, "a"));
    assertThat(pollAndWrite(a, wa, sink)).isEmpty(); // watermark 18
    clock.advance(Duration.ofSeconds(90)); // P0 quiet: its watermark goes to 31.5 - 10 = 21.5
    assertThat(pollAndWrite(a, wa, sink)).containsExactly(row(15, P0, "a", 2));
    a.commitSync(wa.committableOffsets()); // offset 0 ([25, 30) held), e = 21.5 min, n = 3
    // A dies here. Offset 3 (in [15, 20)) would have been late for A: its watermark was 21.5.

    MockConsumer<String, String> b = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> wb = windows(lateness).consumer(b).build();
    join(b, wb, a.committed(Set.of(P0)));
    add(b, record(P0, 0, 28, "a"), record(P0, 1, 19, "a"), record(P0, 2, 19, "a"));
    add(b, record(P0, 3, 17, "a"), record(P0, 4, 31, "a"));
    pollAndWrite(b, wb, sink); // Sink.upsert fails on a row rewritten with another value
    assertThat(sink.rows()).contains(row(15, P0, "a", 2));
  }

  /**
   * Finding 2. MERGED, one consumer: an eager rebalance (or onPartitionsLost after a missed poll
   * interval) revokes and re-assigns the same partition; the consumer resumes from the committed
   * offset and the re-read records go a second time into merged windows that still hold them.
   */
  @Test
  void mergedRevokeAndReassignOfTheSamePartitionDoesNotCountItsRecordsTwice() {
    KafkaWindows<String, Long, Long> w =
        windows(Duration.ZERO)
            .resultScope(ResultScope.MERGED)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    ConsumerRebalanceListener listener = w.rebalanceListener();
    long t = millis(0);
    listener.onPartitionsAssigned(List.of(P0));
    feed(w, KafkaWindowsBuilderTest.records(record(P0, 0, 1, "a"), record(P0, 1, 2, "a")));
    assertThat(w.committableOffsets().get(P0).offset()).isZero(); // [0, 5) not returned
    listener.onPartitionsRevoked(List.of(P0)); // eager rebalance of a single consumer
    listener.onPartitionsAssigned(List.of(P0)); // the position is the committed offset 0 again
    feed(
        w,
        KafkaWindowsBuilderTest.records(
            record(P0, 0, 1, "a"), record(P0, 1, 2, "a"), record(P0, 2, 6, "a")));
    assertThat(w.pollFinalized())
        .containsExactly(new WindowResult<>(t, t + 5 * 60_000, "a", 2L, null));
  }

  /**
   * Finding 3. MERGED: a partition the caller paused does not stop the instance's quiet-period
   * advance (only the alignment's pauses do), so its records are late once it is resumed. The docs
   * say paused time never counts toward quiet.
   */
  @Test
  void mergedQuietAdvanceWaitsWhileTheCallerHasAPartitionPaused() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P1);
    KafkaWindows<String, Long, Long> w =
        windows(Duration.ZERO).resultScope(ResultScope.MERGED).consumer(consumer).build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    feed(w, KafkaWindowsBuilderTest.records(record(P0, 0, 20, "a"), record(P1, 0, 20, "a")));
    long before = w.watermark();
    consumer.pause(List.of(P1)); // back-pressure: P1 has a backlog the caller does not fetch now
    clock.advance(Duration.ofSeconds(91)); // P0 silent, P1 paused
    feed(w, ConsumerRecords.empty());
    assertThat(w.watermark()).as("no quiet advance while P1 is paused").isEqualTo(before);
    consumer.resume(List.of(P1));
    feed(w, KafkaWindowsBuilderTest.records(record(P1, 1, 21, "a")));
    assertThat(w.stats().late()).isZero();
  }

  /**
   * Finding 4. A partition handed over while silent never commits again (committableOffsets skips a
   * partition that has not delivered since its assignment), so the quiet advance of its new owner
   * never reaches the checkpoint: the group watermark freezes at the previous owner's w.
   */
  @Test
  void aSilentPartitionHandedOverStillCommitsItsAdvancingCheckpoint() {
    KafkaWindowsMockConsumerTest.Sink sink = new KafkaWindowsMockConsumerTest.Sink();
    MockConsumer<String, String> a = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> wa = windows(Duration.ofMinutes(1)).consumer(a).build();
    join(a, wa);
    add(a, record(P0, 0, 1, "a"));
    pollAndWrite(a, wa, sink);
    clock.advance(Duration.ofSeconds(90));
    assertThat(pollAndWrite(a, wa, sink)).containsExactly(row(0, P0, "a", 1));
    a.commitSync(wa.committableOffsets());
    long committedW =
        Checkpoint.parse(a.committed(Set.of(P0)).get(P0).metadata()).watermarkMillis();

    MockConsumer<String, String> b = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> wb = windows(Duration.ofMinutes(1)).consumer(b).build();
    join(b, wb, a.committed(Set.of(P0)));
    clock.advance(Duration.ofMinutes(10));
    pollAndWrite(b, wb, sink); // P0 silent since B's assignment: quiet advance
    assertThat(wb.watermark(P0)).isGreaterThan(committedW);
    Map<TopicPartition, OffsetAndMetadata> offsets = wb.committableOffsets();
    assertThat(offsets).as("B never commits P0 again").containsKey(P0);
  }

  /**
   * Finding 5. The group-watermark read inside onPoll catches every RuntimeException, the
   * WakeupException of consumer.wakeup() (the documented way to stop a poll loop from another
   * thread) included: the wake-up is consumed and lost.
   */
  @Test
  void aWakeupDuringTheGroupWatermarkReadIsNotSwallowed() {
    MockConsumer<String, String> consumer =
        new MockConsumer<>("earliest") {
          @Override
          public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
            throw new WakeupException();
          }
        };
    consumer.assign(List.of(P0));
    KafkaWindows<String, Long, Long> w = windows(Duration.ZERO).consumer(consumer).build();
    assertThatThrownBy(() -> feed(w, ConsumerRecords.empty())).isInstanceOf(WakeupException.class);
  }

  /**
   * Finding 6. stats() (any thread) reads {@code retired} and {@code partitionWindows} apart;
   * forget() retires each partition's counters before it republishes the windows, so a reader in
   * between counts the revoked partitions twice.
   */
  @Test
  void statsFromAnotherThreadNeverCountsARevokedPartitionTwice() throws Exception {
    KafkaWindows<String, Long, Long> w =
        windows(Duration.ZERO).consumer(new MockConsumer<>("earliest")).build();
    ConsumerRebalanceListener listener = w.rebalanceListener();
    List<TopicPartition> parts = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      parts.add(new TopicPartition("t", i));
    }
    AtomicLong fed = new AtomicLong(); // raised before each feed: an upper bound of accepted
    AtomicReference<String> violation = new AtomicReference<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    Thread reader =
        new Thread(
            () -> {
              while (violation.get() == null && System.nanoTime() < deadline) {
                long accepted = w.stats().accepted();
                long bound = fed.get();
                if (accepted > bound) {
                  violation.set("stats().accepted() " + accepted + " > records fed " + bound);
                }
              }
            });
    reader.start();
    long offset = 0;
    while (violation.get() == null && System.nanoTime() < deadline) {
      listener.onPartitionsAssigned(parts);
      List<ConsumerRecord<String, String>> batch = new ArrayList<>();
      for (TopicPartition tp : parts) {
        batch.add(record(tp, offset, 1, "a"));
      }
      offset++;
      fed.addAndGet(batch.size());
      KafkaWindowsTest.feed(w, batch);
      listener.onPartitionsRevoked(parts);
    }
    reader.join();
    assertThat(violation.get()).isNull();
  }
}
