package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
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
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaWindows#rewindToLastCommit} (issue 19): a loop whose sink failed after a drain puts
 * its partitions back to their last commit, and the rows drained since come again, the same, from
 * the same records. {@code HandOverModelTest} runs it over random traces of every kind; this class
 * pins its edges.
 */
class KafkaWindowsRewindTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));

  private KafkaWindows<String, Long, Long> windows(MockConsumer<String, String> consumer) {
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .allowedLateness(Duration.ZERO)
            .earlyResults(Duration.ofMinutes(1))
            .clock(clock)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  @Test
  void aFailedWriteRewindsToTheLastCommitAndTheRowsDrainedSinceComeAgainTheSame() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w = windows(consumer);
    List<ConsumerRecord<String, String>> log =
        List.of(
            record(P0, 0, 0.5, "a"),
            record(P0, 1, 5.5, "a"), // [0, 5) on time and retired
            record(P0, 2, 6.5, "b"), // [5, 10): early rows
            record(P0, 3, 7.5, "b"),
            record(P0, 4, 10.5, "c")); // [5, 10) on time
    KafkaWindowsTest.feed(w, log.subList(0, 2));
    assertThat(KafkaWindowsPanesTest.rows(w)).containsExactly("0 a=1 EARLY#0", "0 a=1 ON_TIME#1");
    Map<TopicPartition, OffsetAndMetadata> commit = w.committableOffsets();
    consumer.commitSync(commit); // the commit holds at [5, 10)'s first record, offset 1
    assertThat(commit.get(P0).offset()).isEqualTo(1);
    KafkaWindowsTest.feed(w, log.subList(2, 5));
    List<String> drained = KafkaWindowsPanesTest.rows(w); // the sink fails to write them
    assertThat(drained)
        .containsExactly(
            "5 a=1 EARLY#0",
            "5 b=1 EARLY#0",
            "5 b=2 EARLY#1",
            "5 a=1 ON_TIME#1",
            "5 b=2 ON_TIME#2");

    w.rewindToLastCommit(consumer.assignment());
    assertThat(consumer.position(P0)).isEqualTo(1);
    assertThat(w.committableOffsets().get(P0)).isEqualTo(commit.get(P0)); // not read again yet
    KafkaWindowsTest.feed(w, log.subList(1, 5));
    assertThat(KafkaWindowsPanesTest.rows(w)).isEqualTo(drained);
  }

  @Test
  void withoutACommitItRewindsToTheFirstOffsetItReadAndPartitionsNotAssignedAreIgnored() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w = windows(consumer);
    List<ConsumerRecord<String, String>> log =
        List.of(record(P0, 3, 0.5, "a"), record(P0, 4, 5.5, "a"));
    KafkaWindowsTest.feed(w, log);
    List<String> drained = KafkaWindowsPanesTest.rows(w);
    assertThat(drained).containsExactly("0 a=1 EARLY#0", "0 a=1 ON_TIME#1");
    w.rewindToLastCommit(List.of(P0, new TopicPartition(P0.topic(), 9)));
    assertThat(consumer.position(P0)).isEqualTo(3);
    assertThat(w.assignedPartitions()).containsExactly(P0);
    KafkaWindowsTest.feed(w, log);
    assertThat(KafkaWindowsPanesTest.rows(w)).isEqualTo(drained);
  }

  /**
   * Issue 32, defect 3: a rewind whose {@code committed} read failed had already dropped the
   * partitions, so the second call, as the javadoc advised, sought nothing; the next polls went on
   * from the consumer's position and the rows drained before the failed write were never written
   * again (9 records, 5 in the sink). Now the read comes first: a failed read changes nothing, and
   * the second call rewinds.
   */
  @Test
  void aRewindWhoseCommittedReadFailsChangesNothingAndTheNextCallRewinds() {
    MockConsumer<String, String> consumer = new FailingCommittedConsumer();
    consumer.assign(List.of(P0));
    consumer.updateBeginningOffsets(Map.of(P0, 0L));
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(consumer)
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    Map<List<Object>, Long> sink = new java.util.HashMap<>();
    List<ConsumerRecord<String, String>> log = new java.util.ArrayList<>();
    for (int i = 0; i < 9; i++) {
      log.add(record(P0, i, 1 + i * 2.5, "a")); // [0, 5), [5, 10), ... two or one per window
    }
    KafkaWindowsTest.feed(w, log.subList(0, 3));
    w.pollFinalized().forEach(r -> sink.put(List.of(r.start(), r.key()), r.value()));
    consumer.commitSync(w.committableOffsets());
    long committed = consumer.committed(java.util.Set.of(P0)).get(P0).offset();
    KafkaWindowsTest.feed(w, log.subList(3, 9));
    assertThat(w.pollFinalized()).isNotEmpty(); // drained, and the sink fails to write them
    ((FailingCommittedConsumer) consumer).failNext = true;

    assertThatThrownBy(() -> w.rewindToLastCommit(consumer.assignment()))
        .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    assertThat(w.assignedPartitions()).containsExactly(P0); // nothing changed
    w.rewindToLastCommit(consumer.assignment()); // the call the javadoc advises
    assertThat(consumer.position(P0)).isEqualTo(committed);

    KafkaWindowsTest.feed(w, log.subList((int) committed, 9));
    w.finishAll();
    w.pollFinalized().forEach(r -> sink.put(List.of(r.start(), r.key()), r.value()));
    assertThat(sink.values().stream().mapToLong(Long::longValue).sum())
        .as("every record in a row: %s", sink)
        .isEqualTo(9);
  }

  /** A consumer whose next {@code committed} call fails once when told to. */
  static class FailingCommittedConsumer extends MockConsumer<String, String> {
    boolean failNext;

    FailingCommittedConsumer() {
      super("earliest");
    }

    @Override
    public synchronized Map<TopicPartition, OffsetAndMetadata> committed(
        java.util.Set<TopicPartition> partitions) {
      if (failNext) {
        failNext = false;
        throw new org.apache.kafka.common.errors.TimeoutException("the coordinator is away");
      }
      return super.committed(partitions);
    }
  }

  /** A sink that records its writes and commits, and fails the ones it is told to. */
  static final class FlakySink implements ResultSink<String, Long> {
    final List<List<String>> writes = new java.util.ArrayList<>();
    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new java.util.ArrayList<>();
    boolean failWrite;
    boolean failCommit;

    @Override
    public void write(List<io.github.lowwater.window.WindowResult<String, Long>> rows)
        throws java.io.IOException {
      writes.add(rows.stream().map(r -> r.start() + " " + r.key() + "=" + r.value()).toList());
      if (failWrite) {
        throw new java.io.IOException("the database is down");
      }
    }

    @Override
    public void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
      if (failCommit) {
        throw new org.apache.kafka.common.errors.RebalanceInProgressException("rebalancing");
      }
      commits.add(offsets);
    }
  }

  @Test
  void emitWritesTheRowsAgainAfterAFailedWriteOrCommitAndDropsThoseOfARevokedPartition() {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w = windows(consumer);
    FlakySink sink = new FlakySink();
    KafkaWindowsTest.feed(w, record(P0, 0, 0.5, "a"), record(P0, 1, 5.5, "a"));
    sink.failWrite = true;
    assertThatThrownBy(() -> w.emit(sink))
        .isInstanceOf(SinkException.class)
        .hasMessage("the sink's write failed; the next emit writes its rows again")
        .hasCauseInstanceOf(java.io.IOException.class);
    sink.failWrite = false;
    sink.failCommit = true;
    KafkaWindowsTest.feed(w, record(P0, 2, 6.5, "b")); // [5, 10)'s early rows
    assertThatThrownBy(() -> w.emit(sink))
        .hasMessage("the sink's commit failed; the next emit writes its rows again");
    sink.failCommit = false;
    assertThat(w.emit(sink)).isEqualTo(4);
    long start = millis(0);
    long second = millis(5);
    List<String> all = List.of(start + " a=1", start + " a=1", second + " a=1", second + " b=1");
    assertThat(sink.writes)
        .containsExactly(all.subList(0, 2), all, all); // the same rows, then with the new ones
    assertThat(sink.commits).hasSize(1);
    assertThat(sink.commits.get(0).get(P0).offset()).isEqualTo(1);
    assertThat(w.emit(sink)).isZero(); // nothing left to write: an empty write, then a commit
    assertThat(sink.commits).hasSize(2);

    KafkaWindowsTest.feed(w, record(P0, 3, 7.5, "b"));
    sink.failWrite = true;
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(SinkException.class);
    sink.failWrite = false;
    w.rebalanceListener().onPartitionsRevoked(List.of(P0)); // its rows are its next owner's
    assertThat(w.emit(sink)).isZero();
    assertThatThrownBy(() -> w.emit(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sink");
  }

  @Test
  void mergedWindowsRefuseTheRewindByName() {
    KafkaWindows<String, Long, Long> merged =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .resultScope(ResultScope.MERGED)
            .clock(clock)
            .consumer(KafkaWindowsTest.assigned(P0))
            .build();
    assertThatThrownBy(() -> merged.rewindToLastCommit(List.of(P0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "rewindToLastCommit is for resultScope(PER_PARTITION): MERGED windows hold every"
                + " partition's records; close the consumer and start again from the last commit,"
                + " with seedWatermark");
    assertThatThrownBy(() -> merged.rewindToLastCommit(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("partitions");
  }
}
