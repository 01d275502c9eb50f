/**
 * Keyed tumbling event-time windows over a {@link io.github.lowwater.WatermarkTracker}: {@link
 * io.github.lowwater.window.TumblingWindows} with its {@link
 * io.github.lowwater.window.Aggregator}s, results and late path.
 *
 * <p>This package depends on nothing but the JDK, {@code slf4j-api} and {@code io.github.lowwater}.
 */
package io.github.lowwater.window;
