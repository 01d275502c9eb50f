package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.MINUTE;
import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.P0;
import static io.github.lowwater.micrometer.Fixtures.P1;
import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.record;
import static io.github.lowwater.micrometer.Fixtures.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * The names, tags and types a Prometheus server sees, asserted exactly on the registry's scrape
 * output: base units end the names, counters end in {@code _total}, and every metric has a help
 * line.
 */
class PrometheusScrapeTest {

  @Test
  void theScrapeExportsEveryMeterUnderItsPrometheusNameWithItsTags() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new KafkaWindowsMetrics(windows, Tags.of("group", "counter"), clock).bindTo(registry);
    clock.advance(Duration.ofMinutes(10));
    windows.onPoll(
        records(record(P0, 0, T + MINUTE), record(P0, 1, T + 6 * MINUTE), record(P1, 0, T)),
        ConsumerRecord::key,
        r -> 1L);

    String scrape = registry.scrape();
    List<String> samples = scrape.lines().filter(l -> l.startsWith("lowwater_")).sorted().toList();
    List<String> types =
        scrape.lines().filter(l -> l.startsWith("# TYPE lowwater_")).sorted().toList();
    List<String> helps =
        scrape
            .lines()
            .filter(l -> l.startsWith("# HELP lowwater_"))
            .map(l -> l.split(" ")[2])
            .toList();

