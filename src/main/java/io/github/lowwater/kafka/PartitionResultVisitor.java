package io.github.lowwater.kafka;

import io.github.lowwater.window.Timing;
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
 * <p><b>Panes.</b> Every row reaches {@link #visitPane} (or {@link #visitLongPane}) with its {@link
 * Timing}, its index among the rows of its window, partition and key, and whether it is the last;
 * the defaults drop the pane and call {@link #visit} and {@link #visitLong}, so a visitor written
 * before panes existed works unchanged. A sink that upserts on the index (with {@code earlyResults}
 * or a {@code grace} period) overrides both pane methods.
 *
 * <p><b>Sessions that grow over their rows.</b> With {@link KafkaWindows#sessions session windows}
 * and {@code earlyResults} or a {@code grace} period, {@link #visitReplaced} names each earlier row
 * that the next row replaces (same partition and key), so that the sink deletes it; its default
 * throws, so that a sink that ignores replacements fails loudly instead of keeping stale rows.
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

  /**
   * Receives one row with its pane: what the windows call for every row. The default drops the pane
   * and calls {@link #visit}.
   *
   * @param partition the partition, or {@code null} ({@code MERGED})
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the whole window's value so far, never a delta
   * @param timing whether the row came before the window's end, at it, or after it
   * @param index the row's index among the rows of its window, partition and key, from 0
   * @param isFinal whether no row of this window, partition and key will follow
   */
  default void visitPane(
      TopicPartition partition,
      long startMillis,
      long endMillis,
      K key,
      R result,
      Timing timing,
      int index,
      boolean isFinal) {
    visit(partition, startMillis, endMillis, key, result);
  }

  /**
   * Receives one row of a built-in {@code long} aggregator with its pane. The default drops the
   * pane and calls {@link #visitLong}, without boxing.
   *
   * @param partition the partition, or {@code null} ({@code MERGED})
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the whole window's value so far
   * @param timing whether the row came before the window's end, at it, or after it
   * @param index the row's index among the rows of its window, partition and key, from 0
   * @param isFinal whether no row of this window, partition and key will follow
   */
  default void visitLongPane(
      TopicPartition partition,
      long startMillis,
      long endMillis,
      K key,
      long result,
      Timing timing,
      int index,
      boolean isFinal) {
    visitLong(partition, startMillis, endMillis, key, result);
  }

  /**
   * Receives the start of an earlier row of {@code key} (and {@code partition}) that the next row
   * replaces: a session that grew over it (session windows with {@code earlyResults} or a {@code
   * grace} period only); see {@link io.github.lowwater.window.ResultVisitor#visitReplaced}. A sink
   * deletes the row of ({@code startMillis}, {@code partition}, {@code key}), idempotently: if the
   * drain throws before the replacing row is taken, this call comes again with it.
   *
   * @param partition the partition, or {@code null} ({@code MERGED})
   * @param startMillis the start of the replaced row, in epoch milliseconds
   * @param key the key of the replaced row and of the next row
   * @throws UnsupportedOperationException always, unless overridden
   */
  default void visitReplaced(TopicPartition partition, long startMillis, K key) {
    throw new UnsupportedOperationException(
        "a session row of partition "
            + partition
            + " replaces the earlier row of key "
            + key
            + " that started at "
            + startMillis
            + ": override PartitionResultVisitor.visitReplaced to delete it, or drain with"
            + " pollFinalized() and read WindowResult.replaces()");
  }
}
