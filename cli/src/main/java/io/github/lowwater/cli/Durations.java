package io.github.lowwater.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration option into milliseconds: one or more of {@code <n>d}, {@code <n>h}, {@code
 * <n>m}, {@code <n>s}, {@code <n>ms} ({@code 0s}, {@code 30s}, {@code 2m}, {@code 1h30m}, {@code
 * 250ms}), a bare {@code 0}, or an ISO-8601 duration ({@code PT2M}). Negative durations are
 * rejected; {@code io.github.lowwater.tuning.DurationText} writes them back. Stateless.
 */
final class Durations implements ITypeConverter<Long> {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|d|h|m|s)");

  @Override
  public Long convert(String value) {
    return parseMillis(value);
  }

  /**
   * Parses {@code text} into milliseconds.
   *
   * @throws TypeConversionException if it is not a duration, naming the text
   */
  static long parseMillis(String text) {
    String t = text.trim();
    if (t.equals("0")) {
      return 0;
    }
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        Duration d = Duration.parse(t);
        if (d.isNegative()) {
          throw new TypeConversionException("not a duration >= 0: \"" + text + "\"");
        }
        return d.toMillis();
      } catch (DateTimeParseException | ArithmeticException e) {
        throw new TypeConversionException("not a duration: \"" + text + "\"");
      }
    }
    Matcher m = PART.matcher(t);
    long millis = 0;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
        millis = Math.addExact(millis, Math.multiplyExact(n, unitMillis(m.group(2))));
      } catch (ArithmeticException | NumberFormatException e) {
        throw new TypeConversionException("duration too long: \"" + text + "\"");
      }
      end = m.end();
    }
    if (end == 0 || end != t.length()) {
      throw new TypeConversionException(
          "not a duration (like 0s, 30s, 2m, 1h30m, 250ms): \"" + text + "\"");
    }
    return millis;
  }

  private static long unitMillis(String unit) {
    return switch (unit) {
      case "d" -> 86_400_000L;
      case "h" -> 3_600_000L;
      case "m" -> 60_000L;
      case "s" -> 1_000L;
      default -> 1L; // ms
    };
  }
}
