package io.github.lowwater.internal;

import java.time.Duration;

/**
 * Saturating time arithmetic. Nothing in Lowwater wraps around at the {@code long} bounds: a sum or
 * difference that does not fit is clamped to {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}.
 *
 * <p>Internal: public only so that the {@code window} package can share it. Not part of the
 * supported API; it may change in any release.
 */
public final class TimeMath {

  private TimeMath() {}

  /**
   * Returns {@code a - b}, clamped to the {@code long} range.
   *
   * @param a the minuend
   * @param b the subtrahend
   * @return the saturated difference
   */
  public static long saturatedSubtract(long a, long b) {
    long r = a - b;
    // Overflow iff the operands have different signs and the result's sign differs from a's.
    if (((a ^ b) & (a ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /**
   * Returns {@code a + b}, clamped to the {@code long} range.
   *
   * @param a an addend
   * @param b an addend
   * @return the saturated sum
   */
  public static long saturatedAdd(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the same sign and the result's sign differs.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /**
   * Converts a duration to milliseconds, saturating at {@link Long#MAX_VALUE} instead of throwing.
   *
   * @param d a non-negative duration
   * @return its length in milliseconds, at most {@link Long#MAX_VALUE}
   */
  public static long toMillisSaturated(Duration d) {
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * Converts a duration to nanoseconds, saturating at the {@code long} bounds instead of throwing.
   *
   * @param d a duration
   * @return its length in nanoseconds, clamped to the {@code long} range
   */
  public static long toNanosSaturated(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * Describes an epoch-millisecond time for a log line: the number and the ISO-8601 instant.
   *
   * @param millis epoch milliseconds; {@code Long.MIN_VALUE} stands for "no time yet" (the
   *     watermark's {@code NO_WATERMARK}, an unseen frontier)
   * @return for example {@code 1767225600000 (2026-01-01T00:00:00Z)}, or {@code none}
   */
  public static String describeMillis(long millis) {
    if (millis == Long.MIN_VALUE) {
      return "none";
    }
    return millis + " (" + java.time.Instant.ofEpochMilli(millis) + ")";
  }
}
