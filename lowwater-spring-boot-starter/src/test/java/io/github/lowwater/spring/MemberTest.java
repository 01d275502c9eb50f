package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A member's windows through the container's callbacks, on Kafka's MockConsumer. */
class MemberTest {

  private static final TopicPartition P0 = new TopicPartition("in", 0);
  private static final TopicPartition P1 = new TopicPartition("in", 1);

  private final List<WindowResult<String, Long>> written = new ArrayList<>();
  private final List<AutoCloseable> observed = new ArrayList<>();

  private Member<String, String, String, Long, Long> member() {
    LowwaterListener<String, String, String, Long, Long> spec =
        LowwaterListenerTest.builder()
            .mapper(ConsumerRecord::key, r -> 1L)
            .rowWriter(written::addAll)
            .build();
    return new Member<>(
        spec,
        0,
        Map.of(),
        (listener, index, windows) -> {
          WindowsObserver.Observation closed = () -> observed.remove(0);
          observed.add(closed);
          return closed;
        });
  }

  @Test
  void aLossThatTheContainerFollowsWithARevocationReachesTheWindowsOnce() {
    Member<String, String, String, Long, Long> member = member();
    MemberRebalanceListener rebalance = new MemberRebalanceListener(member);
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");

    rebalance.onPartitionsAssigned(consumer, List.of(P0, P1));
    assertThat(member.windows().assignedPartitions()).containsExactly(P0, P1);
    rebalance.onPartitionsLost(consumer, List.of(P0));
    rebalance.onPartitionsRevokedBeforeCommit(consumer, List.of(P0)); // the container's repeat

    assertThat(member.windows().assignedPartitions()).containsExactly(P1);
    assertThat(member.held(List.of(P0, P1))).containsExactly(P1);
  }

  @Test
  void aPollIsFedWrittenAndCommittedWithTheCheckpointsThroughTheConsumer() {
    Member<String, String, String, Long, Long> member = member();
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    new MemberRebalanceListener(member).onPartitionsAssigned(consumer, List.of(P0));
    long minute = Duration.ofMinutes(1).toMillis();
    long base = 1_767_225_600_000L;
    consumer.addRecord(record(0, base + 1, "a"));
    consumer.addRecord(record(1, base + 3 * minute + 1, "b")); // closes [base, base + 1 min)

    member.onPoll(consumer.poll(Duration.ZERO));

    assertThat(written).extracting(WindowResult::key).containsExactly("a");
    OffsetAndMetadata committed = consumer.committed(java.util.Set.of(P0)).get(P0);
    assertThat(committed.offset()).isEqualTo(1); // the oldest record of an open window
    assertThat(committed.metadata()).startsWith("lw");
  }

  @Test
  void aMemberWhoseSinkCannotBeBuiltBuildsItAtTheNextPollAndReadsItsPartitionsAgain() {
    int[] attempts = {0};
    Member<String, String, String, Long, Long> member =
        new Member<>(
            LowwaterListenerTest.builder()
                .mapper(ConsumerRecord::key, r -> 1L)
                .sink(
                    context -> {
                      if (attempts[0]++ == 0) {
                        throw new IllegalStateException("the producer cannot initialize yet");
                      }
                      return new WriteThenCommitSync<>(written::addAll, context.consumer());
                    })
                .build(),
            0,
            Map.of(),
            (l, i, w) -> () -> {});
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    consumer.commitSync(Map.of(P0, new OffsetAndMetadata(0)));
    MemberRebalanceListener rebalance = new MemberRebalanceListener(member);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> rebalance.onPartitionsAssigned(consumer, List.of(P0)))
        .hasMessage("the producer cannot initialize yet");
    assertThat(member.windows()).as("nothing half-built").isNull();
    long base = 1_767_225_600_000L;
    consumer.addRecord(record(0, base + 1, "a"));

    member.onPoll(consumer.poll(Duration.ZERO)); // builds, hands P0 over, feeds nothing

    assertThat(member.windows().assignedPartitions()).containsExactly(P0);
    assertThat(member.windows().stats().accepted()).as("this poll comes again").isZero();
    assertThat(consumer.position(P0)).as("sought back to the poll's first record").isZero();
    assertThat(attempts[0]).isEqualTo(2);
    consumer.addRecord(record(0, base + 1, "a")); // the mock delivers from the position on
    member.onPoll(consumer.poll(Duration.ZERO));
    assertThat(member.windows().stats().accepted()).isEqualTo(1);
  }

  @Test
  void aNewConsumerGetsNewWindowsAndTheOldOnesMetersAreClosed() {
    Member<String, String, String, Long, Long> member = member();
    MemberRebalanceListener rebalance = new MemberRebalanceListener(member);
    rebalance.onPartitionsAssigned(new MockConsumer<>("earliest"), List.of(P0));
    var first = member.windows();
    assertThat(observed).hasSize(1);

    rebalance.onPartitionsAssigned(new MockConsumer<>("earliest"), List.of(P1)); // a restart

    assertThat(member.windows()).isNotSameAs(first);
    assertThat(member.windows().assignedPartitions()).containsExactly(P1);
    assertThat(observed).as("the first windows' meters closed, the new ones bound").hasSize(1);
    member.close();
    assertThat(observed).isEmpty();
    assertThat(member.windows()).isNull();
    // An idle tick before any partition (or after the stop) does nothing.
    new MemberListener<>(member, new MemberErrorHandler(member, Duration.ZERO, Duration.ZERO))
        .onIdleContainer(Map.of(), null);
    assertThat(written).isEmpty();
  }

  private static ConsumerRecord<String, String> record(long offset, long time, String key) {
    return new ConsumerRecord<>(
        "in",
        0,
        offset,
        time,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME,
        0,
        0,
        key,
        "v",
        new org.apache.kafka.common.header.internals.RecordHeaders(),
        java.util.Optional.empty());
  }
}
