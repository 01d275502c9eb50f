package io.github.lowwater.kafka;

import io.github.lowwater.window.ResultVisitor;
import io.github.lowwater.window.Timing;
import org.apache.kafka.common.TopicPartition;

/**
 * Hands one set of windows' results to a {@link PartitionResultVisitor} with the partition they
 * belong to ({@code null} in {@code MERGED}). One instance is reused for every drain; the caller
 * sets {@link #target} and {@link #partition} and clears them afterwards. Allocation-free.
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
final class PartitionForward<K, R> implements ResultVisitor<K, R> {

  PartitionResultVisitor<? super K, ? super R> target;
  TopicPartition partition;

  /** Rows of windows starting before it are incomplete (semantics rule 64); set with partition. */
  long incompleteBefore = Checkpoint.COMPLETE;

  /** How many incomplete rows it handed on. */
  long incompleteRows;

  @Override
  public void visit(long startMillis, long endMillis, K key, R result) {
    count(startMillis);
    target.visit(partition, startMillis, endMillis, key, result);
  }

  @Override
  public void visitLong(long startMillis, long endMillis, K key, long result) {
    count(startMillis);
    target.visitLong(partition, startMillis, endMillis, key, result);
  }

  @Override
  public void visitPane(
      long startMillis, long endMillis, K key, R result, Timing timing, int index, boolean fin) {
    count(startMillis);
    target.visitPane(partition, startMillis, endMillis, key, result, timing, index, fin);
  }

  @Override
  public void visitLongPane(
      long startMillis, long endMillis, K key, long result, Timing timing, int index, boolean fin) {
    count(startMillis);
    target.visitLongPane(partition, startMillis, endMillis, key, result, timing, index, fin);
  }

  /** Counts an incomplete row: one call per row, from whichever method the windows call. */
  private void count(long startMillis) {
    if (startMillis < incompleteBefore) {
      incompleteRows++;
    }
  }

  @Override
  public void visitReplaced(long startMillis, K key) {
    target.visitReplaced(partition, startMillis, key);
  }
}
