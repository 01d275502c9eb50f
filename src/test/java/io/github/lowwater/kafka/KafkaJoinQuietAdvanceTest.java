package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaJoinTest.L0;
import static io.github.lowwater.kafka.KafkaJoinTest.R0;
import static io.github.lowwater.kafka.KafkaJoinTest.T0;
import static io.github.lowwater.kafka.KafkaJoinTest.feed;
import static io.github.lowwater.kafka.KafkaJoinTest.rec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.join.JoinSide;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The quiet-period advance of {@link KafkaJoin} (semantics rule 74): a partition silent for the
 * quiet period has its own watermark raised to the wall clock less the allowed lateness, recorded
 * at its read position and replayed there by the next owner. The joins here are {@code LEFT},
 * {@code within(10 ms)}, lateness 20 ms, a quiet period of 5 s, on a manual clock whose wall starts
 * at {@code T0}, the records' epoch.
 */
class KafkaJoinQuietAdvanceTest {

  static final Duration QUIET = Duration.ofSeconds(5);

  final ManualClock clock = new ManualClock(Instant.ofEpochMilli(T0));

  KafkaJoin<String, String, String, String> join(KafkaJoinTest.Consumer consumer, Duration maxLag) {
    KafkaJoin.Builder<String, String, String, String> b =
        KafkaJoinTest.builder().consumer(consumer).clock(clock).quietAdvanceAfter(QUIET);
    if (maxLag != null) {
      b.quietAdvanceMaxLag(maxLag);
    }
    KafkaJoin<String, String, String, String> join = b.build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    return join;
  }

