package io.github.lowwater.tuning;

import java.util.Objects;

/**
 * One allowed lateness an {@link Advisor} offers, with its trade: the fraction of events expected
 * late under it and the delay it adds to every result.
 *
 * @param basis why this value, for example {@code late <= 1e-4}
 * @param allowedLatenessMillis the allowed lateness, milliseconds
 * @param expectedLateFraction the fraction of the recorded events that lagged their source's
 *     frontier by more than the lateness, a histogram bucket that reaches above it counted whole:
 *     an upper bound of the late fraction (an event is late only once the slowest active source,
 *     not its own, is that far ahead)
 * @param expectedResultDelayMillis how long after a window's end, in event time, its result is
 *     emitted when the sources keep pace: the watermark trails the slowest frontier by the lateness
 */
public record LatenessChoice(
    String basis,
    long allowedLatenessMillis,
    double expectedLateFraction,
    long expectedResultDelayMillis) {

  /**
   * Checks the components.
   *
   * @throws NullPointerException if {@code basis} is null
   * @throws IllegalArgumentException if a duration is negative, naming it and its value
   */
  public LatenessChoice {
    Objects.requireNonNull(basis, "basis");
    Advisor.requireNonNegative(allowedLatenessMillis, "allowedLatenessMillis");
    Advisor.requireNonNegative(expectedResultDelayMillis, "expectedResultDelayMillis");
  }
}
