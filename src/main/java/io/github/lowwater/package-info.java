/**
 * The watermark core: {@link io.github.lowwater.WatermarkTracker} computes an event-time watermark
 * over several independently ordered sources (the partitions of a topic), and {@link
 * io.github.lowwater.Clock} with {@link io.github.lowwater.ManualClock} makes every rule testable
 * with a fake clock.
 *
 * <p>This package depends on nothing but the JDK and {@code slf4j-api}.
 */
package io.github.lowwater;