  /**
   * Issue 45, item 4: a partition that went silent held its task's unmatched rows for ever (rule 74
   * said "Not yet: idleness and a wall-clock advance"): here the left row of {@code b} never came
   * however long the right partition was silent. Now the right partition's own watermark rises to
   * {@code wall - lateness} once it has been silent for exactly the quiet period, not one
   * nanosecond before, and a right record below it is then late.
   */
  @Test
  void aSilentPartitionIsRaisedAfterExactlyTheQuietPeriodNotOneNanosecondBefore() {
    KafkaJoinTest.Consumer consumer = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> join = join(consumer, null);
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "a"));
    assertThat(join.pollResults()).extracting(KafkaJoinRow::id).containsExactly("0/0/0");
    clock.advance(QUIET.minusNanos(1));
    feed(join, rec(L0, 1, 100, "b"), rec(L0, 2, 200, "c")); // the left side keeps sending
    assertThat(join.pollResults()).as("one nanosecond short of the quiet period").isEmpty();
    assertThat(join.quietAdvances()).isZero();
    assertThat(join.watermark(0)).isEqualTo(T0 - 20);

    clock.advance(Duration.ofNanos(1));
    feed(join); // an empty poll: the right partition has been silent for exactly the quiet period
    assertThat(join.quietAdvances()).isOne();
    assertThat(join.watermark(0)).as("the left partition's own now").isEqualTo(T0 + 180);
    assertThat(join.pollResults())
        .as("b can pair with no on-time right record any more: its unmatched row")
        .extracting(KafkaJoinRow::id)
        .containsExactly("0/1/-1");
    feed(join, rec(R0, 1, 205, "c")); // within 10 ms of c, but below the raised 4,980
    assertThat(join.late(JoinSide.RIGHT)).isOne();
    assertThat(join.pollResults()).isEmpty();
    assertThat(join.quietAdvances()).as("a record ends the quiet period").isOne();
  }

  /**
   * Rule 74 (rule 73's never-sent partition, for a join): a partition that has never sent counts as
   * having its task's newest watermark, and it has a read position (where the consumer stood when
   * the task was formed), so it is raised there and does not hold its task; the raise is in its
   * committed watermark, and the next owner judges its first record by it.
   */
  @Test
  void aPartitionThatNeverSentIsRaisedAtItsReadPositionAndDoesNotHoldItsTask() {
    KafkaJoinTest.Consumer first = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> a = join(first, null);
    feed(a, rec(L0, 0, 0, "a"));
    clock.advance(QUIET);
    feed(a, rec(L0, 1, 100, "b"));
    assertThat(a.quietAdvances()).isOne();
    assertThat(a.pollResults()).extracting(KafkaJoinRow::id).containsExactly("0/0/-1");
    Map<TopicPartition, OffsetAndMetadata> commit = a.committableOffsets();
    assertThat(commit.get(R0).offset()).isZero();
    assertThat(commit.get(R0).metadata())
        .isEqualTo("lj1;w=" + (T0 + 4_980) + ";c=2:0:" + (T0 + 80));

    KafkaJoinTest.Consumer second = new KafkaJoinTest.Consumer();
    second.group.putAll(commit);
    KafkaJoin<String, String, String, String> b = join(second, null);
    feed(b, rec(L0, 1, 100, "b"), rec(R0, 0, 95, "b")); // would pair with b, but below 4,980
    assertThat(b.late(JoinSide.RIGHT)).isOne();
    assertThat(b.pollResults()).isEmpty();
  }

  /**
   * Rule 74 (rule 28's bound): a lag of exactly the bound still raises; one millisecond more not.
   */
  @Test
  void aLagOfExactlyTheBoundStillRaisesOneMillisecondMoreDoesNot() {
    for (long rightTime : new long[] {4_020, 4_019}) { // own 4,000 or 3,999; the wall at 5,000
      KafkaJoinTest.Consumer consumer = new KafkaJoinTest.Consumer();
      KafkaJoin<String, String, String, String> join = join(consumer, Duration.ofSeconds(1));
      feed(join, rec(R0, 0, rightTime, "r"));
      clock.advance(QUIET);
      feed(join, rec(L0, 0, 4_900, "l")); // the left side is not quiet
      assertThat(join.quietAdvances())
          .as("right own watermark " + (rightTime - 20) + ", wall 5,000, bound 1,000 ms")
          .isEqualTo(rightTime == 4_020 ? 1 : 0);
      clock.jumpWall(Duration.ofMillis(-5_000)); // the wall at T0 again for the next join
    }
  }

  /**
   * Rule 74 (rule 61 for joins): a raise is recorded at the partition's read position and carried
   * in its checkpoint ({@code h=q1:...}) while a record below it is still pinned; the next owner
   * re-reads that record, applies the raise when its read position reaches offset 1, and judges the
   * record there as late as its predecessor did: no pair the first reading did not have. Without
   * the replay, the next owner pairs {@code a} with the right record at offset 1.
   */
  @Test
  void aRaiseIsCarriedInTheCheckpointAndReplayedByTheNextOwnerWhereItWasTaken() {
    KafkaJoinTest.Consumer first = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> a = join(first, null);
    feed(a, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "b")); // both wait: the left side holds the task
    clock.advance(QUIET);
    feed(a, rec(L0, 1, 1, "c")); // the right side is silent for the quiet period
    assertThat(a.quietAdvances()).isOne();
    assertThat(a.pollResults()).isEmpty();
    Map<TopicPartition, OffsetAndMetadata> commit = a.committableOffsets();
    assertThat(commit.get(R0).offset()).as("b is still pinned").isZero();
    assertThat(commit.get(R0).metadata()).endsWith(";h=q1:" + (T0 + 4_980));
    assertThat(commit.get(L0).metadata()).as("the left side was not raised").doesNotContain(";h=");

    KafkaJoinTest.Consumer second = new KafkaJoinTest.Consumer();
    second.group.putAll(commit);
    KafkaJoin<String, String, String, String> b = join(second, null);
    feed(b, rec(L0, 0, 0, "a"), rec(L0, 1, 1, "c"), rec(R0, 0, 0, "b"));
    feed(b, rec(R0, 1, 5, "a")); // pairs with a if on time; late under the raise at offset 1
    feed(a, rec(R0, 1, 5, "a")); // the first owner, reading on
    assertThat(b.late(JoinSide.RIGHT)).as("the replayed raise judges it").isOne();
    assertThat(a.late(JoinSide.RIGHT)).isOne();
    assertThat(b.pollResults()).as("the same rows as the first owner's: none").isEmpty();
    assertThat(a.pollResults()).isEmpty();
    assertThat(b.quietAdvances()).as("replayed, not taken again").isZero();
    assertThat(b.committableOffsets().get(R0).metadata())
        .as("carried on while b is still pinned")
        .endsWith(";h=q1:" + (T0 + 4_980));
  }

  /**
   * Rule 74 (rule 28's condition): a new owner that has not re-read what its predecessor read of a
   * partition does not find it quiet: the records up to there exist.
   */
  @Test
  void aNewOwnerBehindItsPredecessorsReadPositionDoesNotRaiseThePartition() {
    KafkaJoinTest.Consumer first = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> a = join(first, null);
    feed(a, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "b"), rec(R0, 1, 1, "b"));
    a.pollResults();
    KafkaJoinTest.Consumer second = new KafkaJoinTest.Consumer();
    second.group.putAll(a.committableOffsets());
    assertThat(second.group.get(R0).offset()).as("b at 0 pinned; read through 2").isZero();
    KafkaJoin<String, String, String, String> b = join(second, null);
    clock.advance(QUIET.multipliedBy(2));
    feed(b, rec(L0, 0, 0, "a")); // the right side, silent since the forming, is behind: 0 of 2
    assertThat(b.quietAdvances()).as("right behind, left just read").isZero();
    feed(b, rec(R0, 0, 0, "b"), rec(R0, 1, 1, "b"));
    clock.advance(QUIET);
    feed(b);
    assertThat(b.quietAdvances()).as("read through, then quiet: both sides").isEqualTo(2);
  }

  /** Rule 74 (rule 28): paused time is not quiet; the period counts from the resume. */
  @Test
  void aPartitionTheCallerPausedIsNotQuiet() {
    KafkaJoinTest.Consumer consumer = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> join = join(consumer, null);
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "a"));
    consumer.pause(List.of(R0));
    clock.advance(QUIET);
    feed(join, rec(L0, 1, 100, "b"));
    assertThat(join.quietAdvances()).isZero();
    consumer.resume(List.of(R0));
    clock.advance(QUIET.minusNanos(1));
    feed(join, rec(L0, 2, 200, "c"));
    assertThat(join.quietAdvances()).as("quiet since the last paused poll only").isZero();
    clock.advance(Duration.ofNanos(1));
    feed(join);
    assertThat(join.quietAdvances()).isOne();
  }

  /**
   * Rule 74 (rule 61's bound): a checkpoint carries at most 16 raises; with a 17th since the
   * committed offset, the commit stays at the last checkpoint that carried them all.
   */
  @Test
  void moreRaisesThanACheckpointCarriesKeepTheLastCommitThatCarriedThemAll() {
    KafkaJoinTest.Consumer consumer = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> join = join(consumer, null);
    Map<TopicPartition, OffsetAndMetadata> last = Map.of();
    for (int k = 0; k <= WallClockHistory.MAX_ENTRIES; k++) {
      // A right record above the wall clock waits (the left side holds the task) and is pinned;
      // then the right side is silent for the quiet period while the left one sends.
      feed(join, rec(R0, k, 5_000L * k + 4_000, "r" + k));
      clock.advance(QUIET);
      feed(join, rec(L0, k, k, "l" + k));
      join.pollResults();
      assertThat(join.quietAdvances()).isEqualTo(k + 1);
      if (k < WallClockHistory.MAX_ENTRIES) {
        last = join.committableOffsets();
        assertThat(last.get(R0).offset()).isZero();
        assertThat(last.get(R0).metadata().split(";h=")[1].split(",")).hasSize(k + 1);
      }
    }
    assertThat(join.committableOffsets())
        .as("17 raises since offset 0: not carried")
        .isEqualTo(last);
  }

  /** A quiet period the clock never reaches turns the rule off: the task is held, as before. */
  @Test
  void aQuietPeriodOfForeverTurnsTheAdvanceOff() {
    KafkaJoinTest.Consumer consumer = new KafkaJoinTest.Consumer();
    KafkaJoin<String, String, String, String> join =
        KafkaJoinTest.builder()
            .consumer(consumer)
            .clock(clock)
            .quietAdvanceAfter(ChronoUnit.FOREVER.getDuration())
            .build();
    join.rebalanceListener().onPartitionsAssigned(List.of(L0, R0));
    feed(join, rec(L0, 0, 0, "a"), rec(R0, 0, 0, "a"), rec(L0, 1, 100, "b"));
    clock.advance(Duration.ofDays(365));
    feed(join, rec(L0, 2, 200, "c"));
    assertThat(join.quietAdvances()).isZero();
    assertThat(join.pollResults()).extracting(KafkaJoinRow::id).containsExactly("0/0/0");
  }

  @Test
  void theBuilderRefusesABadQuietPeriodOrLagBoundNamingIt() {
    assertThatThrownBy(() -> KafkaJoinTest.builder().quietAdvanceAfter(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quietAdvanceAfter must be > 0: PT0S");
    assertThatThrownBy(() -> KafkaJoinTest.builder().quietAdvanceMaxLag(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quietAdvanceMaxLag must be >= 0: PT-0.001S");
    assertThatThrownBy(() -> KafkaJoinTest.builder().quietAdvanceAfter(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("quietAdvanceAfter");
    assertThatThrownBy(
            () -> KafkaJoinTest.builder().quietAdvanceAfter(QUIET).quietAdvanceAfter(QUIET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("quietAdvanceAfter was already set to PT5S");
    assertThatThrownBy(
            () ->
                KafkaJoinTest.builder()
                    .quietAdvanceMaxLag(Duration.ZERO)
                    .quietAdvanceMaxLag(Duration.ZERO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("quietAdvanceMaxLag was already set to PT0S");
  }
}
