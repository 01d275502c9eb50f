package io.github.lowwater;

import io.github.lowwater.WatermarkTracker.Source;

/**
 * The active sources of a {@link WatermarkTracker} in order of their last activity, so that
 * idleness is found without scanning. Not thread-safe; confined to the tracker's writer thread.
 * O(1) per call, no allocation: the list is linked through {@link Source#older} and {@link
 * Source#newer}.
 *
 * <p><b>Invariant.</b> Following {@code newer} from {@link #oldest()} visits every source in the
 * list once, in non-decreasing {@link Source#lastSeenNanos}, and ends at {@link #newest()}; {@code
 * older} is the same chain backwards. A source outside the list has both links {@code null}. This
 * holds because the caller passes monotonic readings that never decrease from one call to the next
 * (the tracker clamps a clock that runs backwards) and every activity moves its source to the
 * newest end. So the source that goes idle first is always the oldest: {@link #firstIdle(long)}
 * looks at the head only, and each source is retired at most once per activation.
 *
 * <p>A source is idle at {@code now} when {@code now - lastSeenNanos > idleTimeoutNanos}, strictly;
 * the difference is taken on the monotonic clock, so it never wraps for readings less than 292
 * years apart.
 */
final class ActivityList {

  private final long idleTimeoutNanos;

  /** The head: the source silent for longest, the first to go idle; {@code null} when empty. */
  private Source oldest;

  /** The tail: the source active last; {@code null} when empty. */
  private Source newest;

  /**
   * Creates an empty list.
   *
   * @param idleTimeoutNanos how long a source may be silent before it is idle, {@code > 0}
   */
  ActivityList(long idleTimeoutNanos) {
    this.idleTimeoutNanos = idleTimeoutNanos;
  }

  /**
   * Returns the source that goes idle first.
   *
   * @return the head, or {@code null} when the list is empty
   */
  Source oldest() {
    return oldest;
  }

  /**
   * Returns the source active last.
   *
   * @return the tail, or {@code null} when the list is empty
   */
  Source newest() {
    return newest;
  }

  /**
   * Appends a source that is not in the list, active as of {@code nowNanos}.
   *
   * @param s a source whose links are {@code null}
   * @param nowNanos the monotonic reading, not below the last one passed in
   */
  void add(Source s, long nowNanos) {
    s.lastSeenNanos = nowNanos;
    linkNewest(s);
  }

  /**
   * Records activity of a source in the list as of {@code nowNanos}: it becomes the newest. Nothing
   * moves when its last activity already has this reading (with a cached clock, every event of a
   * poll but the first): it is among the newest already.
   *
   * @param s a source in the list
   * @param nowNanos the monotonic reading, not below the last one passed in
   */
  void touch(Source s, long nowNanos) {
    if (s.lastSeenNanos == nowNanos) {
      return;
    }
    s.lastSeenNanos = nowNanos;
    if (s != newest) {
      unlink(s);
      linkNewest(s);
    }
  }

  /**
   * Takes a source out of the list; its links become {@code null}.
   *
   * @param s a source in the list
   */
  void remove(Source s) {
    unlink(s);
  }

  /**
   * Returns whether any source in the list is idle at {@code nowNanos}: one look at the head.
   *
   * @param nowNanos the monotonic reading
   * @return {@code true} if the oldest source is idle
   */
  boolean hasIdle(long nowNanos) {
    Source head = oldest;
    return head != null && nowNanos - head.lastSeenNanos > idleTimeoutNanos;
  }

  /**
   * Returns the oldest source if it is idle at {@code nowNanos}. The caller retires it with {@link
   * #remove} and asks again, until this returns {@code null}.
   *
   * @param nowNanos the monotonic reading
   * @return the oldest source if it is idle, else {@code null}
   */
  Source firstIdle(long nowNanos) {
    return hasIdle(nowNanos) ? oldest : null;
  }

  private void linkNewest(Source s) {
    s.older = newest; // s.newer is null already: s is outside the list
    if (newest == null) {
      oldest = s;
    } else {
      newest.newer = s;
    }
    newest = s;
  }

  private void unlink(Source s) {
    Source older = s.older;
    Source newer = s.newer;
    if (older == null) {
      oldest = newer;
    } else {
      older.newer = newer;
    }
    if (newer == null) {
      newest = older;
    } else {
      newer.older = older;
    }
    s.older = null;
    s.newer = null;
  }
}
