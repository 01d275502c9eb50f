package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;

/**
 * The shape of tumbling windows: the window of event time {@code t} is {@code [floorDiv(t, size) *
 * size, that + size)}, for every {@code long} time, negative ones included, both ends saturating at
 * the {@code long} bounds (rule 9). Written once, for {@link TumblingWindows#add} and {@link
 * TumblingWindows#windowEnd}. Immutable; allocation-free.
 */
final class TumblingAssigner {

  private final long sizeMillis;

  /**
   * Creates the shape.
   *
   * @param sizeMillis the window size, {@code >= 1} (the builder checked it)
   */
  TumblingAssigner(long sizeMillis) {
    this.sizeMillis = sizeMillis;
  }

  /** Returns the start, inclusive, of the window that holds {@code eventTimeMillis}. */
  long startOf(long eventTimeMillis) {
    return TimeMath.saturatedSubtract(eventTimeMillis, Math.floorMod(eventTimeMillis, sizeMillis));
  }

  /** Returns the end, exclusive, of the window that holds {@code eventTimeMillis}. */
  long endOf(long eventTimeMillis) {
    return TimeMath.saturatedAdd(
        eventTimeMillis, sizeMillis - Math.floorMod(eventTimeMillis, sizeMillis));
  }

  long sizeMillis() {
    return sizeMillis;
  }
}
