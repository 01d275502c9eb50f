package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What differs between the two {@link ResultScope}s, chosen once by {@link
 * KafkaWindows.Builder#build()} (as Caffeine chooses its bounded or unbounded cache at build time):
 * which windows a newly assigned partition feeds and what its checkpoint seeds there, what a
 * revocation keeps, the scope's part of the per-poll work, how results are taken out, and how the
 * instance's readings are summed. {@link PerPartitionScope}: windows of its own per partition;
 * {@link MergedScope}: one set of windows over every partition of the instance. The coordinator
 * calls it; it never calls back. Polling thread, except the readings, which read the published
 * {@link PartitionTable.View} and are safe from any thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
abstract class WindowScope<K, V, R> {

  /** How many quiet-period advances moved a watermark; written by the polling thread only. */
  private volatile long quietAdvances;

  /**
   * The scope the settings ask for.
   *
   * @param settings what the builder fixed
   * @param clock the driver's clock, read once per poll
   * @param admission the record admission, which the merged scope tells of restored checkpoints
   * @param alignment the alignment, or {@code null} (always {@code null} per partition)
   * @param nowNanos the monotonic time of the driver's creation
   */
  static <K, V, R> WindowScope<K, V, R> of(
      KafkaSettings<? super V, R> settings,
      CachedClock clock,
      RecordAdmission<K, V, R> admission,
      Alignment alignment,
      long nowNanos) {
    return switch (settings.scope()) {
      case MERGED -> new MergedScope<>(settings, clock, admission, alignment, nowNanos);
      case CO_PARTITIONED -> new TaskScope<>(settings, clock);
      case PER_PARTITION -> new PerPartitionScope<>(settings, clock);
    };
  }

  // -- the partition lifecycle --------------------------------------------------------------

  /**
   * A partition this instance had and is given back within the same rebalance, with what it had
   * read still in the windows, or {@code null}: the caller then builds a new state.
   */
  PartitionState<K, V, R> givenBack(TopicPartition tp) {
    return null;
  }

  /** The state of a newly assigned partition, before its checkpoint is applied. */
  abstract PartitionState<K, V, R> newPartition(TopicPartition tp, long nowNanos);

  /** Applies what a restored checkpoint says to the partition's windows. */
  abstract void restored(PartitionState<K, V, R> p, Checkpoint checkpoint);

  /**
   * After partitions are revoked, lost or rewound ({@code gone}): the partitions still assigned
   * whose state went with them ({@code CO_PARTITIONED}: the rest of a torn-down task), for the
   * caller to drop too. None in the other scopes.
   */
  List<TopicPartition> orphaned(Collection<TopicPartition> gone) {
    return List.of();
  }

  /**
   * After an assignment change ({@code CO_PARTITIONED}): holds the tasks not whole here, releases
   * the others, and returns the partitions to read again from their commits (with the offset to
   * resume from without one); the caller registers them, seeks them, and calls again. Empty in the
   * other scopes.
   */
  Map<TopicPartition, Long> settle(PartitionTable<K, V, R> table) {
    return Map.of();
  }

  /** Whether nothing of the partition is read now: its task is held. */
  boolean held(TopicPartition tp) {
    return false;
  }

  /** How many partitions are held. Any thread. */
  int heldPartitions() {
    return 0;
  }

  /** The partitions a rewind of {@code partitions} must read again. */
  Collection<TopicPartition> rewindSet(Collection<TopicPartition> partitions) {
    return partitions;
  }

  /** Partitions joined the instance: a join is not a quiet period. */
  void joined(long nowNanos) {}

  /** The end of the rebalance: partitions revoked and not given back are gone for good. */
  void rebalanced() {}

  /** Orders the partitions about to be revoked; the order in which {@link #revoked} sees them. */
  void revocationOrder(List<TopicPartition> partitions) {}

  /**
   * A partition was revoked or lost and removed from the table.
   *
   * @return the counters of its windows that must survive it, {@link PartitionTable#NO_STATS} when
   *     its records stay counted in shared windows
   */
  abstract WindowStats revoked(PartitionState<K, V, R> p);

  /**
   * {@code finishAll}: a partition's own windows close; the shared ones close in {@link #finish}.
   */
  void finishPartition(PartitionState<K, V, R> p) {}

  /** {@code finishAll}, after every assigned partition: the shared windows close. */
  void finish() {}

  // -- the poll ------------------------------------------------------------------------------

  /** A partition delivered records, or was paused: its time was not quiet. */
  abstract void activity(PartitionState<K, V, R> p, long nowNanos);

  /**
   * The scope's part of a poll's work after the records: idleness, the quiet-period advance, and in
   * {@code MERGED} the alignment.
   */
  abstract void afterPoll(
      PartitionTable<K, V, R> table, Set<TopicPartition> paused, long nowNanos, long wall);

  /**
   * Advances the windows to the wall clock and counts it when their watermark moved; returns
   * whether it moved.
   */
  final boolean advance(EventTimeWindows<K, V, R> windows, long wall) {
    long before = windows.watermark();
    windows.advanceTo(wall);
    if (windows.watermark() != before) {
      quietAdvances++;
      return true;
    }
    return false;
  }

  /** Counts a quiet-period advance that moved a watermark, made by the scope itself. */
  final void quietAdvanced() {
    quietAdvances++;
  }

  /** How many quiet-period advances moved a watermark. Any thread. */
  final long quietAdvances() {
    return quietAdvances;
  }

  // -- results -------------------------------------------------------------------------------

  /** {@link KafkaWindows#pollFinalized()}: the new results; what counts as returned is marked. */
  abstract List<WindowResult<K, R>> take(Collection<PartitionState<K, V, R>> partitions);

  /** {@link KafkaWindows#drainFinalized}: the new results through the visitor. */
  abstract int drain(
      Collection<PartitionState<K, V, R>> partitions,
      PartitionResultVisitor<? super K, ? super R> visitor);

  /**
   * {@link KafkaWindows#isComplete}: whether the row of the window starting at {@code startMillis}
   * is complete (semantics rule 64). Polling thread, the visitor of a drain included.
   *
   * @param table the assigned partitions
   * @param tp the row's partition ({@code PER_PARTITION}); ignored in {@code MERGED}
   */
  abstract boolean isComplete(PartitionTable<K, V, R> table, TopicPartition tp, long startMillis);

  /** How many incomplete rows were handed out, by a list or a visitor. Any thread. */
  abstract long incompleteRows();

  /** {@link KafkaWindows#seedWatermark}. */
  abstract long seedWatermark(long newestWrittenWindowEndMillis);

  /** {@link KafkaWindows#windows()}. */
  abstract EventTimeWindows<K, V, R> windows();

  // -- readings, any thread --------------------------------------------------------------------

  /** {@link KafkaWindows#watermark()}. */
  abstract long watermark(PartitionTable.View view);

  /** {@link KafkaWindows#stats()}. */
  abstract WindowStats stats(PartitionTable.View view);

  /** {@link KafkaWindows#activePartitionCount()}. */
  abstract int activePartitionCount(PartitionTable.View view);
}
