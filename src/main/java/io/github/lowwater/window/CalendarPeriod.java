package io.github.lowwater.window;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.Objects;

/**
 * A calendar period in a time zone: days, weeks or months as the zone's clocks show them, the shape
 * of calendar windows ({@link TumblingWindows#builder(CalendarPeriod, Aggregator)}). A window is
 * {@code [start of the period in the zone, start of the next)}: a day in a zone with daylight
 * saving time lasts 23 or 25 hours on the days the clocks change, a month 28 to 31 days, and a day
 * starts at the first instant its date exists (when midnight falls in a gap, the time after the
 * gap; {@link LocalDate#atStartOfDay(ZoneId)}). Both ends saturate at the {@code long} bounds
 * (docs/semantics.md, rule 75).
 *
 * <pre>{@code
 * // orders per shop per day in the shop's zone, and "today so far" every hour (Flink's cumulate)
 * TumblingWindows.builder(CalendarPeriod.days(ZoneId.of("Europe/Berlin")), Aggregators.count())
 *     .earlyResults(Duration.ofHours(1))
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe; {@link #startOf} and {@link #endOf} compute with {@code java.time}
 * each time (the windows cache the periods they use).
 */
public final class CalendarPeriod {

  /** The unit of a period. */
  public enum Unit {
    /** A calendar day. */
    DAYS,
    /** A week, starting on the day of the week chosen. */
    WEEKS,
    /** A calendar month. */
    MONTHS
  }

  /** The largest change of a zone's offset ({@code -18:00} to {@code +18:00}), in milliseconds. */
  private static final long MAX_OFFSET_CHANGE_MILLIS = 36 * 3_600_000L;

  private static final long DAY_MILLIS = 86_400_000L;

  private final Unit unit;
  private final ZoneId zone;
  private final DayOfWeek firstDayOfWeek;

  private CalendarPeriod(Unit unit, ZoneId zone, DayOfWeek firstDayOfWeek) {
    this.unit = unit;
    this.zone = Objects.requireNonNull(zone, "zone");
    this.firstDayOfWeek = firstDayOfWeek;
  }

  /**
   * Calendar days in a zone.
   *
   * @param zone the zone whose dates the windows follow
   * @return the period
   * @throws NullPointerException if {@code zone} is null
   */
  public static CalendarPeriod days(ZoneId zone) {
    return new CalendarPeriod(Unit.DAYS, zone, null);
  }

  /**
   * Weeks in a zone, each starting at the start of {@code firstDay}.
   *
   * @param zone the zone whose dates the windows follow
   * @param firstDay the first day of a week ({@code MONDAY} in ISO 8601, {@code SUNDAY} in the US)
   * @return the period
   * @throws NullPointerException if an argument is null
   */
  public static CalendarPeriod weeks(ZoneId zone, DayOfWeek firstDay) {
    return new CalendarPeriod(Unit.WEEKS, zone, Objects.requireNonNull(firstDay, "firstDay"));
  }

  /**
   * Calendar months in a zone.
   *
   * @param zone the zone whose dates the windows follow
   * @return the period
   * @throws NullPointerException if {@code zone} is null
   */
  public static CalendarPeriod months(ZoneId zone) {
    return new CalendarPeriod(Unit.MONTHS, zone, null);
  }

  /**
   * Returns the start, inclusive, of the period that holds an instant: the start of its date (of
   * its week's first day, of its month's first day) in the zone, or of the next period if that has
   * begun already (a zone whose clocks go back across midnight); {@code Long.MIN_VALUE} if that
   * lies before it.
   *
   * @param eventTimeMillis epoch milliseconds; any {@code long}
   * @return epoch milliseconds, {@code <= eventTimeMillis}
   */
  public long startOf(long eventTimeMillis) {
    return bounds(eventTimeMillis)[0];
  }

  /**
   * Returns the end, exclusive, of the period that holds an instant: the start of the next period;
   * {@code Long.MAX_VALUE} if that lies beyond it.
   *
   * @param eventTimeMillis epoch milliseconds; any {@code long}
   * @return epoch milliseconds, {@code > eventTimeMillis} unless {@code Long.MAX_VALUE}
   */
  public long endOf(long eventTimeMillis) {
    return bounds(eventTimeMillis)[1];
  }

  /**
   * The period of {@code t}: that of its date, unless the next period has already begun. A zone
   * whose clocks go back across midnight (America/St_Johns at 00:01 until 2011) shows a date again
   * after the next one began; the instant then belongs to the period that began last, so that the
   * periods tile time.
   */
  long[] bounds(long t) {
    LocalDate first = first(date(t));
    LocalDate next = next(first);
    long end = millis(next);
    while (end <= t && end != Long.MAX_VALUE) {
      first = next;
      next = next(first);
      end = millis(next);
    }
    return new long[] {millis(first), end};
  }

  private LocalDate next(LocalDate first) {
    return switch (unit) {
      case DAYS -> first.plusDays(1);
      case WEEKS -> first.plusWeeks(1);
      case MONTHS -> first.plusMonths(1);
    };
  }

  /**
   * Returns a bound on the length of a period: its nominal length plus the largest change of a
   * zone's offset.
   *
   * @return milliseconds
   */
  long maxSizeMillis() {
    long nominal =
        switch (unit) {
          case DAYS -> DAY_MILLIS;
          case WEEKS -> 7 * DAY_MILLIS;
          case MONTHS -> 31 * DAY_MILLIS;
        };
    return nominal + MAX_OFFSET_CHANGE_MILLIS;
  }

  private LocalDate date(long eventTimeMillis) {
    return Instant.ofEpochMilli(eventTimeMillis).atZone(zone).toLocalDate();
  }

  private LocalDate first(LocalDate date) {
    return switch (unit) {
      case DAYS -> date;
      case WEEKS -> date.with(TemporalAdjusters.previousOrSame(firstDayOfWeek));
      case MONTHS -> date.withDayOfMonth(1);
    };
  }

  /** The start of {@code date} in the zone in epoch milliseconds, saturating. */
  private long millis(LocalDate date) {
    Instant start;
    try {
      start = date.atStartOfDay(zone).toInstant();
    } catch (DateTimeException e) { // beyond Instant's range: far beyond a long's milliseconds
      return date.getYear() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    try {
      return start.toEpochMilli();
    } catch (ArithmeticException e) { // beyond a long's milliseconds
      return start.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * Returns the unit.
   *
   * @return days, weeks or months
   */
  public Unit unit() {
    return unit;
  }

  /**
   * Returns the zone.
   *
   * @return the zone whose dates the periods follow
   */
  public ZoneId zone() {
    return zone;
  }

  /**
   * Returns the first day of a week.
   *
   * @return the day, or {@code null} unless the unit is {@link Unit#WEEKS}
   */
  public DayOfWeek firstDayOfWeek() {
    return firstDayOfWeek;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CalendarPeriod other
        && unit == other.unit
        && zone.equals(other.zone)
        && firstDayOfWeek == other.firstDayOfWeek;
  }

  @Override
  public int hashCode() {
    return Objects.hash(unit, zone, firstDayOfWeek);
  }

  @Override
  public String toString() {
    return unit.name().toLowerCase(java.util.Locale.ROOT)
        + " in "
        + zone
        + (firstDayOfWeek == null ? "" : " from " + firstDayOfWeek);
  }
}
