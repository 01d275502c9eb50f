package io.github.lowwater.window;

/**
 * Where the window of an event time starts and ends, for windows that tile time: each event time
 * belongs to exactly one window {@code [startOf(t), endOf(t))}, and the windows of two times are
 * either the same or disjoint. Fixed-size windows ({@link TumblingAssigner}) and calendar periods
 * in a time zone ({@link CalendarAssigner}) are the two shapes. Both ends saturate at the {@code
 * long} bounds. Writer thread only (an implementation may cache).
 */
interface WindowAssigner {

  /**
   * Returns the start, inclusive, of the window that holds {@code eventTimeMillis}.
   *
   * @param eventTimeMillis any {@code long}
   * @return the window's start, {@code <= eventTimeMillis}
   */
  long startOf(long eventTimeMillis);

  /**
   * Returns the end, exclusive, of the window that holds {@code eventTimeMillis}.
   *
   * @param eventTimeMillis any {@code long}
   * @return the window's end, {@code > eventTimeMillis} unless saturated at {@code Long.MAX_VALUE}
   */
  long endOf(long eventTimeMillis);

  /**
   * Returns the longest a window can be: its size for fixed windows, a bound for calendar ones.
   *
   * @return milliseconds, {@code >= 1}
   */
  long maxSizeMillis();
}
