package io.github.lowwater.window;

/**
 * Folds the values of one key in one window into a result.
 *
 * <p>{@link #add} may mutate and return its accumulator (the allocation-free way, used by every
 * aggregator in {@link Aggregators}) or return a new one. An aggregator is called only from the
 * thread that owns the {@link TumblingWindows}; it must not throw for valid values, because an
 * exception propagates to the caller of {@code add} (the event is then not counted and the window
 * state is unchanged).
 *
 * @param <V> the value type
 * @param <A> the accumulator type
 * @param <R> the result type
 */
public interface Aggregator<V, A, R> {

  /**
   * Creates an empty accumulator, called once per (window, key) at its first value.
   *
   * @return a new accumulator
   */
  A create();

  /**
   * Adds a value to an accumulator.
   *
   * @param accumulator an accumulator from {@link #create()} or a previous {@code add}
   * @param value the value, never null
   * @return the accumulator to keep: {@code accumulator} itself or a replacement
   */
  A add(A accumulator, V value);

  /**
   * Returns the result of an accumulator, called when its window is emitted: once, unless it throws
   * (then {@code pollFinalized()} takes nothing off its queue, and the next call asks again).
   *
   * @param accumulator the accumulator
   * @return the result
   */
  R result(A accumulator);
}
