package io.github.lowwater.tuning;

import java.util.Objects;

/**
 * One idle timeout an {@link Advisor} offers, with its trade: how often a live source is expected
 * to go idle under it (and so risk having its next events dropped as late), and how long the
 * results wait for a source that really went quiet.
 *
 * @param basis why this value, for example {@code > p99.9 gap (1s500ms)}
 * @param idleTimeoutMillis the idle timeout, milliseconds
 * @param expectedFlapsPerDay the recorded gaps longer than the timeout, scaled to one day of the
 *     recording's monotonic time, over all sources together
 * @param expectedResultDelayMillis how long the windows wait for a source that went quiet before
 *     closing without it: the timeout itself
 */
public record IdleTimeoutChoice(
    String basis,
    long idleTimeoutMillis,
    double expectedFlapsPerDay,
    long expectedResultDelayMillis) {

  /**
   * Checks the components.
   *
   * @throws NullPointerException if {@code basis} is null
   * @throws IllegalArgumentException if a duration is negative, naming it and its value
   */
  public IdleTimeoutChoice {
    Objects.requireNonNull(basis, "basis");
    Advisor.requireNonNegative(idleTimeoutMillis, "idleTimeoutMillis");
    Advisor.requireNonNegative(expectedResultDelayMillis, "expectedResultDelayMillis");
  }
}
