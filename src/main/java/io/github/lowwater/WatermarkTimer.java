package io.github.lowwater;

/**
 * A callback for "the watermark reached a time", registered with {@link
 * WatermarkTracker#registerTimer(long, WatermarkTimer)}.
 */
@FunctionalInterface
public interface WatermarkTimer {

  /**
   * Called once, on the thread whose call moved the watermark to or past {@code timerMillis}.
   *
   * @param timerMillis the time the timer was registered for
   * @param watermarkMillis the watermark when it fired, {@code >= timerMillis}
   */
  void onTimer(long timerMillis, long watermarkMillis);
}
