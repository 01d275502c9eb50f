package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Start-up seeding and quiet periods, driven by a {@link ManualClock} as a consumer would be. */
class RestartAndOvernightScenarioTest {

  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(5);
  private static final Duration LATENESS = Duration.ofMinutes(2);

  private final ManualClock clock = new ManualClock(NOW);
  private final List<Long> lateTimes = new ArrayList<>();
  private final TumblingWindows<String, Long, Long> windows =
      TumblingWindows.builder(WINDOW, Aggregators.count())
          .allowedLateness(LATENESS)
          .idleTimeout(Duration.ofMinutes(2))
          .clock(clock)
          .lateEventHandler((s, t, end, wm, k, v) -> lateTimes.add(t))
          .build();

  /**
   * Regression: a replay once wrote a window ending six hours in the future; seeding from it made
   * 130,000 live events late. The clamp keeps the seed at or before now - allowedLateness.
   */
  @Test
  void seedFromAWindowWrittenInTheFutureNeverMakesLiveEventsLate() {
    long futureEnd = NOW.plus(Duration.ofHours(6)).toEpochMilli();
    long seeded = windows.seedWatermark(futureEnd);
    assertThat(seeded).isEqualTo(NOW.minus(LATENESS).toEpochMilli());
    long live = NOW.toEpochMilli();
    for (int p = 0; p < 6; p++) {
      for (long t = live - LATENESS.toMillis() + 1; t < live; t += 997) {
        assertThat(windows.add("p" + p, Math.max(t, seeded - WINDOW.toMillis() + 1), "k", 1L))
            .isTrue();
      }
    }
    assertThat(windows.stats().late()).isZero();
  }

  @Test
  void normalSeedMakesRedeliveredEventsOfWrittenWindowsLate() {
    long writtenEnd = NOW.minus(Duration.ofMinutes(10)).toEpochMilli(); // the sink's newest window
    assertThat(windows.seedWatermark(writtenEnd)).isEqualTo(writtenEnd);
    // Redelivered after a crash: events of the written window [end - 5 min, end) are late ...
    assertThat(windows.add("p0", writtenEnd - 1, "k", 1L)).isFalse();
    assertThat(windows.add("p0", writtenEnd - WINDOW.toMillis(), "k", 1L)).isFalse();
    // ... the first event of the next, unwritten window is not.
    assertThat(windows.add("p0", writtenEnd, "k", 1L)).isTrue();
    assertThat(lateTimes).containsExactly(writtenEnd - 1, writtenEnd - WINDOW.toMillis());
    windows.advanceTo(clock.wallMillis());
    assertThat(windows.pollFinalized())
        .extracting(WindowResult::start, WindowResult::value)
        .containsExactly(org.assertj.core.api.Assertions.tuple(writtenEnd, 1L));
  }

  /**
   * Overnight: partitions fall silent one after another. Each silent one stops holding windows
   * after the idle timeout; when every partition is quiet, the last window closes through {@code
   * advanceTo} at exactly {@code end + allowedLateness} on the wall clock.
   */
  @Test
  void silentPartitionsStopHoldingAndTheLastWindowClosesThroughAdvanceTo() {
    long t0 = NOW.toEpochMilli();
    // Live traffic: event time follows the wall clock. p2..p5 stop at 08:10; p0, p1 go on to 08:30.
    for (int second = 0; second < 30 * 60; second += 5) {
      long t = t0 + second * 1_000L;
      for (int p = 0; p < 6; p++) {
        if (p < 2 || second < 10 * 60) {
          windows.add("p" + p, t, "k", 1L);
        }
      }
      clock.advance(Duration.ofSeconds(5));
      windows.refresh();
    }
    // p2..p5 went idle two minutes after 08:10: the watermark followed p0/p1 despite them.
    assertThat(windows.activeSources()).isEqualTo(2);
    long lastEvent = t0 + (30 * 60 - 5) * 1_000L;
    assertThat(windows.watermark()).isEqualTo(lastEvent - LATENESS.toMillis());
    List<WindowResult<String, Long>> closed = windows.pollFinalized();
    assertThat(closed).hasSize(5); // 08:00..08:25 closed, 08:25..08:30 still open
    assertThat(closed.get(0).value()).isEqualTo(60 * 6); // 5 min, every 5 s, six partitions
    assertThat(closed.get(2).value()).isEqualTo(60 * 2); // 08:10..08:15: only p0, p1

    // Everything is quiet now. The last window [08:25, 08:30) must not close before 08:32.
    long lastEnd = t0 + Duration.ofMinutes(30).toMillis();
    long closeAt = lastEnd + LATENESS.toMillis();
    clock.advance(Duration.ofMillis(closeAt - 1 - clock.wallMillis()));
    windows.advanceTo(clock.wallMillis());
    assertThat(windows.pollFinalized()).isEmpty();
    clock.advanceMillis(1);
    windows.advanceTo(clock.wallMillis());
    assertThat(windows.pollFinalized())
        .extracting(WindowResult::end, WindowResult::value)
        .containsExactly(org.assertj.core.api.Assertions.tuple(lastEnd, 60L * 2));
    assertThat(windows.stats().late()).isZero();
  }
}
