package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link ResultScope#MERGED}: one set of windows over every partition of the instance, each
 * partition a source of it; closed on the minimum over the partitions, advanced by one quiet-period
 * rule for the whole instance, aligned by {@code maxDrift}. A revoked partition's records stay in
 * the windows, and a partition given back within the same rebalance takes up where it was. See
 * {@link WindowScope}.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class MergedScope<K, V, R> extends WindowScope<K, V, R> {

  private final EventTimeWindows<K, V, R> merged;
  private final RecordAdmission<K, V, R> admission;

  /** The quiet-period rule of the whole instance. */
  private final QuietAdvance instanceQuiet;

  /** The alignment, or {@code null} without {@code maxDrift}. */
  private final Alignment alignment;

  /** Partitions revoked or lost in this rebalance, in case they come back. */
  private final Map<TopicPartition, PartitionState<K, V, R>> departed = new HashMap<>();

  /** Hands the results to the caller's visitor, with no partition. */
  private final PartitionForward<K, R> forward = new PartitionForward<>();

  /**
   * The largest bound of incomplete rows of the partitions that left the instance: their records
   * stay in the merged windows (semantics rule 64).
   */
  private long departedIncompleteBefore = Checkpoint.COMPLETE;

  /** The incomplete rows handed out; written by the polling thread only. */
  private volatile long incompleteRows;

  MergedScope(
      KafkaSettings<? super V, R> settings,
      CachedClock clock,
      RecordAdmission<K, V, R> admission,
      Alignment alignment,
      long nowNanos) {
    this.merged = settings.<K, V>newWindows(clock);
    this.admission = admission;
    this.alignment = alignment;
    this.instanceQuiet =
        new QuietAdvance(
            settings.quietAdvanceAfterNanos(),
            settings.quietAdvanceMaxLagMillis(),
            "all partitions",
            nowNanos);
  }

  /** The allowed lateness of the shared windows, for the builder's check of {@code maxDrift}. */
  long allowedLatenessMillis() {
    return merged.allowedLatenessMillis();
  }

  @Override
  PartitionState<K, V, R> givenBack(TopicPartition tp) {
    PartitionState<K, V, R> back = departed.remove(tp);
    if (back != null) {
      // The same partition given back to this instance (an eager rebalance, a lost membership):
      // its records up to where it had read are in the merged windows already.
      back.rejoin(merged.source(tp));
    }
    return back;
  }

  @Override
  PartitionState<K, V, R> newPartition(TopicPartition tp, long nowNanos) {
    return new PartitionState<>(tp, merged, null, nowNanos);
  }

  @Override
  void restored(PartitionState<K, V, R> p, Checkpoint checkpoint) {
    admission.mergedWrittenThroughMillis =
        Math.max(admission.mergedWrittenThroughMillis, checkpoint.writtenThroughMillis());
    merged.markWritten(admission.mergedWrittenThroughMillis);
  }

  @Override
  void joined(long nowNanos) {
    instanceQuiet.activity(nowNanos);
  }

  @Override
  void rebalanced() {
    departed.clear();
  }

  /**
   * Fastest first: an eager rebalance revokes every partition at once, and removing the slowest
   * first would raise the watermark to the next-slowest one for a moment, making the slowest
   * partition's next records late once it is assigned again.
   */
  @Override
  void revocationOrder(List<TopicPartition> partitions) {
    partitions.sort(
        Comparator.comparingLong((TopicPartition tp) -> merged.frontier(tp)).reversed());
  }

  @Override
  WindowStats revoked(PartitionState<K, V, R> p) {
    merged.remove(p.partition);
    departed.put(p.partition, p); // its records stay in the merged windows
    departedIncompleteBefore =
        Math.max(departedIncompleteBefore, p.settledIncompleteBeforeMillis());
    return PartitionTable.NO_STATS;
  }

  @Override
  void finish() {
    merged.finish();
  }

  @Override
  void activity(PartitionState<K, V, R> p, long nowNanos) {
    instanceQuiet.activity(nowNanos);
  }

  @Override
  void afterPoll(
      PartitionTable<K, V, R> table, Set<TopicPartition> paused, long nowNanos, long wall) {
    merged.refresh();
    if (table.size() > 0
        && (alignment == null || !alignment.pausedAny())
        && !anyBehindPreviousOwner(table.states())
        && instanceQuiet.due(nowNanos, merged.watermark(), wall)) {
      advance(merged, wall);
    }
    if (alignment != null) {
      alignment.align(table.byPartition().keySet(), merged, paused);
    }
  }

  /** Whether a partition has records its previous owner read and this instance has not yet. */
  private static boolean anyBehindPreviousOwner(Collection<? extends PartitionState<?, ?, ?>> all) {
    for (PartitionState<?, ?, ?> p : all) {
      if (p.behindPreviousOwner()) {
        return true;
      }
    }
    return false;
  }

  @Override
  List<WindowResult<K, R>> take(Collection<PartitionState<K, V, R>> partitions) {
    List<WindowResult<K, R>> results = merged.pollFinalized();
    returned(partitions);
    long incompleteBefore = incompleteBefore(partitions);
    if (incompleteBefore == Checkpoint.COMPLETE) {
      return results;
    }
    List<WindowResult<K, R>> marked = new ArrayList<>(results.size());
    long n = 0;
    for (WindowResult<K, R> r : results) {
      if (r.start() < incompleteBefore) {
        marked.add(r.incomplete());
        n++;
      } else {
        marked.add(r);
      }
    }
    incompleteRows += n;
    return marked;
  }

  @Override
  int drain(
      Collection<PartitionState<K, V, R>> partitions,
      PartitionResultVisitor<? super K, ? super R> visitor) {
    forward.target = visitor;
    forward.incompleteBefore = incompleteBefore(partitions);
    try {
      int count = merged.drainFinalized(forward);
      returned(partitions);
      return count;
    } finally {
      forward.target = null;
      incompleteRows += forward.incompleteRows;
      forward.incompleteRows = 0;
    }
  }

  /**
   * A merged row holds every partition's records: it is incomplete if it starts before the bound of
   * any partition that fed the windows, assigned or departed.
   */
  private long incompleteBefore(Collection<PartitionState<K, V, R>> partitions) {
    long before = departedIncompleteBefore;
    for (PartitionState<K, V, R> p : partitions) {
      before = Math.max(before, p.incompleteBeforeMillis());
    }
    return before;
  }

  @Override
  boolean isComplete(PartitionTable<K, V, R> table, TopicPartition tp, long startMillis) {
    long before =
        forward.target != null ? forward.incompleteBefore : incompleteBefore(table.states());
    return startMillis >= before;
  }

  @Override
  long incompleteRows() {
    return incompleteRows;
  }

  /**
   * Every window ending by the shared watermark is returned, for every partition; session windows
   * let each partition's ledger go past the records older than every pending session.
   */
  private void returned(Collection<PartitionState<K, V, R>> partitions) {
    for (PartitionState<K, V, R> p : partitions) {
      p.returned();
    }
  }

  @Override
  long seedWatermark(long newestWrittenWindowEndMillis) {
    long seeded = merged.seedWatermark(newestWrittenWindowEndMillis);
    if (merged instanceof SessionWindows) {
      admission.mergedSessionFloorMillis = Math.max(admission.mergedSessionFloorMillis, seeded);
    }
    return seeded;
  }

  @Override
  EventTimeWindows<K, V, R> windows() {
    return merged;
  }

  @Override
  long watermark(PartitionTable.View view) {
    return merged.watermark();
  }

  @Override
  WindowStats stats(PartitionTable.View view) {
    return merged.stats();
  }

  @Override
  int activePartitionCount(PartitionTable.View view) {
    return merged.activeSources();
  }
}
