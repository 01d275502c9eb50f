package io.github.lowwater.kafka;

import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The per-poll work of {@link KafkaWindows} after the poll's records: a heartbeat for each paused
 * partition (paused time is neither idle nor quiet), the scope's part ({@link
 * WindowScope#afterPoll}: the idleness re-evaluation, the quiet-period advance, the alignment's
 * pauses and resumes), and the group watermark's periodic read. Not thread-safe: the polling
 * thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PollTick<K, V, R> {

  private final Consumer<?, ?> consumer;
  private final WindowScope<K, V, R> scope;
  private final GroupWatermark groupWatermark;

  PollTick(Consumer<?, ?> consumer, WindowScope<K, V, R> scope, GroupWatermark groupWatermark) {
    this.consumer = consumer;
    this.scope = scope;
    this.groupWatermark = groupWatermark;
  }

  /**
   * The work of a poll after its records.
   *
   * @param table the assigned partitions
   * @param nowNanos the poll's monotonic time
   * @param wall the poll's wall-clock time
   */
  void afterRecords(PartitionTable<K, V, R> table, long nowNanos, long wall) {
    Set<TopicPartition> paused = consumer.paused();
    for (TopicPartition tp : paused) {
      PartitionState<K, V, R> p = table.get(tp);
      if (p != null) {
        p.windows.heartbeat(p.source);
        scope.activity(p, nowNanos); // paused time is not quiet
      }
    }
    scope.afterPoll(table, paused, nowNanos, wall);
    groupWatermark.maybeRefresh(nowNanos);
  }
}
