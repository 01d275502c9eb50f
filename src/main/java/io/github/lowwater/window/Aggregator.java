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

  /**
   * Combines two accumulators of the same key into one holding the values of both, as if every
   * value of {@code right} had been added to {@code left} after its own. Window kinds that keep
   * partial accumulators (the panes of hopping windows, the sessions that an event joins) combine
   * them with it; tumbling windows never call it. It may mutate and return {@code left}, or return
   * a new accumulator; it must leave {@code right} as it was, so that the caller may keep using it
   * (a pane shared by several windows).
   *
   * <p>The default throws {@link UnsupportedOperationException}: an aggregator written before this
   * method existed keeps compiling, and a window kind that needs it says so with a clear message.
   * {@link #canMerge(Aggregator)} tells, without calling it, whether an aggregator overrides it.
   * Every aggregator of {@link Aggregators} merges.
   *
   * @param left an accumulator from {@link #create()}, {@link #add} or {@code merge}
   * @param right another accumulator of the same key; not changed
   * @return the accumulator to keep: {@code left} itself or a replacement
   * @throws UnsupportedOperationException if this aggregator cannot merge (the default)
   */
  default A merge(A left, A right) {
    throw new UnsupportedOperationException(
        this
            + " cannot merge accumulators: hopping and session windows combine them with"
            + " Aggregator.merge; implement it, or build the aggregator with"
            + " Aggregators.of(create, add, merge, result)");
  }

  /**
   * Returns whether {@code aggregator} overrides {@link #merge}, read from its class once (a window
   * kind that needs merging checks it when it is built, not at the first emission).
   *
   * @param aggregator the aggregator
   * @return {@code true} if its class, or a superclass below {@code Aggregator}, declares {@code
   *     merge}
   * @throws NullPointerException if {@code aggregator} is null
   */
  static boolean canMerge(Aggregator<?, ?, ?> aggregator) {
    try {
      return aggregator
              .getClass()
              .getMethod("merge", Object.class, Object.class)
              .getDeclaringClass()
          != Aggregator.class;
    } catch (NoSuchMethodException e) {
      throw new AssertionError("Aggregator declares merge(Object, Object)", e);
    }
  }
}
