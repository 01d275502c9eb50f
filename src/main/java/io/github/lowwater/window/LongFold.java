package io.github.lowwater.window;

/**
 * The primitive form of a built-in {@code long} aggregator of {@link Aggregators}: {@link
 * TumblingWindows} recognizes it and keeps the accumulators in a {@code long[]} instead of one
 * object per (window, key).
 */
interface LongFold {

  /** Returns the accumulator of a (window, key) before its first value. */
  long initial();

  /**
   * Folds a value into an accumulator.
   *
   * @throws ArithmeticException on overflow
   * @throws ClassCastException if {@code value} is not of the aggregator's value type
   */
  long fold(long accumulator, Object value);

  /**
   * Combines two accumulators, as {@link Aggregator#merge} does.
   *
   * @throws ArithmeticException on overflow
   */
  long merge(long left, long right);
}
