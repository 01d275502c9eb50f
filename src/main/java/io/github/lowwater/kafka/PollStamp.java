package io.github.lowwater.kafka;

import io.github.lowwater.Clock;
import java.util.Objects;

/**
 * When the polling loop last called {@code onPoll}, on the monotonic clock, so that a loop that
 * stopped polling while its consumer stays in the group (a stall: a blocked sink, a hung commit, a
 * deadlock) is visible from another thread: every other reading stands still during a stall, this
 * one grows (issue 45, item 5).
 *
 * <p>{@link #stamp(long)} is called by the polling thread; {@link #millisSinceLast()} by any thread
 * (a metrics registry), which reads the clock there: the clock must be the live one, not a {@link
 * io.github.lowwater.CachedClock} that only the polling thread updates. O(1), no allocation.
 */
final class PollStamp {

  /** No {@code onPoll} yet. */
  static final long NEVER = Long.MIN_VALUE;

  private final Clock clock;
  private volatile long lastNanos = NEVER;

  PollStamp(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Records a call of {@code onPoll} at {@code nowNanos}, a reading of this stamp's clock. */
  void stamp(long nowNanos) {
    lastNanos = nowNanos;
  }

  /** Records a call of {@code onPoll} now: one clock read. */
  void stamp() {
    lastNanos = clock.monotonicNanos();
  }

  /**
   * Returns the monotonic time since the last {@link #stamp}, in whole milliseconds, never negative
   * (a clock reading behind the stamp counts as 0), or -1 before the first stamp. Any thread; one
   * clock read.
   */
  long millisSinceLast() {
    long last = lastNanos;
    if (last == NEVER) {
      return -1;
    }
    long elapsed = clock.monotonicNanos() - last; // System.nanoTime's rule: compare differences
    return elapsed <= 0 ? 0 : elapsed / 1_000_000L;
  }
}
