package io.github.lowwater.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The argument and state checks every builder shares, so that each rule has one message: {@code
 * idleTimeout must be > 0: PT0S}, {@code allowedLateness was already set to PT5S} (in the style of
 * Caffeine's {@code requireState}). Not API.
 */
public final class Checks {

  private Checks() {}

  /**
   * Requires a duration {@code > 0}.
   *
   * @param d the duration
   * @param name the parameter's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null, with {@code name} as the message
   * @throws IllegalArgumentException if {@code d} is zero or negative, naming it and its value
   */
  public static Duration requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0: " + d);
    }
    return d;
  }

  /**
   * Requires a duration {@code >= 0}.
   *
   * @param d the duration
   * @param name the parameter's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null, with {@code name} as the message
   * @throws IllegalArgumentException if {@code d} is negative, naming it and its value
   */
  public static Duration requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must be >= 0: " + d);
    }
    return d;
  }

  /**
   * Requires that a builder option was not set before: every option may be set at most once.
   *
   * @param unset whether the option is still unset
   * @param option the option's name, for the message
   * @param current the option's current value, for the message
   * @throws IllegalStateException if the option was already set, naming it and its value
   */
  public static void requireUnset(boolean unset, String option, Object current) {
    if (!unset) {
      throw new IllegalStateException(option + " was already set to " + current);
    }
  }

  /**
   * Converts a duration of at least one millisecond to milliseconds, saturating (sub-millisecond
   * parts are dropped).
   *
   * @param d the duration
   * @param name the parameter's name, for the message
   * @return the duration in milliseconds, {@code >= 1}
   * @throws NullPointerException if {@code d} is null, with {@code name} as the message
   * @throws IllegalArgumentException if {@code d} is shorter than one millisecond, naming it and
   *     its value
   */
  public static long requireMillis(Duration d, String name) {
    Objects.requireNonNull(d, name);
    long millis = TimeMath.toMillisSaturated(d);
    if (millis < 1) {
      throw new IllegalArgumentException(name + " must be >= 1 ms: " + d);
    }
    return millis;
  }
}
