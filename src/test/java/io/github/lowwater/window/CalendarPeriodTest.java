package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** Rule 75 at its edges: the periods of calendar windows in a zone. */
class CalendarPeriodTest {

  static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  static long at(String zonedDateTime) {
    return ZonedDateTime.parse(zonedDateTime).toInstant().toEpochMilli();
  }

  static Duration length(CalendarPeriod p, long t) {
    return Duration.ofMillis(p.endOf(t) - p.startOf(t));
  }

  @Test
  void theDaysDaylightSavingTimeStartsAndEndsLast23And25HoursInBerlin() {
    CalendarPeriod days = CalendarPeriod.days(BERLIN);
    long spring = at("2026-03-29T12:00+02:00[Europe/Berlin]");
    assertThat(days.startOf(spring)).isEqualTo(at("2026-03-29T00:00+01:00[Europe/Berlin]"));
    assertThat(days.endOf(spring)).isEqualTo(at("2026-03-30T00:00+02:00[Europe/Berlin]"));
    assertThat(length(days, spring)).isEqualTo(Duration.ofHours(23));
    long autumn = at("2026-10-25T02:30+01:00[Europe/Berlin]"); // the second 02:30
    assertThat(length(days, autumn)).isEqualTo(Duration.ofHours(25));
    assertThat(days.startOf(autumn)).isEqualTo(at("2026-10-25T00:00+02:00[Europe/Berlin]"));
    assertThat(length(days, at("2026-10-26T12:00+01:00[Europe/Berlin]")))
        .isEqualTo(Duration.ofHours(24));
  }

  @Test
  void theDaysDaylightSavingTimeStartsAndEndsLast23And25HoursInNewYork() {
    CalendarPeriod days = CalendarPeriod.days(NEW_YORK);
    assertThat(length(days, at("2026-03-08T03:00-04:00[America/New_York]")))
        .isEqualTo(Duration.ofHours(23));
    assertThat(length(days, at("2026-11-01T01:30-05:00[America/New_York]")))
        .isEqualTo(Duration.ofHours(25));
  }

  @Test
  void aDayWhoseMidnightFallsInAGapStartsWhenTheGapEnds() {
    // Sao Paulo moved its clocks from 00:00 to 01:00 on 2018-11-04: that date had no midnight.
    ZoneId saoPaulo = ZoneId.of("America/Sao_Paulo");
    CalendarPeriod days = CalendarPeriod.days(saoPaulo);
    long t = at("2018-11-04T12:00-02:00[America/Sao_Paulo]");
    assertThat(days.startOf(t)).isEqualTo(at("2018-11-04T01:00-02:00[America/Sao_Paulo]"));
    assertThat(days.endOf(days.startOf(t) - 1)).isEqualTo(days.startOf(t));
    assertThat(length(days, t)).isEqualTo(Duration.ofHours(23));
  }

  @Test
  void whenTheClocksGoBackAcrossMidnightTheInstantBelongsToThePeriodThatBeganLast() {
    // St. John's turned its clocks back at 00:01 until 2011: on 2007-11-04 at 00:01 NDT it was
    // 23:01 NST on the 3rd again. Nov 4 began at 00:00 NDT (02:30Z); 03:00Z reads Nov 3 23:30.
    ZoneId stJohns = ZoneId.of("America/St_Johns");
    CalendarPeriod days = CalendarPeriod.days(stJohns);
    long t = java.time.Instant.parse("2007-11-04T03:00:00Z").toEpochMilli();
    assertThat(Instant.ofEpochMilli(t).atZone(stJohns).toLocalDate())
        .isEqualTo(java.time.LocalDate.of(2007, 11, 3));
    assertThat(days.startOf(t)).isEqualTo(at("2007-11-04T00:00-02:30[America/St_Johns]"));
    assertThat(days.endOf(t)).isGreaterThan(t);
    assertThat(days.endOf(days.startOf(t) - 1)).as("the periods tile").isEqualTo(days.startOf(t));
  }

