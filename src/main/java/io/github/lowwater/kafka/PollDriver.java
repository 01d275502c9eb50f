package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Takes one poll's records into a {@link KafkaWindows}, partition by partition (issue 46: the poll
 * driver in its own file): the partition's state from {@link PartitionLifecycle#start} (the one
 * place that decides how a partition starts), a held task's records set aside, the predecessor's
 * wall-clock decisions replayed before each record, each record through {@link RecordAdmission},
 * and, on any exception, the consumer rewound to the first record not processed before it
 * propagates (semantics rules 24 and 57). Then the poll's tick ({@link PollTick}). Data flows one
 * way: nothing here asks the facade back.
 *
 * <p>Not thread-safe: the polling thread. Allocates nothing per record.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PollDriver<K, V, R> {

  private final CachedClock clock;
  private final PollStamp pollStamp;
  private final Consumer<?, ?> consumer;
  private final PartitionTable<K, V, R> table;
  private final WindowScope<K, V, R> scope;
  private final PartitionLifecycle<K, V, R> lifecycle;
  private final RecordAdmission<K, V, R> admission;
  private final PollTick<K, V, R> tick;

  /**
   * Whether the rows of re-read records are dropped (a transactional sink, rule 59): see {@link
   * KafkaWindows#dropRowsOfReplayedRecords}.
   */
  boolean dropReplayedRows;

  PollDriver(
      CachedClock clock,
      PollStamp pollStamp,
      Consumer<?, ?> consumer,
      PartitionTable<K, V, R> table,
      WindowScope<K, V, R> scope,
      PartitionLifecycle<K, V, R> lifecycle,
      RecordAdmission<K, V, R> admission,
      PollTick<K, V, R> tick) {
    this.clock = clock;
    this.pollStamp = pollStamp;
    this.consumer = consumer;
    this.table = table;
    this.scope = scope;
    this.lifecycle = lifecycle;
    this.admission = admission;
    this.tick = tick;
  }

  /**
   * Takes the records of one poll (what {@link KafkaWindows#onPoll(ConsumerRecords, RecordMapper)}
   * documents, its arguments checked there).
   */
  <KR, VR> void onPoll(ConsumerRecords<KR, VR> records, RecordMapper<KR, VR, K, V> mapper) {
    clock.update();
    long nowNanos = clock.monotonicNanos();
    pollStamp.stamp(nowNanos);
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<KR, VR>> batch = records.records(tp);
      if (batch.isEmpty()) {
        continue;
      }
      PartitionState<K, V, R> p;
      try {
        p = lifecycle.start(tp, batch.get(0).offset(), nowNanos); // may throw (FAIL)
      } catch (RuntimeException | Error e) {
        Rewind.afterFailure(consumer, records, tp, batch.get(0).offset());
        throw e;
      }
      if (scope.held(tp)) {
        lifecycle.settleTasks(
            nowNanos); // a partition that came before its listener call, or by hand
        p = table.get(tp);
        if (p == null || scope.held(tp)) {
          // Its task is not whole here (semantics rule 73): nothing of it is read; the records
          // come again once it is, from here.
          consumer.seek(tp, batch.get(0).offset());
          continue;
        }
      }
      scope.activity(p, nowNanos);
      p.lastRecordNanos = nowNanos;
      p.pollWallMillis = clock.wallMillis();
      admission.begin(p, batch, mapper); // every key looked up ahead: their cache misses overlap
      // The predecessor handed out every row of the records below its read position, with the
      // checkpoint that says so: a sink that must not get them twice does not get them again. Not
      // after a change of configuration: the predecessor's rows were other rows.
      boolean dropRows = dropReplayedRows && !p.reconfigured;
      try {
        int mapped = admission.mapped();
        for (int j = 0; j < mapped; j++) {
          ConsumerRecord<KR, VR> r = batch.get(j);
          admission.recordTaken = false;
          boolean replay = dropRows && r.offset() < p.readThroughOffset;
          try {
            // The predecessor's wall-clock decisions before this record, then the record: the
            // raise's rows are dropped inside, and replaying is on for the record's own.
            p.wallClock.replayTo(r.offset(), dropRows, p.windows, p.raiseSource());
            if (replay) {
              p.windows.replaying(true);
            }
            admission.process(p, r, j);
          } catch (RuntimeException | Error e) {
            p.publishFrontier();
            Rewind.afterFailure(
                consumer, records, tp, admission.recordTaken ? r.offset() + 1 : r.offset());
            throw e;
          } finally {
            if (replay) {
              p.windows.replaying(false);
            }
          }
        }
        Throwable mapperFailure = admission.mapperFailure();
        if (mapperFailure != null) { // the records before it are processed: it is the first not
          p.publishFrontier();
          Rewind.afterFailure(consumer, records, tp, batch.get(mapped).offset());
          throw rethrow(mapperFailure);
        }
        p.wallClock.replayTo(
            p.nextOffset, dropRows, p.windows, p.raiseSource()); // after the last record
      } finally {
        admission.end(p);
      }
      p.settleIncomplete(); // once its records have a frontier, if some may be missing
      p.publishFrontier(); // once per partition and poll, for readers on other threads
    }
    tick.afterRecords(table, nowNanos, clock.wallMillis());
  }

  /** Throws {@code t}, which the mapper threw: a {@code RuntimeException} or an {@code Error}. */
  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof Error) {
      throw (Error) t;
    }
    throw (RuntimeException) t;
  }
}
