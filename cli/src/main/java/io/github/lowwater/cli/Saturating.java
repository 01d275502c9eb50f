package io.github.lowwater.cli;

/**
 * Saturating arithmetic for event times, which may be any {@code long}: a result that does not fit
 * is clamped to {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE} instead of wrapping. Stateless.
 */
final class Saturating {

  private Saturating() {}

  /** Returns {@code a - b}, clamped to the {@code long} range. */
  static long subtract(long a, long b) {
    try {
      return Math.subtractExact(a, b);
    } catch (ArithmeticException e) {
      return a < b ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
