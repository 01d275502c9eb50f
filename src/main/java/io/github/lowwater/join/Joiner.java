package io.github.lowwater.join;

/**
 * Computes the value of a join row from a pair, or from an unmatched record of a left or outer join
 * (the absent side is then {@code null}). Called on the thread that drives the {@link StreamJoin};
 * an exception propagates to that caller, and the join's state is as it was before the call that
 * asked for the row (see {@link StreamJoin#addLeft}).
 *
 * @param <K> the key type
 * @param <L> the left value type
 * @param <R> the right value type
 * @param <O> the row's value type
 */
@FunctionalInterface
public interface Joiner<K, L, R, O> {

  /**
   * Joins the values of one key.
   *
   * @param key the key both records share
   * @param left the left value; {@code null} only in an unmatched right row
   * @param right the right value; {@code null} only in an unmatched left row
   * @return the row's value; may be null
   */
  O join(K key, L left, R right);
}
