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
 * <p><b>Panes.</b> The windows hand every row to {@link #visitPane} (or, with a built-in {@code
 * long} aggregator, {@link #visitLongPane}), with its {@link Timing}, its index among the rows of
 * its window and key, and whether it is the window's last. Their defaults drop the pane and call
 * {@link #visit} (and {@link #visitLong}), so a visitor written before panes existed works as it
 * did, allocation-free. A visitor that needs the pane (a sink that upserts on the index, with
 * {@code earlyResults} or a {@code grace} period) overrides {@link #visitPane} <em>and</em>, for a
 * {@code long} aggregator, {@link #visitLongPane}: the primitive rows never pass through {@code
 * visitPane}.
 *
 * <p><b>Sessions that grow over their rows.</b> With session windows and {@code earlyResults} or a
 * {@code grace} period, a session's first event time can move earlier, or sessions can merge, after
 * a row: the rows under the earlier starts are then replaced, and {@link #visitReplaced} is called
 * for each of them just before the row that replaces them. Its default throws, so that a sink
 * written for fixed-shape windows fails loudly rather than keep stale rows: override it to delete
 * the row of that start and key (and partition). No other kind ever calls it.
 *
 * <p>An exception thrown by a visitor propagates out of {@code drainFinalized}; the window being
 * visited is visited again, from its first result, at the next call (with early results or a grace
 * period, where rows come one by one, the row being visited).
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

  /**
   * Receives one row with its pane: what the windows call for every row. The default drops the pane
   * and calls {@link #visit}. Without {@code earlyResults} and {@code grace}, every row is {@link
   * Timing#ON_TIME}, index 0, final.
   *
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the whole window's value so far for the key, never a delta
   * @param timing whether the row came before the window's end, at it, or after it
   * @param index the row's index among the rows of its window and key, from 0
   * @param isFinal whether no row of this window and key will follow
   */
  default void visitPane(
      long startMillis,
      long endMillis,
      K key,
      R result,
      Timing timing,
      int index,
      boolean isFinal) {
    visit(startMillis, endMillis, key, result);
  }

  /**
   * Receives one row of a built-in {@code long} aggregator with its pane; see {@link #visitPane}.
   * The default drops the pane and calls {@link #visitLong}, without boxing.
   *
   * @param startMillis the window's start, inclusive, in epoch milliseconds
   * @param endMillis the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param result the whole window's value so far for the key
   * @param timing whether the row came before the window's end, at it, or after it
   * @param index the row's index among the rows of its window and key, from 0
   * @param isFinal whether no row of this window and key will follow
   */
  default void visitLongPane(
      long startMillis,
      long endMillis,
      K key,
      long result,
      Timing timing,
      int index,
      boolean isFinal) {
    visitLong(startMillis, endMillis, key, result);
  }

  /**
   * Receives the start of an earlier row of {@code key} that the next row replaces: a session whose
   * first event time moved earlier, or that merged with another, after that row was produced
   * (session windows with {@code earlyResults} or a {@code grace} period only). The calls for one
   * row come in ascending start, then the replacing row itself, of the same key, whose start is
   * earlier than every start it replaces. A sink deletes the row of ({@code startMillis}, {@code
   * key}); if the drain throws before the replacing row is taken, these calls come again with it,
   * so the delete must be idempotent.
   *
   * <p>The default throws: a sink that ignored it would keep the replaced row forever.
   *
   * @param startMillis the start of the replaced row, in epoch milliseconds
   * @param key the key of the replaced row and of the next row
   * @throws UnsupportedOperationException always, unless overridden
   */
  default void visitReplaced(long startMillis, K key) {
    throw new UnsupportedOperationException(
        "a session row replaces the earlier row of key "
            + key
            + " that started at "
            + startMillis
            + ": override ResultVisitor.visitReplaced to delete it, or drain with pollFinalized()"
            + " and read WindowResult.replaces()");
  }
}
