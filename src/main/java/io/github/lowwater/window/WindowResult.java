package io.github.lowwater.window;

/**
 * The final result of one key in one finalized window {@code [start, end)}.
 *
 * @param start the window's first millisecond, inclusive, in epoch milliseconds
 * @param end the window's end, exclusive, in epoch milliseconds
 * @param key the key
 * @param value the aggregated result
 * @param <K> the key type
 * @param <R> the result type
 */
public record WindowResult<K, R>(long start, long end, K key, R value) {}
