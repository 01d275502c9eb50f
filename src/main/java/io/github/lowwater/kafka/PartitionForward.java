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

  @Override
  public void visit(long startMillis, long endMillis, K key, R result) {
    target.visit(partition, startMillis, endMillis, key, result);
  }

  @Override
  public void visitLong(long startMillis, long endMillis, K key, long result) {
    target.visitLong(partition, startMillis, endMillis, key, result);
  }

  @Override
  public void visitPane(
      long startMillis, long endMillis, K key, R result, Timing timing, int index, boolean fin) {
    target.visitPane(partition, startMillis, endMillis, key, result, timing, index, fin);
  }

  @Override
  public void visitLongPane(
      long startMillis, long endMillis, K key, long result, Timing timing, int index, boolean fin) {
    target.visitLongPane(partition, startMillis, endMillis, key, result, timing, index, fin);
  }

  @Override
  public void visitReplaced(long startMillis, K key) {
    target.visitReplaced(partition, startMillis, key);
  }
}
