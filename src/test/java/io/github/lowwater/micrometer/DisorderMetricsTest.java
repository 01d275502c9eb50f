package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.describe;
import static io.github.lowwater.micrometer.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link DisorderMetrics} read through a {@link SimpleMeterRegistry} and a Prometheus scrape. */
class DisorderMetricsTest {

  static final Tags TAGS = Tags.of("pipeline", "arrivals");

  final ManualClock clock = new ManualClock();
  final DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void bindsThePercentilesOfThePublishedSnapshotInMilliseconds() {
    new DisorderMetrics(recorder, TAGS).bindTo(registry);
    assertThat(describe(registry))
        .contains(
            "lowwater.disorder.events COUNTER events [pipeline=arrivals]",
            "lowwater.disorder.lag.percentile GAUGE milliseconds [phi=0.99,pipeline=arrivals]",
            "lowwater.disorder.gap.percentile GAUGE milliseconds [phi=1.0,pipeline=arrivals]",
            "lowwater.disorder.late.behind.percentile GAUGE milliseconds"
                + " [phi=0.5,pipeline=arrivals]")
        .hasSize(16);
    assertThat(value(registry, "lowwater.disorder.lag.percentile", TAGS.and("phi", "0.5"))).isNaN();

    SourceDisorder p0 = recorder.source("p0");
    for (int i = 0; i < 100; i++) {
      recorder.record(p0, 10_000 + i);
      clock.advance(Duration.ofMillis(40));
    }
    recorder.record(p0, 10_000); // 99 ms behind its frontier
    recorder.recordLate(p0, 10_000, 10_050);
    assertThat(value(registry, "lowwater.disorder.events", TAGS)).isZero(); // not published
    recorder.publish();

    assertThat(value(registry, "lowwater.disorder.events", TAGS)).isEqualTo(101.0);
    assertThat(value(registry, "lowwater.disorder.lag.percentile", TAGS.and("phi", "0.5")))
        .isZero();
    assertThat(value(registry, "lowwater.disorder.lag.percentile", TAGS.and("phi", "1.0")))
        .isEqualTo(99.0);
    assertThat(value(registry, "lowwater.disorder.gap.percentile", TAGS.and("phi", "0.99")))
        .isCloseTo(40.0, org.assertj.core.data.Offset.offset(0.2));
    assertThat(value(registry, "lowwater.disorder.late.behind.percentile", TAGS.and("phi", "0.9")))
        .isEqualTo(50.0);
  }

  @Test
  void closeRemovesEveryMeterAndBindingTwiceChangesNothing() {
    DisorderMetrics metrics = new DisorderMetrics(recorder);
    metrics.bindTo(registry);
    metrics.bindTo(registry);
    assertThat(registry.getMeters()).hasSize(16);
    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    metrics.bindTo(registry);
    assertThat(registry.getMeters()).hasSize(16);
  }

  @Test
  void aPhiTagIsRejected() {
    assertThatThrownBy(() -> new DisorderMetrics(recorder, Tags.of("phi", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tags must not have the key phi: ");
    assertThatThrownBy(() -> new DisorderMetrics(null)).hasMessage("recorder");
  }

  @Test
  void theScrapeExportsThePercentilesUnderTheirPrometheusNames() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new DisorderMetrics(recorder, Tags.of("group", "counter")).bindTo(prometheus);
    SourceDisorder p0 = recorder.source("p0");
    recorder.record(p0, 1_000);
    recorder.record(p0, 800);
    recorder.publish();

    assertThat(prometheus.scrape().lines().filter(l -> l.startsWith("lowwater_disorder_")))
        .contains(
            "lowwater_disorder_events_total{group=\"counter\"} 2.0",
            "lowwater_disorder_lag_percentile_milliseconds{group=\"counter\",phi=\"1.0\"} 200.0",
            "lowwater_disorder_gap_percentile_milliseconds{group=\"counter\",phi=\"0.5\"} 0.0");
  }
}
