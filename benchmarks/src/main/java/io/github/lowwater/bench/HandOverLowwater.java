package io.github.lowwater.bench;

import io.github.lowwater.bench.HandOver.Engine;
import io.github.lowwater.bench.HandOver.Prepared;
import io.github.lowwater.bench.HandOver.Span;
import io.github.lowwater.bench.HandOver.Takeover;
import io.github.lowwater.bench.HandOver.Variant;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.window.Aggregators;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The two owners of a partition in {@link HandOver} on the Lowwater side: a plain {@code
 * KafkaConsumer} in a group, subscribed with {@link KafkaWindows#rebalanceListener()}, the loop of
 * docs/kafka.md ({@code onPoll}, drain, {@code commitSync(committableOffsets())}). The first owner
 * reads the data and commits; each new owner re-reads from that commit and is timed to its rows.
 * Not thread-safe; the main thread.
 */
final class HandOverLowwater {

  /** The first owner's commit interval while it reads (as {@code EndToEnd}'s output loops). */
  static final long COMMIT_INTERVAL_NANOS = 100_000_000L;

  private HandOverLowwater() {}

  /**
   * The windows of a variant: {@code PER_PARTITION}, {@code sumLong()}; with panes, early results
   * and a grace period on top of the allowed lateness. Sessions take Kafka Streams' inclusive gap
   * as a strict gap one millisecond longer, and one millisecond less of lateness (semantics rule
   * 45, as {@code EndToEnd.lowwater}).
   */
  static KafkaWindows<String, Long, Long> windows(Variant v, Consumer<?, ?> consumer) {
    KafkaWindows.Builder<Long, Long> builder =
        switch (v.kind()) {
          case TUMBLING -> KafkaWindows.builder(HandOver.TUMBLING_SIZE, Aggregators.sumLong());
          case HOPPING ->
              KafkaWindows.<Long, Long>builder(HandOver.HOP_SIZE, Aggregators.sumLong())
                  .hopping(HandOver.HOP_ADVANCE);
          case SESSIONS ->
              KafkaWindows.<Long, Long>sessions(
                  HandOver.SESSION_GAP.plusMillis(1), Aggregators.sumLong());
        };
    builder.allowedLateness(
        v.kind() == HandOver.Kind.SESSIONS ? HandOver.LATENESS.minusMillis(1) : HandOver.LATENESS);
    if (v.engine() == Engine.LOWWATER_PANES) {
      builder.earlyResults(HandOver.EARLY_PERIOD).grace(HandOver.GRACE);
    }
    return builder.resultScope(ResultScope.PER_PARTITION).consumer(consumer).build();
  }

  /**
   * The first owner: joins the group, reads every data record (the trigger is not written yet),
   * drains, commits every {@link #COMMIT_INTERVAL_NANOS} and after its last record, checks that the
   * committed offset is the first record and that its resume distance is the whole span, and
   * closes: the revocation.
   */
  static Prepared first(String bootstrap, Span span, Variant v) {
    TopicPartition tp = new TopicPartition(span.topic(), 0);
    FirstRows rows = new FirstRows(span.expectedRows(v.kind()));
    long start = System.nanoTime();
    try (KafkaConsumer<String, Long> consumer = EndToEnd.consumer(bootstrap, span.group(v))) {
      KafkaWindows<String, Long, Long> windows = windows(v, consumer);
      consumer.subscribe(List.of(span.topic()), windows.rebalanceListener());
      long read = 0;
      long lastCommit = System.nanoTime();
      while (read < span.records()) {
        ConsumerRecords<String, Long> polled = consumer.poll(HandOver.POLL_TIMEOUT);
        windows.onPoll(polled, ConsumerRecord::key, ConsumerRecord::value);
        read += polled.count();
        windows.drainFinalized(rows);
        if (read >= span.records() || System.nanoTime() - lastCommit > COMMIT_INTERVAL_NANOS) {
          consumer.commitSync(windows.committableOffsets());
          lastCommit = System.nanoTime();
        }
        if (System.nanoTime() - start > HandOver.PASS_TIMEOUT.toNanos()) {
          throw new IllegalStateException(span.group(v) + ": first owner read only " + read);
        }
      }
      long distance = windows.resumeDistance(tp);
      long position = consumer.position(tp);
      OffsetAndMetadata committed = consumer.committed(Set.of(tp)).get(tp);
      if (read != span.records()
          || position != span.records()
          || committed == null
          || committed.offset() != 0
          || distance != span.records()
          || rows.onTimeRows != 0
          || windows.stats().late() != 0) {
        throw new IllegalStateException(
            String.format(
                Locale.ROOT,
                "%s: the first owner must hold every record: read %d, position %d, committed %s,"
                    + " resume distance %d, %d on-time rows, %d late",
                span.group(v),
                read,
                position,
                committed,
                distance,
                rows.onTimeRows,
                windows.stats().late()));
      }
      return new Prepared(
          span, v, read, System.nanoTime() - start, distance, rows.earlyRows + rows.lateRows);
    }
  }

  /**
   * A new owner, on a free partition: the clock starts before the consumer is created; it joins the
   * group, is assigned the partition (its checkpoint read by the listener), re-reads from the
   * committed offset through the trigger record, and stops at its last on-time row. It commits
   * nothing and closes, so the next round's owner starts from the same commit.
   */
  static Takeover takeover(String bootstrap, Span span, Variant v, int round) {
    System.gc();
    long start = System.nanoTime();
    long[] assigned = {FirstRows.NEVER};
    long records = span.records() + 1; // the data and the trigger
    FirstRows rows = new FirstRows(span.expectedRows(v.kind()));
    long late;
    long redelivered;
    try (KafkaConsumer<String, Long> consumer = EndToEnd.consumer(bootstrap, span.group(v))) {
      KafkaWindows<String, Long, Long> windows = windows(v, consumer);
      consumer.subscribe(
          List.of(span.topic()),
          windows.rebalanceListener(
              new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                  if (!partitions.isEmpty() && assigned[0] == FirstRows.NEVER) {
                    assigned[0] = System.nanoTime();
                  }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
              }));
      while (!rows.isComplete()) {
        ConsumerRecords<String, Long> polled = consumer.poll(HandOver.POLL_TIMEOUT);
        windows.onPoll(polled, ConsumerRecord::key, ConsumerRecord::value);
        rows.read += polled.count();
        windows.drainFinalized(rows);
        if (System.nanoTime() - start > HandOver.PASS_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              span.group(v) + ": no complete rows after reading " + rows.read + " records");
        }
      }
      late = windows.stats().late();
      redelivered = windows.redeliveredRecords();
    } // closed without a commit
    String check = rows.check(span.expectedSum(v.kind()));
    if (rows.readAtFirstOnTime != records || late != 0 || redelivered != 0) {
      check =
          (check.equals("ok") ? "" : check + "; ")
              + String.format(
                  Locale.ROOT,
                  "MISMATCH (read %d records before the first on-time row, expected %d; %d late,"
                      + " %d redelivered)",
                  rows.readAtFirstOnTime,
                  records,
                  late,
                  redelivered);
    }
    return new Takeover(
        round,
        span,
        v,
        rows.readAtFirstOnTime - 1,
        assigned[0] - start,
        rows.firstOnTimeNanos - assigned[0],
        rows.firstRowNanos - start,
        rows.firstOnTimeNanos - start,
        rows.completeNanos - start,
        rows.earlyRows + rows.lateRows,
        check);
  }
}
