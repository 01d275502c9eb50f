package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeWindows;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * One task of {@link ResultScope#CO_PARTITIONED}: partition {@code i} of every input topic, its
 * windows (judged per source, semantics rule 72), its members as assigned here, what their
 * checkpoints say is written, and whether it is held (semantics rule 73). Not thread-safe: the
 * polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class CoPartitionedTask<K, V, R> implements ResultDrain.Unit<K, V, R> {

  /** The partition number every member shares. */
  final int partition;

  final EventTimeWindows<K, V, R> windows;

  /** Its members assigned here, in assignment order. */
  final List<PartitionState<K, V, R>> members = new ArrayList<>(2);

  /** The largest written-through time of its members' checkpoints. */
  long writtenThroughMillis = io.github.lowwater.WatermarkTracker.NO_WATERMARK;

  /** The partition its rows carry: the first input topic's, in name order. */
  TopicPartition rowSource;

  /** Whether it lacks a member here: nothing of it is read until it has them all. */
  boolean held;

  CoPartitionedTask(int partition, EventTimeWindows<K, V, R> windows) {
    this.partition = partition;
    this.windows = windows;
  }

  /**
   * Rows of windows starting before it may lack records (semantics rule 64): the largest bound of
   * its members, since each row holds every member's records.
   */
  @Override
  public long incompleteBeforeMillis() {
    long before = Checkpoint.COMPLETE;
    for (PartitionState<K, V, R> m : members) {
      before = Math.max(before, m.incompleteBeforeMillis());
    }
    return before;
  }

  /** Notes that every member's finalized windows were returned. */
  @Override
  public void returned() {
    for (PartitionState<K, V, R> m : members) {
      m.returned();
    }
  }

  @Override
  public EventTimeWindows<K, V, R> unitWindows() {
    return windows;
  }

  @Override
  public TopicPartition rowSource() {
    return rowSource;
  }

  @Override
  public String toString() {
    return "task " + partition + " " + members.stream().map(m -> m.partition).toList();
  }
}
