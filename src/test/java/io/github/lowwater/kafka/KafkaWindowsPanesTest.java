package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Early results and a grace period in {@code KafkaWindows} (semantics rule 54), on a mock consumer:
 * the commit waits for retirement, the checkpoint is version 2, and a new owner from the commit
 * writes the same rows with the same indexes. Five-minute windows, no allowed lateness, early
 * results every minute, a grace period of two minutes.
 */
class KafkaWindowsPanesTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();

  /** The replay's wall clock, a day ahead of its records. */
  final ManualClock dayAhead = new ManualClock(T0.plus(Duration.ofDays(1)));

  KafkaWindows<String, Long, Long> owner() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    consumer.commitSync(group);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .allowedLateness(Duration.ZERO)
            .earlyResults(Duration.ofMinutes(1))
            .grace(Duration.ofMinutes(2))
            .clock(clock)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  /** Rows as {@code minute key=value TIMING#index}. */
  static List<String> rows(KafkaWindows<String, Long, Long> w) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : w.pollFinalized()) {
      assertThat(r.source()).isEqualTo(P0);
      rows.add(
          (r.start() - millis(0)) / 60_000
              + " "
              + r.key()
              + "="
              + r.value()
              + " "
              + r.timing()
              + "#"
              + r.index());
    }
    return rows;
  }

  @Test
  void theCommitWaitsForRetirementAndANewOwnerWritesTheSameRowsWithTheSameIndexes() {
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(P0, 0, 0.5, "a"), // [0, 5)
            record(P0, 1, 1, "a"), // mark 1: EARLY#0
            record(P0, 2, 5, "b"), // [5, 10); the watermark reaches 5: [0, 5) ON_TIME#1
            record(P0, 3, 4, "a"), // a late update of [0, 5): LATE#2
            record(P0, 4, 6.5, "b"), // mark 6 of [5, 10): EARLY#0
            record(P0, 5, 7, "c")); // the watermark reaches 7 = 5 + grace: [0, 5) retires
    KafkaWindows<String, Long, Long> first = owner();
    KafkaWindowsTest.feed(first, log.subList(0, 5));
    List<String> firstRows = rows(first);
    assertThat(firstRows)
        .containsExactly("0 a=2 EARLY#0", "0 a=2 ON_TIME#1", "0 a=3 LATE#2", "5 b=2 EARLY#0");
    OffsetAndMetadata commit = first.committableOffsets().get(P0);
    assertThat(commit.offset()).as("[0, 5) is on time but not retired: its first record").isZero();
    assertThat(commit.metadata()).startsWith("lw2;").endsWith(";g=120000;p=60000");
    group.put(P0, commit);

    KafkaWindowsTest.feed(first, log.subList(5, 6));
    assertThat(rows(first)).containsExactly("5 c=1 EARLY#0"); // mark 7 of [5, 10)
    OffsetAndMetadata retired = first.committableOffsets().get(P0);
    assertThat(retired.offset()).as("[0, 5) retired: [5, 10)'s first record").isEqualTo(2);
    assertThat(Checkpoint.parse(retired.metadata()).writtenThroughMillis())
        .as("retired through the watermark minus the grace period")
        .isEqualTo(millis(5));

    // The first owner dies before committing that; the next one starts from offset 0.
    KafkaWindows<String, Long, Long> second = owner();
    KafkaWindowsTest.feed(second, log);
    assertThat(rows(second))
        .containsExactly(
            "0 a=2 EARLY#0", "0 a=2 ON_TIME#1", "0 a=3 LATE#2", "5 b=2 EARLY#0", "5 c=1 EARLY#0");

    // A third owner from the retired commit: [0, 5)'s records are gone; [5, 10) fires where it did.
    group.put(P0, retired);
    KafkaWindows<String, Long, Long> third = owner();
    KafkaWindowsTest.feed(third, log.subList(2, 6));
    assertThat(rows(third)).containsExactly("5 b=2 EARLY#0", "5 c=1 EARLY#0");
    assertThat(third.redeliveredRecords()).as("P0@3: its window [0, 5) is retired").isEqualTo(1);
  }

  /**
   * The replay of issue 18: one partition's records read by a first owner that drains, writes and
   * commits at random and crashes at a random offset, then by a second owner from the first one's
   * last commit, to the end. The first owner's rows, followed by the second owner's without the
   * ones it rewrites (a (window, key, index) the first owner wrote: always with the same value),
   * are exactly the rows of one owner that reads everything once. Random disorder, early results
   * and grace periods; no wall-clock rule acts (the clock stays put, far ahead of the data).
   */
  @Test
  void aSecondOwnerFromTheLastCommitContinuesTheFirstOwnersRowSequenceExactly() {
    replay(new java.util.Random(18), io.github.lowwater.testing.Trials.of(1_000), false, false);
  }

  /**
   * The same for hopping windows of five minutes every one or two (semantics rule 55): each record
   * falls into several windows, whose early marks the second owner fires where the first did from
   * the frontier restored as of the committed offset.
   */
  @Test
  void aSecondOwnerOfHoppingWindowsFromTheLastCommitContinuesTheFirstOwnersRowSequenceExactly() {
    replay(new java.util.Random(55), io.github.lowwater.testing.Trials.of(600), true, false);
  }

  /**
   * The same for session windows of a one- to three-minute gap (semantics rule 56): sessions grow,
   * merge and replace their earlier rows, and a session that the second owner re-reads without its
   * records below the committed offset (part of one the first owner retired) holds its rows back
   * and drops them when it retires.
   */
  @Test
  void aSecondOwnerOfSessionWindowsFromTheLastCommitContinuesTheFirstOwnersRowSequenceExactly() {
    replay(new java.util.Random(56), io.github.lowwater.testing.Trials.of(1_000), false, true);
  }

  private void replay(java.util.Random random, int traces, boolean hopping, boolean sessions) {
    int rewritten = 0;
    for (int trace = 0; trace < traces; trace++) {
      group.clear();
      Duration early = Duration.ofSeconds(10 + random.nextInt(120));
      Duration grace = Duration.ofSeconds(random.nextInt(240));
      Duration lateness = Duration.ofSeconds(random.nextInt(3) * 60);
      Duration advance = hopping ? Duration.ofMinutes(1 + random.nextInt(2)) : null;
      Duration gap = sessions ? Duration.ofSeconds(60 + random.nextInt(120)) : null;
      List<ConsumerRecord<String, String>> log = new ArrayList<>();
      double minute = 0;
      for (int offset = 0; offset < 10 + random.nextInt(40); offset++) {
        minute += random.nextDouble();
        double t = random.nextInt(3) == 0 ? minute - random.nextDouble() * 6 : minute;
        log.add(record(P0, offset, t, "k" + random.nextInt(3)));
      }
      String where =
          "trace "
              + trace
              + " early "
              + early
              + " grace "
              + grace
              + " "
              + lateness
              + " advance "
              + advance
              + " gap "
              + gap;

      List<String> one = new ArrayList<>();
      KafkaWindows<String, Long, Long> reference =
          replayOwner(early, grace, lateness, advance, gap);
      KafkaWindowsTest.feed(reference, log);
      reference.finishAll();
      one.addAll(paneRows(reference));

      List<String> written = new ArrayList<>();
      KafkaWindows<String, Long, Long> first = replayOwner(early, grace, lateness, advance, gap);
      int crashAt = random.nextInt(log.size() + 1);
      for (int offset = 0; offset < crashAt; offset++) {
        KafkaWindowsTest.feed(first, log.subList(offset, offset + 1));
        if (random.nextInt(3) == 0) {
          written.addAll(paneRows(first));
          if (random.nextBoolean()) {
            group.putAll(first.committableOffsets());
          }
        }
      }
      long from = group.containsKey(P0) ? group.get(P0).offset() : 0;
      KafkaWindows<String, Long, Long> second = replayOwner(early, grace, lateness, advance, gap);
      KafkaWindowsTest.feed(second, log.subList((int) from, log.size()));
      second.finishAll();
      java.util.Map<String, String> byPane = new java.util.HashMap<>();
      for (String row : written) {
        byPane.put(row.substring(0, row.lastIndexOf(' ')), row);
      }
      for (String row : paneRows(second)) {
        String pane = row.substring(0, row.lastIndexOf(' '));
        String before = byPane.get(pane);
        if (before != null) {
          assertThat(row).as("a rewritten row has the same value; %s", where).isEqualTo(before);
          rewritten++;
        } else {
          written.add(row);
        }
      }
      assertThat(written).as(where).isEqualTo(one);
    }
    assertThat(rewritten).as("second owners rewrote rows of the first").isPositive();
  }

  /**
   * An owner of P0 from the group's commit; hopping windows if {@code advance} is not null, session
   * windows if {@code gap} is not null.
   */
  KafkaWindows<String, Long, Long> replayOwner(
      Duration early, Duration grace, Duration lateness, Duration advance, Duration gap) {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    consumer.commitSync(group);
    KafkaWindows.Builder<Object, Long> b =
        (gap != null
                ? KafkaWindows.sessions(gap, Aggregators.count())
                : KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count()))
            .allowedLateness(lateness)
            .earlyResults(early)
            .grace(grace)
            .clock(dayAhead) // no seed is clamped
            .quietAdvanceAfter(Duration.ofDays(365)) // and no quiet period advances
            .consumer(consumer);
    if (advance != null) {
      b.hopping(advance);
    }
    KafkaWindows<String, Long, Long> w = b.<String, Long>build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  /** Rows as {@code start key index | value timing final}, the pane first. */
  static List<String> paneRows(KafkaWindows<String, Long, Long> w) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : w.pollFinalized()) {
      rows.add(
          r.start()
              + " "
              + r.key()
              + " #"
              + r.index()
              + " "
              + r.value()
              + "/"
              + r.timing()
              + (r.isFinal() ? "!" : "")
              + (r.replaces().isEmpty() ? "" : " replaces " + r.replaces()));
    }
    return rows;
  }

  @Test
  void withoutPanesTheCheckpointStaysVersionOneAndSessionsWithPanesWriteVersionTwo() {
    KafkaWindows<String, Long, Long> plain =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .consumer(KafkaWindowsTest.assigned(P0))
            .clock(clock)
            .build();
    plain.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(plain, record(P0, 0, 1, "a"));
    assertThat(plain.committableOffsets().get(P0).metadata()).startsWith("lw1;");
    KafkaWindows<String, Long, Long> sessions =
        KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.count())
            .earlyResults(Duration.ofMinutes(1))
            .consumer(KafkaWindowsTest.assigned(P0))
            .clock(clock)
            .build();
    sessions.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(sessions, record(P0, 0, 1, "a"));
    assertThat(sessions.committableOffsets().get(P0).metadata()).startsWith("lw2;");
  }

  @Test
  void aVisitorDrainGivesThePartitionAndThePaneOfEveryRow() {
    KafkaWindows<String, Long, Long> w = owner();
    KafkaWindowsTest.feed(w, record(P0, 0, 0.5, "a"), record(P0, 1, 1, "a"));
    List<String> seen = new ArrayList<>();
    w.drainFinalized(
        new PartitionResultVisitor<String, Long>() {
          @Override
          public void visit(TopicPartition p, long start, long end, String key, Long result) {
            throw new AssertionError("the pane methods get every row");
          }

          @Override
          public void visitLongPane(
              TopicPartition p,
              long start,
              long end,
              String key,
              long result,
              Timing timing,
              int index,
              boolean isFinal) {
            seen.add(p + " " + key + "=" + result + " " + timing + "#" + index + " " + isFinal);
          }
        });
    assertThat(seen).containsExactly(P0 + " a=2 EARLY#0 false");
  }
}