    assertThat(samples)
        .containsExactly(
            "lowwater_alignment_pauses_total{group=\"counter\"} 0.0",
            "lowwater_alignment_resumes_total{group=\"counter\"} 0.0",
            "lowwater_entries_open_entries{group=\"counter\"} 2.0",
            "lowwater_events_accepted_events_total{group=\"counter\"} 3.0",
            "lowwater_events_future_events_total{group=\"counter\"} 0.0",
            "lowwater_events_late_events_total{group=\"counter\"} 0.0",
            "lowwater_group_watermark_lag_milliseconds{group=\"counter\"} NaN",
            "lowwater_lag_max_records{group=\"counter\"} NaN",
            "lowwater_last_poll_age_milliseconds{group=\"counter\"} 0.0",
            "lowwater_missing_records_events_total{group=\"counter\"} 0.0",
            "lowwater_partition_frontier_lag_milliseconds{group=\"counter\",partition=\"0\",topic=\"arrivals\"} 240000.0",
            "lowwater_partition_frontier_lag_milliseconds{group=\"counter\",partition=\"1\",topic=\"arrivals\"} 600000.0",
            "lowwater_partition_lag_records{group=\"counter\",partition=\"0\",topic=\"arrivals\"} NaN",
            "lowwater_partition_lag_records{group=\"counter\",partition=\"1\",topic=\"arrivals\"} NaN",
            "lowwater_partition_resume_age_milliseconds{group=\"counter\",partition=\"0\",topic=\"arrivals\"} 0.0",
            "lowwater_partition_resume_age_milliseconds{group=\"counter\",partition=\"1\",topic=\"arrivals\"} 0.0",
            "lowwater_partition_resume_distance_records{group=\"counter\",partition=\"0\",topic=\"arrivals\"} 2.0",
            "lowwater_partition_resume_distance_records{group=\"counter\",partition=\"1\",topic=\"arrivals\"} 1.0",
            "lowwater_partition_resume_event_age_milliseconds{group=\"counter\",partition=\"0\",topic=\"arrivals\"} 300000.0",
            "lowwater_partition_resume_event_age_milliseconds{group=\"counter\",partition=\"1\",topic=\"arrivals\"} 0.0",
            "lowwater_partition_watermark_lag_milliseconds{group=\"counter\",partition=\"0\",topic=\"arrivals\"} 240000.0",
            "lowwater_partition_watermark_lag_milliseconds{group=\"counter\",partition=\"1\",topic=\"arrivals\"} 600000.0",
            "lowwater_partitions_active_partitions{group=\"counter\"} 2.0",
            "lowwater_partitions_assigned_partitions{group=\"counter\"} 2.0",
            "lowwater_partitions_held_partitions{group=\"counter\"} 0.0",
            "lowwater_partitions_idle_partitions{group=\"counter\"} 0.0",
            "lowwater_partitions_over_resume_limit_partitions{group=\"counter\"} 0.0",
            "lowwater_partitions_paused_partitions{group=\"counter\"} 0.0",
            "lowwater_progress_commits_calls_total{group=\"counter\"} 0.0",
            "lowwater_progress_failures_calls_total{group=\"counter\"} 0.0",
            "lowwater_quiet_advances_total{group=\"counter\"} 0.0",
            "lowwater_records_redelivered_records_total{group=\"counter\"} 0.0",
            "lowwater_records_skipped_records_total{group=\"counter\"} 0.0",
            "lowwater_resume_age_max_milliseconds{group=\"counter\"} 0.0",
            "lowwater_resume_distance_max_records{group=\"counter\"} 2.0",
            "lowwater_rows_early_rows_total{group=\"counter\"} 0.0",
            "lowwater_rows_incomplete_rows_total{group=\"counter\"} 0.0",
            "lowwater_rows_late_rows_total{group=\"counter\"} 0.0",
            "lowwater_watermark_lag_milliseconds{group=\"counter\"} 600000.0",
            "lowwater_windows_finalized_windows_total{group=\"counter\"} 1.0",
            "lowwater_windows_open_windows{group=\"counter\"} 2.0",
            "lowwater_windows_retired_windows_total{group=\"counter\"} 1.0");
    assertThat(types)
        .containsExactly(
            "# TYPE lowwater_alignment_pauses_total counter",
            "# TYPE lowwater_alignment_resumes_total counter",
            "# TYPE lowwater_entries_open_entries gauge",
            "# TYPE lowwater_events_accepted_events_total counter",
            "# TYPE lowwater_events_future_events_total counter",
            "# TYPE lowwater_events_late_events_total counter",
            "# TYPE lowwater_group_watermark_lag_milliseconds gauge",
            "# TYPE lowwater_lag_max_records gauge",
            "# TYPE lowwater_last_poll_age_milliseconds gauge",
            "# TYPE lowwater_missing_records_events_total counter",
            "# TYPE lowwater_partition_frontier_lag_milliseconds gauge",
            "# TYPE lowwater_partition_lag_records gauge",
            "# TYPE lowwater_partition_resume_age_milliseconds gauge",
            "# TYPE lowwater_partition_resume_distance_records gauge",
            "# TYPE lowwater_partition_resume_event_age_milliseconds gauge",
            "# TYPE lowwater_partition_watermark_lag_milliseconds gauge",
            "# TYPE lowwater_partitions_active_partitions gauge",
            "# TYPE lowwater_partitions_assigned_partitions gauge",
            "# TYPE lowwater_partitions_held_partitions gauge",
            "# TYPE lowwater_partitions_idle_partitions gauge",
            "# TYPE lowwater_partitions_over_resume_limit_partitions gauge",
            "# TYPE lowwater_partitions_paused_partitions gauge",
            "# TYPE lowwater_progress_commits_calls_total counter",
            "# TYPE lowwater_progress_failures_calls_total counter",
            "# TYPE lowwater_quiet_advances_total counter",
            "# TYPE lowwater_records_redelivered_records_total counter",
            "# TYPE lowwater_records_skipped_records_total counter",
            "# TYPE lowwater_resume_age_max_milliseconds gauge",
            "# TYPE lowwater_resume_distance_max_records gauge",
            "# TYPE lowwater_rows_early_rows_total counter",
            "# TYPE lowwater_rows_incomplete_rows_total counter",
            "# TYPE lowwater_rows_late_rows_total counter",
            "# TYPE lowwater_watermark_lag_milliseconds gauge",
            "# TYPE lowwater_windows_finalized_windows_total counter",
            "# TYPE lowwater_windows_open_windows gauge",
            "# TYPE lowwater_windows_retired_windows_total counter");
    assertThat(helps)
        .containsExactlyInAnyOrderElementsOf(types.stream().map(l -> l.split(" ")[2]).toList());
  }
}
