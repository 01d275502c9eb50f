package io.github.lowwater.window;

/**
 * When a row of a window was emitted, relative to the window's completion: the pane timing of a
 * {@link WindowResult}. Today every row is {@link #ON_TIME}: a window is emitted once, when the
 * watermark reaches its end, and never updated. The early rows and the late updates of the issue
 * "Early results and late updates" will be {@link #EARLY} and {@link #LATE}.
 */
public enum Timing {
  /** Before the watermark reached the window's end: the value so far. */
  EARLY,
  /** When the watermark reached the window's end: the window is complete. */
  ON_TIME,
  /** After the on-time row, within the grace period: the whole value, corrected. */
  LATE
}
