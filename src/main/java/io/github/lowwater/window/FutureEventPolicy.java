package io.github.lowwater.window;

/**
 * What {@link TumblingWindows} does with an event beyond the future-timestamp guard (more than
 * {@code maxFutureSkew} ahead of the wall clock). Either way the event is counted ({@link
 * WindowStats#futureEvents()}), does not count as activity of its source and does not move its
 * source's frontier, so one device with a fast clock can neither make the rest of the data late nor
 * hold the watermark by chattering. An event beyond the guard whose window has already closed (a
 * watermark ahead of the wall clock) goes to the late path under either policy.
 */
public enum FutureEventPolicy {

  /**
   * The default: the event goes into its window, which will close when the watermark gets there.
   */
  ACCEPT,

  /**
   * The event goes to the late path: counted as late and handed to the {@link LateEventHandler},
   * which can tell it from a late event by {@code windowEndMillis > watermarkMillis}.
   */
  LATE
}
