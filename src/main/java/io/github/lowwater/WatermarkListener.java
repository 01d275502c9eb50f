package io.github.lowwater;

/**
 * Told each time a {@link WatermarkTracker}'s watermark rises, so that what depends on it (the
 * windows it closes) follows in the same call, wherever the rise came from: an event, a
 * re-evaluation that retired an idle source, a punctuation, {@code advanceTo}, {@code
 * seedWatermark} or {@code finish}. Given to {@link
 * WatermarkTracker.Builder#build(WatermarkListener)}.
 *
 * <p>Called on the thread whose call raised the watermark, once per rise, with the new watermark,
 * before the timers due at it fire. It must not call the tracker's mutating methods. If it throws,
 * the watermark has moved and the exception propagates from the call that raised it; the timers due
 * fire at the next re-evaluation.
 */
@FunctionalInterface
public interface WatermarkListener {

  /**
   * Called after the watermark rose to {@code watermarkMillis}.
   *
   * @param watermarkMillis the new watermark in epoch milliseconds
   */
  void onWatermarkRaised(long watermarkMillis);
}
