package io.github.lowwater.window;

import java.util.List;

/**
 * What {@link PanesModelTest} drives and reads of a naive reference of windows with panes: {@link
 * PaneReference} for tumbling and hopping windows, {@link SessionPaneReference} for sessions. Each
 * is written from the rules alone and shares no code with the windows.
 *
 * @param <R> the result type
 */
interface PaneModel<R> {

  /**
   * An event.
   *
   * @return {@code true} if it went into a window, {@code false} if it was late
   * @throws ArithmeticException if the fold overflows; nothing changes then
   */
  boolean add(Object source, long eventTimeMillis, String key, long value);

  void observe(Object source, long eventTimeMillis);

  void advanceTo(long wallMillis);

  void refresh();

  void finish();

  /** One step of the watermark, from the reference's own tracker. */
  void closeAt(long watermark);

  /** Every row produced so far, in production order. */
  List<WindowResult<String, R>> rows();

  long watermark();

  long accepted();

  long late();

  long partiallyLate();

  long earlyRows();

  long lateUpdates();

  long retiredWindows();

  /** Keys a firing passed over because their value could not have changed (for coverage). */
  long unchangedSkips();

  /** Windows (sessions) not retired yet. */
  int heldWindows();
}
