package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeWindows;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The per-poll work of {@link KafkaWindows} after the poll's records: a heartbeat for each paused
 * partition (paused time is neither idle nor quiet), the idleness re-evaluation, the quiet-period
 * advance (per partition, or for the whole instance in {@code MERGED}), the alignment's pauses and
 * resumes, and the group watermark's periodic read. Not thread-safe: the polling thread; the
 * advance count is published for any thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PollTick<K, V, R> {

  private final Consumer<?, ?> consumer;

  /** The shared windows in {@code MERGED}, {@code null} in {@code PER_PARTITION}. */
  private final EventTimeWindows<K, V, R> merged;

  /** The quiet-period rule of the whole instance in {@code MERGED}, else {@code null}. */
  private final QuietAdvance instanceQuiet;

  /** The alignment, or {@code null} without {@code maxDrift}. */
  private final Alignment alignment;

  private final GroupWatermark groupWatermark;

  /** How many quiet-period advances moved a watermark. */
  volatile long quietAdvances;

  PollTick(
      Consumer<?, ?> consumer,
      EventTimeWindows<K, V, R> merged,
      QuietAdvance instanceQuiet,
      Alignment alignment,
      GroupWatermark groupWatermark) {
    this.consumer = consumer;
    this.merged = merged;
    this.instanceQuiet = instanceQuiet;
    this.alignment = alignment;
    this.groupWatermark = groupWatermark;
  }

  /**
   * The work of a poll after its records.
   *
   * @param assigned the assigned partitions, in assignment order
   * @param nowNanos the poll's monotonic time
   * @param wall the poll's wall-clock time
   */
  void afterRecords(
      Map<TopicPartition, PartitionState<K, V, R>> assigned, long nowNanos, long wall) {
    Set<TopicPartition> paused = consumer.paused();
    for (TopicPartition tp : paused) {
      PartitionState<K, V, R> p = assigned.get(tp);
      if (p != null) {
        p.windows.heartbeat(p.source);
        if (p.quiet != null) {
          p.quiet.activity(nowNanos); // paused time is not quiet
        }
        if (instanceQuiet != null) {
          instanceQuiet.activity(nowNanos); // nor is it for the whole instance
        }
      }
    }
    if (merged != null) {
      merged.refresh();
      if (!assigned.isEmpty()
          && (alignment == null || !alignment.pausedAny())
          && !anyBehindPreviousOwner(assigned)
          && instanceQuiet.due(nowNanos, merged.watermark(), wall)) {
        advance(merged, wall);
      }
      if (alignment != null) {
        alignment.align(assigned.keySet(), merged, paused);
      }
    } else {
      for (PartitionState<K, V, R> p : assigned.values()) {
        p.windows.refresh(); // a silent partition goes idle: its gauges say so
        if (!paused.contains(p.partition)
            && !p.behindPreviousOwner() // records it has not received yet exist: not quiet
            && p.quiet.due(nowNanos, p.windows.watermark(), wall)) {
          advance(p.windows, wall);
        }
      }
    }
    groupWatermark.maybeRefresh(nowNanos);
  }

  /** Whether a partition has records its previous owner read and this instance has not yet. */
  private static boolean anyBehindPreviousOwner(
      Map<TopicPartition, ? extends PartitionState<?, ?, ?>> assigned) {
    for (PartitionState<?, ?, ?> p : assigned.values()) {
      if (p.behindPreviousOwner()) {
        return true;
      }
    }
    return false;
  }

  private void advance(EventTimeWindows<K, V, R> windows, long wall) {
    long before = windows.watermark();
    windows.advanceTo(wall);
    if (windows.watermark() != before) {
      quietAdvances++;
    }
  }
}
