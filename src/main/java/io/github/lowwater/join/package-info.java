/**
 * Two streams in one event time: {@link io.github.lowwater.join.StreamJoin}, a keyed join of a left
 * and a right stream whose records pair when their times lie within a {@link
 * io.github.lowwater.join.JoinInterval} (Kafka Streams' {@code JoinWindows}, Flink's interval
 * join), inner, left or outer; and {@link io.github.lowwater.join.Reconciliation}, an {@link
 * io.github.lowwater.window.Aggregator} that co-groups the two sides per window and key on any of
 * the window kinds and says, per key, whether they match.
 *
 * <p>Both are sealed by one watermark, the minimum over the sources of both streams: a row is
 * emitted once no record of either side that could change it can still arrive on time. The rules
 * are in {@code docs/semantics.md}, "Two streams".
 *
 * <p>This package depends on nothing but the JDK, {@code slf4j-api} and the core packages.
 */
package io.github.lowwater.join;
