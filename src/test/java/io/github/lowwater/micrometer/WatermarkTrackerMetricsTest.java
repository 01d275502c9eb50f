package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.describe;
import static io.github.lowwater.micrometer.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link WatermarkTrackerMetrics} read through a {@link SimpleMeterRegistry}. */
class WatermarkTrackerMetricsTest {

  static final Tags TAGS = Tags.of("pipeline", "arrivals");

  final ManualClock clock = new ManualClock(NOW);
  final WatermarkTracker tracker =
      WatermarkTracker.builder()
          .allowedLateness(Duration.ofSeconds(10))
          .idleTimeout(Duration.ofMinutes(1))
          .maxFutureSkew(Duration.ofMinutes(1))
          .clock(clock)
          .build();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void bindsTheLagActiveSourcesAndFutureEventsWithTheirUnitsAndTags() {
    new WatermarkTrackerMetrics(tracker, TAGS).bindTo(registry);
    assertThat(describe(registry))
        .containsExactly(
            "lowwater.events.future COUNTER events [pipeline=arrivals]",
            "lowwater.sources.active GAUGE sources [pipeline=arrivals]",
            "lowwater.sources.suspect.time.unit COUNTER sources [pipeline=arrivals]",
            "lowwater.watermark.lag GAUGE milliseconds [pipeline=arrivals]");

    tracker.observe("p0", T - 30_000);
    tracker.observe("p1", T - 20_000); // the watermark is T - 40 s: p0 minus the lateness
    clock.advance(Duration.ofSeconds(5));
    tracker.observe("p1", T + 10 * 60_000); // beyond the one-minute guard: a future event

    assertThat(value(registry, "lowwater.watermark.lag", TAGS)).isEqualTo(45_000.0);
    assertThat(value(registry, "lowwater.sources.active", TAGS)).isEqualTo(2.0);
    assertThat(value(registry, "lowwater.events.future", TAGS)).isEqualTo(1.0);
    assertThat(value(registry, "lowwater.sources.suspect.time.unit", TAGS)).isZero();
  }

  @Test
  void aSourceInEpochSecondsIsCountedAsASuspectTimeUnit() {
    new WatermarkTrackerMetrics(tracker, TAGS).bindTo(registry);
    tracker.observe("p0", T);
    tracker.observe("seconds", T / 1000); // the common mistake: epoch seconds
    assertThat(value(registry, "lowwater.sources.suspect.time.unit", TAGS)).isEqualTo(1.0);
  }

  /**
   * Regression guard: {@code NO_WATERMARK} is {@code Long.MIN_VALUE}, and the wall clock minus it
   * plotted as a lag of 292 million years; the end of the input ({@code Long.MAX_VALUE}) as a
   * negative one.
   */
  @Test
  void theLagIsNanWithoutAWatermarkAndAfterTheEndOfTheInput() {
    new WatermarkTrackerMetrics(tracker).bindTo(registry);
    assertThat(value(registry, "lowwater.watermark.lag", Tags.empty())).isNaN();
    tracker.observe("p0", T);
    assertThat(value(registry, "lowwater.watermark.lag", Tags.empty())).isEqualTo(10_000.0);
    tracker.finish();
    assertThat(value(registry, "lowwater.watermark.lag", Tags.empty())).isNaN();
  }

  @Test
  void closeRemovesEveryMeterAndBindingTwiceRegistersOnce() {
    WatermarkTrackerMetrics metrics = new WatermarkTrackerMetrics(tracker, TAGS);
    SimpleMeterRegistry other = new SimpleMeterRegistry();
    metrics.bindTo(registry);
    metrics.bindTo(registry);
    metrics.bindTo(other);
    assertThat(registry.getMeters()).hasSize(4);
    assertThat(other.getMeters()).hasSize(4);
    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    assertThat(other.getMeters()).isEmpty();
    metrics.close(); // idempotent
    metrics.bindTo(registry); // and bindable again
    assertThat(registry.getMeters()).hasSize(4);
  }

  @Test
  void nullArgumentsAreRejectedByName() {
    assertThatThrownBy(() -> new WatermarkTrackerMetrics(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tracker");
    assertThatThrownBy(() -> new WatermarkTrackerMetrics(tracker, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tags");
    assertThatThrownBy(() -> new WatermarkTrackerMetrics(tracker).bindTo(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("registry");
  }
}
