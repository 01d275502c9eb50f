package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;

/**
 * The shape of tumbling windows: the window of event time {@code t} is {@code [floorDiv(t, size) *
 * size, that + size)}, for every {@code long} time, negative ones included, both ends saturating at
 * the {@code long} bounds (rule 9). Written once, for {@link TumblingWindows#add} and {@link
 * TumblingWindows#windowEnd}. Immutable; allocation-free.
 */
final class TumblingAssigner implements WindowAssigner {

  private final long sizeMillis;

  /** Where the windows start, reduced into {@code [0, size)}: 0 for tumbling windows. */
  private final long offsetMillis;

  /**
   * Creates the shape.
   *
   * @param sizeMillis the window size, {@code >= 1} (the builder checked it)
   */
  TumblingAssigner(long sizeMillis) {
    this(sizeMillis, 0);
  }

  /**
   * Creates the shape of windows {@code [k·size + offset, (k + 1)·size + offset)}: the panes of
   * hopping windows.
   *
   * @param sizeMillis the window size, {@code >= 1}
   * @param offsetMillis the offset, any {@code long}
   */
  TumblingAssigner(long sizeMillis, long offsetMillis) {
    this.sizeMillis = sizeMillis;
    this.offsetMillis = Math.floorMod(offsetMillis, sizeMillis);
  }

  /** Returns how far {@code eventTimeMillis} lies past the start of its window. */
  private long intoWindow(long eventTimeMillis) {
    long r = Math.floorMod(eventTimeMillis, sizeMillis);
    return offsetMillis == 0 ? r : Math.floorMod(r - offsetMillis, sizeMillis);
  }

  /** Returns the start, inclusive, of the window that holds {@code eventTimeMillis}. */
  @Override
  public long startOf(long eventTimeMillis) {
    return TimeMath.saturatedSubtract(eventTimeMillis, intoWindow(eventTimeMillis));
  }

  /** Returns the end, exclusive, of the window that holds {@code eventTimeMillis}. */
  @Override
  public long endOf(long eventTimeMillis) {
    return TimeMath.saturatedAdd(eventTimeMillis, sizeMillis - intoWindow(eventTimeMillis));
  }

  long sizeMillis() {
    return sizeMillis;
  }

  @Override
  public long maxSizeMillis() {
    return sizeMillis;
  }
}
