package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.WindowResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Takes the finalized results out of windows that each belong to one {@link Unit} (a partition's
 * own in {@link PerPartitionScope}, a task's in {@link TaskScope}), as a list or through a visitor,
 * and marks what counts as returned, which is what the committed offsets may move past: a unit's
 * windows only once all its results were computed (a list) or visited (a visitor). Results taken
 * from some units by a list that then threw are kept and handed out first by the next call. Not
 * thread-safe: the polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class ResultDrain<K, V, R> {

  /**
   * What owns one set of windows whose rows carry one partition: a {@link PartitionState} in {@code
   * PER_PARTITION}, a {@link CoPartitionedTask} in {@code CO_PARTITIONED}.
   *
   * @param <K> the window key type
   * @param <V> the value type
   * @param <R> the result type
   */
  interface Unit<K, V, R> {
    /** Its windows. */
    EventTimeWindows<K, V, R> unitWindows();

    /** The partition its rows carry as their source. */
    TopicPartition rowSource();

    /** Its rows of windows starting before it are incomplete (semantics rule 64). */
    long incompleteBeforeMillis();

    /** Notes that its finalized windows were returned. */
    void returned();
  }

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
   * {@link KafkaWindows#pollFinalized()}: the results of every unit, those left by a call that
   * threw first; the units count as returned only once every result is computed.
   */
  List<WindowResult<K, R>> take(Collection<? extends Unit<K, V, R>> units) {
    for (Unit<K, V, R> p : units) {
      List<WindowResult<K, R>> own =
          p.unitWindows().pollFinalized(); // may throw: see KafkaWindows.pollFinalized
      if (own.isEmpty()) {
        continue;
      }
      if (unreturned == null) {
        unreturned = new ArrayList<>(own.size());
      }
      long incompleteBefore = p.incompleteBeforeMillis();
      for (WindowResult<K, R> r : own) {
        WindowResult<K, R> row = r.withSource(p.rowSource());
        unreturned.add(row.start() < incompleteBefore ? row.incomplete() : row);
      }
    }
    for (Unit<K, V, R> p : units) {
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
   * unit's, through the visitor; a unit counts as returned once its results are visited.
   */
  int drain(
      Collection<? extends Unit<K, V, R>> units,
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
      for (Unit<K, V, R> p : units) {
        forward.partition = p.rowSource();
        forward.incompleteBefore = p.incompleteBeforeMillis();
        count += p.unitWindows().drainFinalized(forward); // may throw: see drainFinalized
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

  /** Drops the results of a revoked unit, by its row source, kept by a {@link #take} that threw. */
  void dropUnreturned(TopicPartition tp) {
    if (unreturned != null) {
      unreturned.removeIf(r -> tp.equals(r.source()));
    }
  }
}
