package io.github.lowwater.window;

/**
 * Receives the results of {@link TumblingWindows#drainFinalized(ResultVisitor)}, one call per
 * (window, key), without a {@link WindowResult} or a boxed value being allocated.
 *
 * <p>A lambda implements {@link #visit}. With a built-in {@code long} aggregator of {@link
 * Aggregators} the windows call {@link #visitLong} instead, whose default boxes the value and calls
 * {@link #visit}: override it to receive the primitive.
 *
 * <pre>{@code
 * windows.drainFinalized(new ResultVisitor<String, Long>() {
 *   public void visit(long start, long end, String key, Long value) {
 *     visitLong(start, end, key, value);
 *   }
 *   public void visitLong(long start, long end, String key, long value) {
 *     statement.setLong(1, start); // ... no boxing on the way to the sink
 *   }
 * });
 * }</pre>
 *
 * <p>An exception thrown by a visitor propagates out of {@code drainFinalized}; the window being
 * visited is visited again, from its first result, at the next call.
 *
 * @param <K> the key type
 * @param <R> the result type
 */
@FunctionalInterface
public interface ResultVisitor<K, R> {

  /**
   * Receives one result.
   *
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the aggregator's result for the key in the window
   */
  void visit(long startMillis, long endMillis, K key, R result);

  /**
   * Receives one result of a built-in {@code long} aggregator ({@link Aggregators#count()}, {@link
   * Aggregators#sumLong()}, {@link Aggregators#minLong()}, {@link Aggregators#maxLong()}), whose
   * result type is {@code Long}. The default boxes {@code result} and calls {@link #visit}.
   *
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the result
   */
  @SuppressWarnings("unchecked") // only called by windows whose result type is Long
  default void visitLong(long startMillis, long endMillis, K key, long result) {
    visit(startMillis, endMillis, key, (R) Long.valueOf(result));
  }
}
