package io.github.lowwater.tuning;

/**
 * Writes a duration of milliseconds as the advice shows it and the replay tool reads it: {@code
 * 0s}, {@code 250ms}, {@code 2m30s}, {@code 1h}. Stateless and thread-safe.
 */
public final class DurationText {

  private static final long[] UNIT_MILLIS = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
  private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms"};

  private DurationText() {}

  /**
   * Formats {@code millis}: every non-zero unit from days down to milliseconds, largest first.
   *
   * @param millis a duration, {@code >= 0}; {@code Long.MAX_VALUE} is written {@code forever}
   * @return the text
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public static String format(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("millis must be >= 0: " + millis);
    }
    if (millis == Long.MAX_VALUE) {
      return "forever";
    }
    if (millis == 0) {
      return "0s";
    }
    StringBuilder sb = new StringBuilder();
    long rest = millis;
    for (int i = 0; i < UNIT_MILLIS.length; i++) {
      long n = rest / UNIT_MILLIS[i];
      if (n > 0) {
        sb.append(n).append(UNIT_NAMES[i]);
        rest -= n * UNIT_MILLIS[i];
      }
    }
    return sb.toString();
  }
}
