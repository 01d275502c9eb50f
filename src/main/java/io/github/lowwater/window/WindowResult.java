package io.github.lowwater.window;

/**
 * The final result of one key in one finalized window {@code [start, end)}, either over every
 * source (a merged result, {@code source == null}) or over one source only (a per-source result,
 * such as one Kafka partition's share of the window, keyed by that source).
 *
 * @param start the window's first millisecond, inclusive, in epoch milliseconds
 * @param end the window's end, exclusive, in epoch milliseconds
 * @param key the key
 * @param value the aggregated result
 * @param source the one source this result covers (a Kafka {@code TopicPartition} for per-partition
 *     results), or {@code null} for a result merged over every source
 * @param <K> the key type
 * @param <R> the result type
 */
public record WindowResult<K, R>(long start, long end, K key, R value, Object source) {

  /**
   * A merged result, over every source: {@link #source()} is {@code null}.
   *
   * @param start the window's first millisecond, inclusive, in epoch milliseconds
   * @param end the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param value the aggregated result
   */
  public WindowResult(long start, long end, K key, R value) {
    this(start, end, key, value, null);
  }

  /**
   * Returns the same result tagged with the one source it covers.
   *
   * @param source the source, for example a Kafka {@code TopicPartition}
   * @return a per-source result
   */
  public WindowResult<K, R> withSource(Object source) {
    return new WindowResult<>(start, end, key, value, source);
  }
}
