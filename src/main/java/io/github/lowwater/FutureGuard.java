package io.github.lowwater;

import io.github.lowwater.internal.TimeMath;
import java.util.HashMap;

/**
 * The future-timestamp guard of a {@link WatermarkTracker} (rule 19 of {@code docs/semantics.md}):
 * which event times are too far ahead of the wall clock to move a frontier, and how many such
 * events each source sent. Not thread-safe; confined to the tracker's writer thread, which
 * publishes the total itself. O(1) per check, and it reads no clock: the caller passes the
 * wall-clock reading, so that an event costs one read when the guard is on and none when it is off.
 *
 * <p><b>Invariant.</b> An event time {@code t} is beyond the guard exactly when {@code t >
 * wallMillis + maxFutureSkewMillis}, the sum saturating at {@link Long#MAX_VALUE}, so that no event
 * is beyond a guard whose limit saturates, nor beyond a guard that is {@link #OFF}. {@link
 * #count(Object)} of a source is the number of {@link #record(Object)} calls for it since it was
 * last {@linkplain #forget(Object) forgotten}. The per-source map is allocated at the first such
 * event: a guard that never fires costs no memory.
 */
final class FutureGuard {

  /** The {@code maxFutureSkewMillis} of a guard that is off: no event time is beyond it. */
  static final long OFF = Long.MAX_VALUE;

  private final long maxFutureSkewMillis;

  /** Future events per source key; {@code null} until the first one (a rare, cold path). */
  private HashMap<Object, long[]> bySource;

  /**
   * Creates a guard.
   *
   * @param maxFutureSkewMillis how far ahead of the wall clock an event may be, {@code >= 0}, or
   *     {@link #OFF}
   */
  FutureGuard(long maxFutureSkewMillis) {
    this.maxFutureSkewMillis = maxFutureSkewMillis;
  }

  /**
   * Returns whether the guard is on; when it is off, {@link #limitMillis} is {@link
   * Long#MAX_VALUE}.
   *
   * @return {@code false} if the guard was created {@link #OFF}
   */
  boolean isOn() {
    return maxFutureSkewMillis != OFF;
  }

  /**
   * Returns the largest event time that may move a frontier at {@code wallMillis}.
   *
   * @param wallMillis the wall-clock reading, epoch milliseconds
   * @return {@code wallMillis + maxFutureSkewMillis}, saturating; {@link Long#MAX_VALUE} when off
   */
  long limitMillis(long wallMillis) {
    return isOn() ? TimeMath.saturatedAdd(wallMillis, maxFutureSkewMillis) : Long.MAX_VALUE;
  }

  /**
   * Counts one event beyond the guard for a source.
   *
   * @param key the source key
   */
  void record(Object key) {
    if (bySource == null) {
      bySource = new HashMap<>();
    }
    bySource.computeIfAbsent(key, k -> new long[1])[0]++;
  }

  /**
   * Returns the events beyond the guard counted for a source.
   *
   * @param key the source key
   * @return the count since the source was last forgotten, {@code 0} if none
   */
  long count(Object key) {
    long[] count = bySource == null ? null : bySource.get(key);
    return count == null ? 0 : count[0];
  }

  /**
   * Drops the count of a removed source, so that a source registered again starts from zero.
   *
   * @param key the source key
   */
  void forget(Object key) {
    if (bySource != null) {
      bySource.remove(key);
    }
  }
}
