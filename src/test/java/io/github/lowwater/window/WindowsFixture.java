package io.github.lowwater.window;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What the windows' toolbox tests share: a clock at noon, one-minute windows, a late recorder. */
abstract class WindowsFixture {

  static final long SIZE = 60_000;
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));
  final long now = clock.wallMillis();

  /** Late events as {@code source@t}, with " future" for a future event on the late path. */
  final List<String> late = new ArrayList<>();

  TumblingWindows.Builder<Long, Long> builder() {
    return TumblingWindows.builder(Duration.ofMillis(SIZE), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(clock)
        .lateEventHandler(
            (s, t, end, wm, k, v) -> late.add(s + "@" + t + (end > wm ? " future" : "")));
  }
}
