package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsWallClockTest.at;
import static io.github.lowwater.kafka.KafkaWindowsWallClockTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A change of configuration between a partition's owners (issue 45, item 1; semantics rule 61): the
 * checkpoint carries the writer's allowed lateness and future guard ({@code l}, {@code s}), and a
 * new owner that judges lateness otherwise takes none of its predecessor's verdicts on the records
 * it re-reads below {@code n} on trust. Each owner here crashes after its commit; every record's
 * value is its offset, so a row says which records it holds.
 */
class KafkaWindowsReconfigurationTest {

  final ManualClock clock =
      new ManualClock(KafkaWindowsMockConsumerTest.T0.plus(Duration.ofDays(1)));
  final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();
  final List<String> late = new ArrayList<>();
  final List<String> redelivered = new ArrayList<>();

  KafkaWindows<String, Long, Set<Long>> owner(KafkaWindows.Builder<Long, Set<Long>> builder) {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    if (group.containsKey(P0)) {
      consumer.commitSync(Map.of(P0, group.get(P0)));
    }
    KafkaWindows<String, Long, Set<Long>> w =
        builder
            .clock(clock)
            .consumer(consumer)
            .lateRecordHandler(
                (r, reason, t, end, wm) ->
                    (reason == LateRecordHandler.Reason.LATE ? late : redelivered)
                        .add("" + r.offset()))
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  void poll(KafkaWindows<String, Long, Set<Long>> w, List<ConsumerRecord<String, String>> rs) {
    w.onPoll(KafkaWindowsTest.recordsOf(rs), ConsumerRecord::key, r -> Long.parseLong(r.value()));
  }

  static Set<Long> inRows(List<WindowResult<String, Set<Long>>> rows) {
    Set<Long> all = new TreeSet<>();
    rows.forEach(r -> all.addAll(r.value()));
    return all;
  }

  /**
   * A lowered the lateness of its sessions to zero; B re-read offset 2, which A had put into a's
   * open session (lateness ten minutes) but B finds late. B reported it {@code REDELIVERED}, as if
   * A had written it or reported it, and A had done neither: the record was in no row and never
   * late. Now B reports it {@code LATE}.
   */
  @Test
  void aSessionRecordLateOnlyForTheNewLatenessIsReportedLateNotRedelivered() {
    List<ConsumerRecord<String, String>> log =
        List.of(record(0, at(0), "a"), record(1, at(5), "b"), record(2, at(0.5), "a"));
    KafkaWindows<String, Long, Set<Long>> a =
        owner(
            KafkaWindows.sessions(Duration.ofMinutes(1), new HandOverModelTest.Ids())
                .allowedLateness(Duration.ofMinutes(10)));
    poll(a, log);
    assertThat(a.pollFinalized()).isEmpty();
    group.putAll(a.committableOffsets()); // at offset 0, n = 3, l = 600000; and crashes
    assertThat(KafkaWindowsOwnerChangesTest.checkpoint(group.get(P0)).latenessMillis())
        .isEqualTo(600_000);

    KafkaWindows<String, Long, Set<Long>> b =
        owner(
            KafkaWindows.sessions(Duration.ofMinutes(1), new HandOverModelTest.Ids())
                .allowedLateness(Duration.ZERO));
    poll(b, log);
    b.finishAll();
    assertThat(inRows(b.pollFinalized())).containsExactly(0L, 1L);
    assertThat(late).containsExactly("2");
    assertThat(redelivered).isEmpty();
  }

  /**
   * A lowered the lateness of windows with a grace period to zero, under a sink that drops the rows
   * of re-read records (a transaction): B's window [0m, 5m) closed while B re-read A's records, and
   * its row was dropped as one A had handed out. A never had (its window was still open): the rows
   * of offsets 0 and 1 reached no sink. Now B hands them out.
   */
  @Test
  void rowsOfReReadRecordsAreHandedOutWhenThePredecessorHadAnotherLateness() {
    List<ConsumerRecord<String, String>> log =
        List.of(record(0, at(0), "k"), record(1, at(1), "k"), record(2, at(20), "k"));
    KafkaWindows<String, Long, Set<Long>> a =
        owner(
            KafkaWindows.builder(Duration.ofMinutes(5), new HandOverModelTest.Ids())
                .grace(Duration.ofMinutes(1))
                .allowedLateness(Duration.ofMinutes(30)));
    a.dropRowsOfReplayedRecords();
    poll(a, log);
    assertThat(a.pollFinalized()).isEmpty();
    group.putAll(a.committableOffsets()); // at offset 0, n = 3; and crashes

    KafkaWindows<String, Long, Set<Long>> b =
        owner(
            KafkaWindows.builder(Duration.ofMinutes(5), new HandOverModelTest.Ids())
                .grace(Duration.ofMinutes(1))
                .allowedLateness(Duration.ZERO));
    b.dropRowsOfReplayedRecords();
    poll(b, log);
    assertThat(inRows(b.pollFinalized())).containsExactly(0L, 1L);
    assertThat(late).isEmpty();
  }
}
