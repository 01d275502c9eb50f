package io.github.lowwater.kafka;

import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.WindowStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's life in {@link KafkaWindows}: assigned (its committed offset and checkpoint read,
 * its windows built or given back by the {@link WindowScope}), finished by {@code finishAll}, and
 * revoked or lost (dropped at once, nothing committed). Keeps the {@link PartitionTable} and
 * publishes it after each change. Not thread-safe: the polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PartitionLifecycle<K, V, R> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private final PartitionTable<K, V, R> table;
  private final WindowScope<K, V, R> scope;
  private final CheckpointReader checkpoints;

  /** The alignment, or {@code null}: it forgets revoked partitions. */
  private final Alignment alignment;

  /** Judges a partition's first records against its commit (semantics rule 65). */
  private final MissingRecords missing;

  /** Seeks the partitions of a task read again from their commits. */
  private final Consumer<?, ?> consumer;

  /** Whether {@code finishAll} was called: partitions assigned later are finished too. */
  private boolean finished;

  PartitionLifecycle(
      PartitionTable<K, V, R> table,
      WindowScope<K, V, R> scope,
      CheckpointReader checkpoints,
      Alignment alignment,
      MissingRecords missing,
      Consumer<?, ?> consumer) {
    this.table = table;
    this.scope = scope;
    this.checkpoints = checkpoints;
    this.alignment = alignment;
    this.missing = missing;
    this.consumer = consumer;
  }

  /**
   * The state of a partition whose records start at {@code firstOffset} in this poll, decided in
   * this one place: assigned here if it arrived without the listener (its checkpoint read), and, at
   * the first records of its history, checked for records its reading lacks (semantics rule 65):
   * started again without its checkpoint if that describes another log, marked if records may be
   * missing.
   *
   * @throws MissingRecordsException under {@code FAIL}, when records may be missing; nothing
   *     changed
   */
  PartitionState<K, V, R> start(TopicPartition tp, long firstOffset, long nowNanos) {
    PartitionState<K, V, R> p = partitionFor(tp, nowNanos); // reads its checkpoint if unannounced
    if (p.startChecked) {
      return p;
    }
    int found = missing.check(p, firstOffset); // may throw (FAIL)
    if (found == MissingRecords.RESTART) {
      p = restartWithoutCheckpoint(tp, nowNanos);
      p.startChecked = true;
    }
    if (found != MissingRecords.NOTHING) {
      p.missingRecords();
    }
    return p;
  }

  /**
   * {@code CO_PARTITIONED}: holds the tasks not whole here and releases the others (semantics rule
   * 73); a task whole again is read from its members' commits, each sought to its commit (or to
   * where it had started reading without one).
   */
  void settleTasks(long nowNanos) {
    Map<TopicPartition, Long> again = scope.settle(table);
    if (again.isEmpty()) {
      return;
    }
    assign(again.keySet(), nowNanos); // reads their commits
    again.forEach(
        (tp, firstRead) -> {
          PartitionState<K, V, R> p = table.get(tp);
          long offset = p != null && p.nextOffset >= 0 ? p.nextOffset : firstRead;
          if (offset >= 0) {
            consumer.seek(tp, offset);
          }
        });
    scope.settle(table); // now whole: released
  }

  /** The state of a partition that delivers records, assigned here if it arrived without one. */
  private PartitionState<K, V, R> partitionFor(TopicPartition tp, long nowNanos) {
    PartitionState<K, V, R> p = table.get(tp);
    if (p == null) {
      assign(List.of(tp), nowNanos); // consumer.assign without the listener, or before it ran
      p = table.get(tp);
    }
    return p;
  }

  /**
   * Registers newly assigned partitions from their committed offsets (one {@code committed} call);
   * those already assigned are left as they are. If the read throws, nothing is registered.
   */
  void assign(Collection<TopicPartition> partitions, long nowNanos) {
    List<TopicPartition> added = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (!table.contains(tp)) {
        added.add(tp);
      }
    }
    try {
      if (!added.isEmpty()) {
        register(added, checkpoints.committed(added), nowNanos); // the read may throw
      }
    } finally {
      scope.rebalanced(); // a partition revoked and not given back in this rebalance is gone
    }
  }

  /** Registers partitions that are not assigned, from committed offsets already read. */
  private void register(
      List<TopicPartition> added, Map<TopicPartition, OffsetAndMetadata> committed, long nowNanos) {
    for (TopicPartition tp : added) {
      table.put(stateOf(tp, committed.get(tp), nowNanos));
    }
    scope.joined(nowNanos);
    table.publish(PartitionTable.NO_STATS);
  }

  /** The state of a newly assigned partition, from its committed offset and checkpoint. */
  private PartitionState<K, V, R> stateOf(TopicPartition tp, OffsetAndMetadata om, long nowNanos) {
    PartitionState<K, V, R> back = scope.givenBack(tp);
    if (back != null) {
      return back;
    }
    PartitionState<K, V, R> p = scope.newPartition(tp, nowNanos);
    if (om != null) {
      Checkpoint checkpoint = checkpoints.parse(tp, om);
      p.unusableCheckpoint = CheckpointReader.unusable(om, checkpoint);
      if (p.unusableCheckpoint != null) {
        checkpoint = Checkpoint.NONE; // its claims are about another log, or absent
      }
      p.reconfigured =
          checkpoints.warnIfJudgedOtherwise(
              tp, checkpoint, p.windows, p.wallClock.futureSkewMillis());
      p.restore(om, checkpoint);
      scope.restored(p, checkpoint);
      if (checkpoint != Checkpoint.NONE) {
        LOG.debug(
            "{} assigned at checkpoint: written through {}, watermark {}, read through offset {}",
            tp,
            TimeMath.describeMillis(checkpoint.writtenThroughMillis()),
            TimeMath.describeMillis(checkpoint.watermarkMillis()),
            checkpoint.readThroughOffset());
      }
    }
    if (finished) {
      // Every record of a partition assigned after the end is late: it claims no window of its own.
      p.finishedThroughMillis = p.writtenThroughMillis;
      scope.finishPartition(p);
    }
    return p;
  }

  /**
   * Starts a partition's history again, before any of its records was processed, as if nothing had
   * been committed ({@link MissingRecords#RESTART}: its checkpoint describes another log, and its
   * committed offset lies beyond this log's end). Returns the new state; its first commit is its
   * own.
   */
  private PartitionState<K, V, R> restartWithoutCheckpoint(TopicPartition tp, long nowNanos) {
    forget(List.of(tp));
    scope.rebalanced(); // not to be given back: it starts anew
    register(List.of(tp), Map.of(), nowNanos);
    return table.get(tp);
  }

  /** Drops revoked or lost partitions at once; those not assigned are ignored. */
  void forget(Collection<TopicPartition> partitions) {
    List<TopicPartition> known = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (table.contains(tp)) {
        known.add(tp);
      }
    }
    scope.revocationOrder(known);
    WindowStats retiring = PartitionTable.NO_STATS;
    for (TopicPartition tp : known) {
      PartitionState<K, V, R> p = table.remove(tp);
      if (alignment != null) {
        alignment.forget(tp);
      }
      retiring = PartitionTable.sum(retiring, scope.revoked(p));
    }
    table.publish(retiring);
  }

  /**
   * Puts assigned partitions back to their last commit, as a new owner starts: their committed
   * offsets and checkpoints are read first (one {@code committed} call), then each one's state is
   * dropped and built again from them. Returns, per partition, where its next record is: the
   * committed offset, or without a commit the first offset this owner had read (-1: it had read
   * none). Partitions not assigned are ignored. If reading the commits throws, nothing has changed:
   * the partitions keep their state, and a later call can rewind them.
   */
  Map<TopicPartition, Long> rewind(Collection<TopicPartition> partitions, long nowNanos) {
    Map<TopicPartition, Long> firstRead = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      PartitionState<K, V, R> p = table.get(tp);
      if (p != null) {
        firstRead.put(tp, p.firstReadOffset);
      }
    }
    if (firstRead.isEmpty()) {
      return Map.of();
    }
    List<TopicPartition> rewound = new ArrayList<>(firstRead.keySet());
    Map<TopicPartition, OffsetAndMetadata> committed = checkpoints.committed(rewound); // may throw
    forget(rewound);
    register(rewound, committed, nowNanos);
    Map<TopicPartition, Long> resume = new HashMap<>();
    firstRead.forEach(
        (tp, first) -> {
          PartitionState<K, V, R> p = table.get(tp);
          resume.put(tp, p.nextOffset >= 0 ? p.nextOffset : first);
        });
    return resume;
  }

  /**
   * {@code finishAll}: every open window closes; the checkpoints claim no window newer than the
   * newest one that held records; partitions assigned later are finished at assignment.
   */
  void finishAll() {
    finished = true;
    for (PartitionState<K, V, R> p : table.states()) {
      p.finishedThroughMillis =
          Math.max(Math.max(p.returnedThroughMillis, p.writtenThroughMillis), p.newestHeldEnd());
      scope.finishPartition(p);
    }
    scope.finish();
  }
}
