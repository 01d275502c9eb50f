package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Rule 76 at its edges: tumbling windows shifted by an offset. */
class TumblingWindowsOffsetTest {

  static TumblingWindows<String, Long, Long> hourly(Duration offset) {
    return TumblingWindows.builder(Duration.ofHours(1), Aggregators.sumLong())
        .offset(offset)
        .allowedLateness(Duration.ZERO)
        .clock(new ManualClock())
        .build();
  }

  static final long MINUTE = 60_000;

  @Test
  void hourlyWindowsOnTheHalfHour() {
    TumblingWindows<String, Long, Long> w = hourly(Duration.ofMinutes(30));
    assertThat(w.windowEnd(10 * 60 * MINUTE + 15 * MINUTE))
        .isEqualTo(10 * 60 * MINUTE + 30 * MINUTE);
    assertThat(w.windowEnd(10 * 60 * MINUTE + 30 * MINUTE))
        .as("the first instant of a window is in it")
        .isEqualTo(11 * 60 * MINUTE + 30 * MINUTE);
    w.add("p", 10 * 60 * MINUTE + 29 * MINUTE, "k", 1L);
    w.add("p", 10 * 60 * MINUTE + 30 * MINUTE, "k", 2L);
    w.finish();
    assertThat(w.pollFinalized())
        .extracting(WindowResult::start, WindowResult::end, WindowResult::value)
        .containsExactly(
            tuple(9 * 60 * MINUTE + 30 * MINUTE, 10 * 60 * MINUTE + 30 * MINUTE, 1L),
            tuple(10 * 60 * MINUTE + 30 * MINUTE, 11 * 60 * MINUTE + 30 * MINUTE, 2L));
  }

  @Test
  void anOffsetLargerThanTheSizeOrNegativeCountsModuloTheSize() {
    long t = 5 * 60 * MINUTE + 10 * MINUTE;
    long end = hourly(Duration.ofMinutes(30)).windowEnd(t);
    assertThat(hourly(Duration.ofMinutes(90)).windowEnd(t)).isEqualTo(end);
    assertThat(hourly(Duration.ofMinutes(-30)).windowEnd(t)).isEqualTo(end);
    assertThat(hourly(Duration.ofDays(365).plusMinutes(30)).windowEnd(t)).isEqualTo(end);
    assertThat(hourly(Duration.ofHours(3)).windowEnd(t))
        .isEqualTo(hourly(Duration.ZERO).windowEnd(t));
  }

  @Test
  void anOffsetWindowSaturatesAtTheLongBounds() {
    TumblingWindows<String, Long, Long> w = hourly(Duration.ofMinutes(30));
    assertThat(w.windowEnd(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    w.add("p", Long.MIN_VALUE, "k", 1L);
    w.finish();
    WindowResult<String, Long> r = w.pollFinalized().get(0);
    assertThat(r.start()).isEqualTo(Long.MIN_VALUE);
    assertThat(r.end()).isGreaterThan(Long.MIN_VALUE);
    assertThat(Math.floorMod(r.end() - 30 * MINUTE, 60 * MINUTE)).isZero();
  }

  @Test
  void anOffsetIsSetOnceAndNotOnCalendarWindows() {
    assertThatThrownBy(
            () ->
                TumblingWindows.builder(Duration.ofHours(1), Aggregators.sumLong())
                    .offset(Duration.ofMinutes(1))
                    .offset(Duration.ofMinutes(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("offset");
    assertThatThrownBy(
            () ->
                TumblingWindows.builder(
                        CalendarPeriod.days(ZoneId.of("Europe/Berlin")), Aggregators.sumLong())
                    .offset(Duration.ofHours(6)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("days in Europe/Berlin");
  }
}
