package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.MINUTE;
import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.describe;
import static io.github.lowwater.micrometer.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowStats;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link TumblingWindowsMetrics} read through a {@link SimpleMeterRegistry}. */
class TumblingWindowsMetricsTest {

  static final Tags TAGS = Tags.of("pipeline", "arrivals");

  final ManualClock clock = new ManualClock(NOW);
  final TumblingWindows<String, Long, Long> windows =
      TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
          .allowedLateness(Duration.ZERO)
          .maxFutureSkew(Duration.ofMinutes(1))
          .clock(clock)
          .build();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void bindsTheLagSourcesWindowsAndEventCountsWithTheirUnitsAndTags() {
    new TumblingWindowsMetrics(windows, TAGS).bindTo(registry);
    assertThat(describe(registry))
        .containsExactly(
            "lowwater.entries.open GAUGE entries [pipeline=arrivals]",
            "lowwater.events.accepted COUNTER events [pipeline=arrivals]",
            "lowwater.events.future COUNTER events [pipeline=arrivals]",
            "lowwater.events.late COUNTER events [pipeline=arrivals]",
            "lowwater.rows.early COUNTER rows [pipeline=arrivals]",
            "lowwater.rows.late COUNTER rows [pipeline=arrivals]",
            "lowwater.sources.active GAUGE sources [pipeline=arrivals]",
            "lowwater.watermark.lag GAUGE milliseconds [pipeline=arrivals]",
            "lowwater.windows.finalized COUNTER windows [pipeline=arrivals]",
            "lowwater.windows.open GAUGE windows [pipeline=arrivals]",
            "lowwater.windows.retired COUNTER windows [pipeline=arrivals]");
    assertThat(value(registry, "lowwater.watermark.lag", TAGS)).isNaN();

    clock.advance(Duration.ofMinutes(10)); // the wall clock is at T + 10 min
    windows.add("p0", T + MINUTE, "a", 1L);
    windows.add("p0", T + 2 * MINUTE, "b", 1L);
    windows.add("p1", T + MINUTE, "a", 1L);
    windows.add("p0", T + 6 * MINUTE, "a", 1L);
    windows.add("p1", T + 7 * MINUTE, "a", 1L); // the watermark is T + 6 min: [T, T + 5) closes
    windows.add("p0", T + 2 * MINUTE, "a", 1L); // late
    windows.add("p0", T + 30 * MINUTE, "a", 1L); // beyond the guard, accepted (the default)

    assertThat(windows.stats())
        .isEqualTo(new WindowStats(6, 1, 1, 2, 2, 1, T + 6 * MINUTE, 0, 0, 0, 1));
    assertThat(value(registry, "lowwater.watermark.lag", TAGS)).isEqualTo(4.0 * MINUTE);
    assertThat(value(registry, "lowwater.sources.active", TAGS)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.windows.open", TAGS)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.entries.open", TAGS)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.windows.finalized", TAGS)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.events.accepted", TAGS)).isEqualTo(6.0);
    assertThat(value(registry, "lowwater.events.late", TAGS)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.events.future", TAGS)).isEqualTo(1.0);

    windows.finish();
    assertThat(value(registry, "lowwater.watermark.lag", TAGS)).as("the end of the input").isNaN();
    assertThat(value(registry, "lowwater.windows.open", TAGS)).isZero();
  }

  @Test
  void closeRemovesEveryMeterAndTheBinderMayBeBoundAgain() {
    TumblingWindowsMetrics metrics = new TumblingWindowsMetrics(windows);
    metrics.bindTo(registry);
    assertThat(registry.getMeters()).hasSize(11);
    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    metrics.bindTo(registry); // bindable again
    assertThat(registry.getMeters()).hasSize(11);
  }

  @Test
  void thePaneMetersCountEarlyRowsLateUpdatesAndRetiredWindows() {
    TumblingWindows<String, Long, Long> paned =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .earlyResults(Duration.ofMinutes(1))
            .grace(Duration.ofMinutes(2))
            .clock(clock)
            .build();
    new TumblingWindowsMetrics(paned, TAGS).bindTo(registry);
    paned.add(T, "a", 1L);
    paned.add(T + MINUTE, "b", 1L); // the mark T + 1 min: two early rows
    paned.add(T + 5 * MINUTE, "a", 1L); // [T, T + 5 min) on time, in its grace period
    paned.add(T + 2 * MINUTE, "a", 1L); // a late update
    paned.add(T + 7 * MINUTE, "a", 1L); // end + grace: [T, T + 5 min) retires
    // ... and [T + 5 min, T + 10 min) passes its mark T + 6 min: its first early row
    assertThat(value(registry, "lowwater.rows.early", TAGS)).isEqualTo(3.0);
    assertThat(value(registry, "lowwater.rows.late", TAGS)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.windows.retired", TAGS)).isEqualTo(1.0);
  }
}
