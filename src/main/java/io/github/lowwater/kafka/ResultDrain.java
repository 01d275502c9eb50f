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

  /** The incomplete rows handed out (semantics rule 64); written by the polling thread only. */
  private volatile long incompleteRows;

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
      long incompleteBefore = p.incompleteBeforeMillis();
      for (WindowResult<K, R> r : own) {
        WindowResult<K, R> row = r.withSource(p.partition);
        unreturned.add(row.start() < incompleteBefore ? row.incomplete() : row);
      }
    }
    for (PartitionState<K, V, R> p : partitions) {
      p.returned(); // only now are they returned
    }
    List<WindowResult<K, R>> results = unreturned;
    unreturned = null;
    if (results == null) {
      return List.of();
    }
    countIncomplete(results);
    return results;
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
        countIncomplete(unreturned);
        unreturned = null;
      }
      for (PartitionState<K, V, R> p : partitions) {
        forward.partition = p.partition;
        forward.incompleteBefore = p.incompleteBeforeMillis();
        count += p.windows.drainFinalized(forward); // may throw: see KafkaWindows.drainFinalized
        p.returned();
      }
      return count;
    } finally {
      forward.target = null;
      forward.partition = null;
      incompleteRows += forward.incompleteRows; // the rows visited count, even before a throw
      forward.incompleteRows = 0;
    }
  }

  private void countIncomplete(List<WindowResult<K, R>> rows) {
    long n = 0;
    for (WindowResult<K, R> r : rows) {
      if (!r.isComplete()) {
        n++;
      }
    }
    incompleteRows += n;
  }

  /** How many incomplete rows were handed out. Any thread. */
  long incompleteRows() {
    return incompleteRows;
  }

  /** Drops the results of a revoked partition kept by a {@link #take} that threw. */
  void dropUnreturned(TopicPartition tp) {
    if (unreturned != null) {
      unreturned.removeIf(r -> tp.equals(r.source()));
    }
  }
}
