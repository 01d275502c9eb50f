package io.github.lowwater.window;

import static io.github.lowwater.window.CalendarPeriodTest.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Calendar windows with the options of the other kinds (rule 75), on a fake clock. */
class TumblingWindowsCalendarTest {

  static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  static List<String> rows(TumblingWindows<String, Long, Long> w, long dayStart) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : w.pollFinalized()) {
      rows.add(
          (r.start() - dayStart) / 3_600_000
              + "h-"
              + (r.end() - dayStart) / 3_600_000
              + "h "
              + r.key()
              + "="
              + r.value()
              + " "
              + r.timing()
              + "#"
              + r.index());
    }
    return rows;
  }

  @Test
  void aDailyWindowWithHourlyEarlyResultsGivesTodaySoFarEveryHourOfTheDaysOwnLength() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(CalendarPeriod.days(BERLIN), Aggregators.sumLong())
            .earlyResults(Duration.ofHours(1))
            .allowedLateness(Duration.ofHours(1))
            .clock(new ManualClock())
            .build();
    long day = at("2026-03-29T00:00+01:00[Europe/Berlin]"); // the 23-hour day
    w.add("p", at("2026-03-29T00:30+01:00[Europe/Berlin]"), "shop", 1L);
    assertThat(rows(w, day)).isEmpty(); // the first mark is an hour into the day
    w.add("p", at("2026-03-29T01:00+01:00[Europe/Berlin]"), "shop", 1L);
    assertThat(rows(w, day)).containsExactly("0h-23h shop=2 EARLY#0");
    w.add("p", at("2026-03-29T03:00+02:00[Europe/Berlin]"), "shop", 1L); // two hours in
    assertThat(rows(w, day)).containsExactly("0h-23h shop=3 EARLY#1");
    w.add("p", at("2026-03-29T23:59+02:00[Europe/Berlin]"), "shop", 1L);
    assertThat(rows(w, day)).containsExactly("0h-23h shop=4 EARLY#2");
    // The watermark reaches 00:00, the day's end. The event is accumulated (opening the next day,
    // whose first mark it reaches) before it moves the watermark (rule 2).
    w.add("p", at("2026-03-30T01:00+02:00[Europe/Berlin]"), "shop", 1L);
    assertThat(rows(w, day)).containsExactly("23h-47h shop=1 EARLY#0", "0h-23h shop=4 ON_TIME#3");
  }

  @Test
  void aLateEventOfACalendarWindowIsJudgedByItsEndAndAGraceRowUpdatesIt() {
    List<Long> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(CalendarPeriod.days(BERLIN), Aggregators.sumLong())
            .grace(Duration.ofHours(2))
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .lateEventHandler((s, t, end, wm, k, v) -> late.add(t))
            .build();
    long day = at("2026-10-25T00:00+02:00[Europe/Berlin]"); // the 25-hour day
    w.add("p", at("2026-10-25T23:00+01:00[Europe/Berlin]"), "shop", 1L);
    w.add("p", at("2026-10-26T00:00+01:00[Europe/Berlin]"), "shop", 1L); // closes the day
    assertThat(rows(w, day)).containsExactly("0h-25h shop=1 ON_TIME#0");
    w.add("p", at("2026-10-25T22:00+01:00[Europe/Berlin]"), "shop", 5L); // within the grace
    assertThat(rows(w, day)).containsExactly("0h-25h shop=6 LATE#1");
    w.add("p", at("2026-10-26T02:00+01:00[Europe/Berlin]"), "shop", 1L); // the grace ends
    w.add("p", at("2026-10-25T22:00+01:00[Europe/Berlin]"), "shop", 5L);
    assertThat(late).containsExactly(at("2026-10-25T22:00+01:00[Europe/Berlin]"));
    assertThat(w.windowEnd(at("2026-10-25T12:00+01:00[Europe/Berlin]")))
        .isEqualTo(at("2026-10-26T00:00+01:00[Europe/Berlin]"));
    assertThat(w.calendarPeriod()).isEqualTo(CalendarPeriod.days(BERLIN));
    assertThat(w.sizeMillis())
        .as("a bound: 24 h and 36 h of offset change")
        .isEqualTo(60 * 3_600_000L);
  }
}
