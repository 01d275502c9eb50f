package io.github.lowwater;

import java.time.Duration;
import java.time.Instant;

/** What the toolbox tests of {@link WatermarkTracker} share: a clock and a builder over it. */
abstract class TrackerFixture {

  static final long LATENESS = 10_000;
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-29T12:00:00Z"));

  WatermarkTracker.Builder builder() {
    return WatermarkTracker.builder()
        .allowedLateness(Duration.ofMillis(LATENESS))
        .idleTimeout(Duration.ofMinutes(1))
        .clock(clock);
  }
}
