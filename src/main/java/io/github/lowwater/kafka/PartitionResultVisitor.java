package io.github.lowwater.kafka;

import org.apache.kafka.common.TopicPartition;

/**
 * Receives the results of {@link KafkaWindows#drainFinalized(PartitionResultVisitor)}, one call per
 * (window, partition, key), without a {@code WindowResult} or a boxed value being allocated: the
 * form of {@link io.github.lowwater.window.ResultVisitor} that also names the partition.
 *
 * <p>A lambda implements {@link #visit}. With a built-in {@code long} aggregator of {@link
 * io.github.lowwater.window.Aggregators} the windows call {@link #visitLong} instead, whose default
 * boxes the value and calls {@link #visit}: override it to receive the primitive.
 *
 * @param <K> the key type
 * @param <R> the result type
 */
@FunctionalInterface
public interface PartitionResultVisitor<K, R> {

  /**
   * Receives one result.
   *
   * @param partition the partition whose records the result folds ({@code PER_PARTITION}), or
   *     {@code null} ({@code MERGED})
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the aggregator's result
   */
  void visit(TopicPartition partition, long startMillis, long endMillis, K key, R result);

  /**
   * Receives one result of a built-in {@code long} aggregator, whose result type is {@code Long}.
   * The default boxes {@code result} and calls {@link #visit}.
   *
   * @param partition the partition, or {@code null} ({@code MERGED})
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the result
   */
  @SuppressWarnings("unchecked") // only called by windows whose result type is Long
  default void visitLong(
      TopicPartition partition, long startMillis, long endMillis, K key, long result) {
    visit(partition, startMillis, endMillis, key, (R) Long.valueOf(result));
  }
}
