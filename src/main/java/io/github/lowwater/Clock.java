package io.github.lowwater;

/**
 * The two time sources Lowwater reads, injectable so that every rule can be unit-tested with a fake
 * clock ({@link ManualClock}).
 *
 * <p>The two readings belong to different time domains and are never mixed:
 *
 * <ul>
 *   <li>{@link #monotonicNanos()} is <em>relative</em> time: it never jumps and is only meaningful
 *       as a difference between two readings. Lowwater measures source idleness with it.
 *   <li>{@link #wallMillis()} is <em>absolute</em> time in epoch milliseconds: it can jump (NTP,
 *       manual changes). Lowwater reads it only where a rule says so: the clamp of {@link
 *       WatermarkTracker#seedWatermark(long)}, the future-timestamp guard ({@code maxFutureSkew}),
 *       the watermark lag ({@code watermarkLagMillis()}), the {@link
 *       WatermarkStrategy#PROCESSING_TIME} strategy, and in the Kafka integration the quiet-period
 *       advance.
 * </ul>
 *
 * <p>Event time never comes from a clock; it comes from the data.
 *
 * <p>Implementations must be cheap: a tracker reads {@link #monotonicNanos()} at most once per
 * call. An implementation must be thread-safe for reads: a tracker reads it from its writer thread,
 * except {@code watermarkLagMillis()}, which reads {@link #wallMillis()} on the caller's thread (a
 * metrics reporter). Every clock shipped here is.
 */
public interface Clock {

  /**
   * Returns a monotonic reading in nanoseconds, with the semantics of {@link System#nanoTime()}:
   * only differences between readings mean anything, and a later reading is never smaller than an
   * earlier one (Lowwater clamps a reading that goes backwards to the previous one).
   *
   * @return the current monotonic time in nanoseconds
   */
  long monotonicNanos();

  /**
   * Returns the wall-clock time in milliseconds since the epoch, with the semantics of {@link
   * System#currentTimeMillis()}.
   *
   * @return the current wall-clock time in epoch milliseconds
   */
  long wallMillis();

  /**
   * Returns the clock of the running JVM: {@link System#nanoTime()} and {@link
   * System#currentTimeMillis()}. Stateless and thread-safe.
   *
   * @return the system clock
   */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}
