package io.github.lowwater.align;

/**
 * A snapshot of an {@link EventAligner}'s counters, as {@code WindowStats} is for the windows.
 *
 * <p>Taken on the owning thread, the snapshot is exact. Taken on another thread (a metrics
 * reporter), every value is recent and never torn, but values may come from adjacent pushes.
 *
 * @param late events pushed behind the watermark: counted, handed to the late handler, never
 *     released
 * @param buffered events pushed and not released yet
 * @param watermark the watermark in epoch milliseconds, or {@code WatermarkTracker.NO_WATERMARK}
 */
public record AlignerStats(long late, int buffered, long watermark) {}
