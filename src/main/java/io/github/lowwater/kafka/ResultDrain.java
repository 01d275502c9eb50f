package io.github.lowwater.kafka;

import io.github.lowwater.window.WindowResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Takes the finalized results out of the partitions' own windows ({@link PerPartitionScope}), as a
 * list or through a visitor, and marks what counts as returned, which is what the committed offsets
 * may move past: a partition's windows only once all its results were computed (a list) or visited
 * (a visitor). Results taken from some partitions by a list that then threw are kept and handed out
 * first by the next call. Not thread-safe: the polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class ResultDrain<K, V, R> {

  /**
   * Results taken from some partitions' windows by a {@link #take} that then threw (an aggregator's
   * {@code result}); the next call returns them.
   */
  private List<WindowResult<K, R>> unreturned;

  /** Hands a partition's results to the caller's visitor during {@link #drain}. */
  private final PartitionForward<K, R> forward = new PartitionForward<>();

  /**
   * {@link KafkaWindows#pollFinalized()}: the results of every partition, those left by a call that
   * threw first; the partitions count as returned only once every result is computed.
   */
  List<WindowResult<K, R>> take(Collection<PartitionState<K, V, R>> partitions) {
    for (PartitionState<K, V, R> p : partitions) {
      List<WindowResult<K, R>> own =
          p.windows.pollFinalized(); // may throw: see KafkaWindows.pollFinalized
      if (own.isEmpty()) {
        continue;
      }
      if (unreturned == null) {
        unreturned = new ArrayList<>(own.size());
      }
      for (WindowResult<K, R> r : own) {
        unreturned.add(r.withSource(p.partition));
      }
    }
    for (PartitionState<K, V, R> p : partitions) {
      p.returned(); // only now are they returned
    }
    List<WindowResult<K, R>> results = unreturned;
    unreturned = null;
    return results != null ? results : List.of();
  }

  /**
   * {@link KafkaWindows#drainFinalized}: the results left by a {@code take} that threw, then each
   * partition's, through the visitor; a partition counts as returned once its results are visited.
   */
  int drain(
      Collection<PartitionState<K, V, R>> partitions,
      PartitionResultVisitor<? super K, ? super R> visitor) {
    forward.target = visitor;
    try {
      int count = 0;
      if (unreturned != null) { // left by a pollFinalized() that threw
        for (WindowResult<K, R> r : unreturned) {
          for (long replaced : r.replaces()) {
            visitor.visitReplaced((TopicPartition) r.source(), replaced, r.key());
          }
          visitor.visitPane(
              (TopicPartition) r.source(),
              r.start(),
              r.end(),
              r.key(),
              r.value(),
              r.timing(),
              r.index(),
              r.isFinal());
        }
        count += unreturned.size();
        unreturned = null;
      }
      for (PartitionState<K, V, R> p : partitions) {
        forward.partition = p.partition;
        count += p.windows.drainFinalized(forward); // may throw: see KafkaWindows.drainFinalized
        p.returned();
      }
      return count;
    } finally {
      forward.target = null;
      forward.partition = null;
    }
  }

  /** Drops the results of a revoked partition kept by a {@link #take} that threw. */
  void dropUnreturned(TopicPartition tp) {
    if (unreturned != null) {
      unreturned.removeIf(r -> tp.equals(r.source()));
    }
  }
}
