package io.github.lowwater.window;

/**
 * The shape of hopping windows: {@code [k·advance + offset, k·advance + offset + size)} for every
 * integer {@code k}, and the panes they are built of, the slices of {@code gcd(size, advance)}
 * aligned on the same offset. Every window is a whole number of panes, so an event updates one pane
 * and a window combines its {@code size / gcd} panes once, when it is emitted. Exact for every
 * event time in {@code [Long.MIN_VALUE + size, Long.MAX_VALUE - size]} ({@link #fits}). Immutable;
 * allocation-free.
 */
final class HoppingAssigner {

  private final long sizeMillis;
  private final long advanceMillis;

  /** The offset, reduced into {@code [0, advance)}. */
  private final long offsetMillis;

  private final long paneMillis;

  /**
   * Creates the shape.
   *
   * @param sizeMillis the window size, {@code >= 1}
   * @param advanceMillis the advance, {@code 1 <= advance <= size}
   * @param offsetMillis the offset, any {@code long}
   */
  HoppingAssigner(long sizeMillis, long advanceMillis, long offsetMillis) {
    this.sizeMillis = sizeMillis;
    this.advanceMillis = advanceMillis;
    this.offsetMillis = Math.floorMod(offsetMillis, advanceMillis);
    this.paneMillis = gcd(sizeMillis, advanceMillis);
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      long r = a % b;
      a = b;
      b = r;
    }
    return a;
  }

  /** Returns whether every window of {@code eventTimeMillis} lies inside the {@code long} range. */
  boolean fits(long eventTimeMillis) {
    return eventTimeMillis >= Long.MIN_VALUE + sizeMillis
        && eventTimeMillis <= Long.MAX_VALUE - sizeMillis;
  }

  /** Returns the start of the last window that holds {@code t}: the largest start {@code <= t}. */
  long lastStart(long t) {
    return t - Math.floorMod(Math.floorMod(t, advanceMillis) - offsetMillis, advanceMillis);
  }

  /** Returns the end of the last window that holds {@code t}: an event is late iff it is passed. */
  long lastEnd(long t) {
    return lastStart(t) + sizeMillis;
  }

  /**
   * Returns the smallest window start {@code > x}; {@code x} may be {@code Long.MIN_VALUE}, and the
   * result saturates at {@code Long.MAX_VALUE}.
   */
  long startAfter(long x) {
    long step =
        advanceMillis
            - Math.floorMod(Math.floorMod(x, advanceMillis) - offsetMillis, advanceMillis);
    return x > Long.MAX_VALUE - step ? Long.MAX_VALUE : x + step;
  }

  /**
   * Returns the smallest window start {@code > t - size}: the start of the first window that holds
   * {@code t}, and, for a watermark {@code t}, of the first window it leaves open (end {@code >
   * t}). For {@code t} below {@code Long.MIN_VALUE + size} (a pane start of an event that {@link
   * #fits}, or a watermark that has not moved), {@code t - size} saturates at {@code
   * Long.MIN_VALUE}, which is exact for such a pane: no window of its events starts at or below it.
   */
  long firstStart(long t) {
    return startAfter(t < Long.MIN_VALUE + sizeMillis ? Long.MIN_VALUE : t - sizeMillis);
  }

  /** Returns the end of the first window that holds {@code t}. */
  long firstEnd(long t) {
    return firstStart(t) + sizeMillis;
  }

  long sizeMillis() {
    return sizeMillis;
  }

  long advanceMillis() {
    return advanceMillis;
  }

  long paneMillis() {
    return paneMillis;
  }

  /** Returns the pane offset: the panes are tumbling slices of {@link #paneMillis} at it. */
  long paneOffsetMillis() {
    return Math.floorMod(offsetMillis, paneMillis);
  }
}