  @Test
  void aMonthLasts28To31Days() {
    CalendarPeriod months = CalendarPeriod.months(ZoneId.of("UTC"));
    assertThat(length(months, at("2026-02-14T00:00Z[UTC]"))).isEqualTo(Duration.ofDays(28));
    assertThat(length(months, at("2024-02-29T23:59:59.999Z[UTC]"))).isEqualTo(Duration.ofDays(29));
    assertThat(length(months, at("2026-04-30T12:00Z[UTC]"))).isEqualTo(Duration.ofDays(30));
    assertThat(length(months, at("2026-01-01T00:00Z[UTC]"))).isEqualTo(Duration.ofDays(31));
    // In Berlin, March 2026 loses an hour to daylight saving time.
    assertThat(length(CalendarPeriod.months(BERLIN), at("2026-03-15T00:00+01:00[Europe/Berlin]")))
        .isEqualTo(Duration.ofDays(31).minusHours(1));
  }

  @Test
  void aWeekStartsOnTheDayChosen() {
    long thursday = at("2026-12-03T10:00-05:00[America/New_York]");
    CalendarPeriod iso = CalendarPeriod.weeks(NEW_YORK, DayOfWeek.MONDAY);
    CalendarPeriod us = CalendarPeriod.weeks(NEW_YORK, DayOfWeek.SUNDAY);
    assertThat(iso.startOf(thursday)).isEqualTo(at("2026-11-30T00:00-05:00[America/New_York]"));
    assertThat(us.startOf(thursday)).isEqualTo(at("2026-11-29T00:00-05:00[America/New_York]"));
    assertThat(us.endOf(thursday)).isEqualTo(at("2026-12-06T00:00-05:00[America/New_York]"));
    long sunday = at("2026-12-06T00:00-05:00[America/New_York]");
    assertThat(us.startOf(sunday)).as("its first instant opens the next week").isEqualTo(sunday);
    assertThat(iso.startOf(sunday)).isEqualTo(iso.startOf(thursday));
    // The week of the autumn change lasts 7 days and an hour.
    assertThat(length(iso, at("2026-11-01T12:00-05:00[America/New_York]")))
        .isEqualTo(Duration.ofDays(7).plusHours(1));
  }

  @Test
  void aPeriodsFirstInstantIsInItAndTheInstantBeforeIsNot() {
    CalendarPeriod days = CalendarPeriod.days(BERLIN);
    long midnight = at("2026-06-01T00:00+02:00[Europe/Berlin]");
    assertThat(days.startOf(midnight)).isEqualTo(midnight);
    assertThat(days.endOf(midnight - 1)).isEqualTo(midnight);
    assertThat(days.startOf(midnight - 1)).isEqualTo(midnight - Duration.ofDays(1).toMillis());
  }

  @Test
  void theEndsSaturateAtTheLongBounds() {
    for (CalendarPeriod p :
        new CalendarPeriod[] {
          CalendarPeriod.days(BERLIN),
          CalendarPeriod.weeks(NEW_YORK, DayOfWeek.SUNDAY),
          CalendarPeriod.months(ZoneId.of("Pacific/Kiritimati"))
        }) {
      assertThat(p.startOf(Long.MIN_VALUE)).as("%s", p).isEqualTo(Long.MIN_VALUE);
      assertThat(p.endOf(Long.MIN_VALUE)).as("%s", p).isGreaterThan(Long.MIN_VALUE);
      assertThat(p.endOf(Long.MAX_VALUE)).as("%s", p).isEqualTo(Long.MAX_VALUE);
      assertThat(p.startOf(Long.MAX_VALUE)).as("%s", p).isLessThan(Long.MAX_VALUE);
      assertThat(p.endOf(p.startOf(Long.MAX_VALUE) - 1)).isEqualTo(p.startOf(Long.MAX_VALUE));
    }
  }

  @Test
  void periodsAreValuesAndNameWhatIsMissing() {
    assertThat(CalendarPeriod.days(BERLIN))
        .isEqualTo(CalendarPeriod.days(ZoneId.of("Europe/Berlin")));
    assertThat(CalendarPeriod.weeks(BERLIN, DayOfWeek.MONDAY))
        .isNotEqualTo(CalendarPeriod.weeks(BERLIN, DayOfWeek.SUNDAY))
        .hasToString("weeks in Europe/Berlin from MONDAY");
    assertThat(CalendarPeriod.months(BERLIN).firstDayOfWeek()).isNull();
    assertThatThrownBy(() -> CalendarPeriod.days(null)).hasMessageContaining("zone");
    assertThatThrownBy(() -> CalendarPeriod.weeks(BERLIN, null)).hasMessageContaining("firstDay");
    assertThat(Instant.ofEpochMilli(CalendarPeriod.months(BERLIN).startOf(0)))
        .isEqualTo(Instant.parse("1969-12-31T23:00:00Z"));
  }
}
