package io.github.lowwater.docs;

import io.github.lowwater.Clock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.micrometer.KafkaWindowsMetrics;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** The code blocks of docs/metrics.md and docs/operations.md; see the package comment. */
@SuppressWarnings("unused")
final class OperationsDocSnippets {

  private OperationsDocSnippets() {}

  /** A table of rows keyed by (window, source, key). */
  interface Sink {
    void upsert(long windowStart, Object source, String key, long value);

    void insertIfAbsent(long windowStart, Object source, String key, long value);
  }

  static void binding(
      KafkaWindows<String, Long, Long> windows,
      KafkaConsumer<String, String> consumer,
      Clock clock,
      Sink sink,
      boolean running) {
    // snippet: metrics.md binding
    MeterRegistry registry =
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT); // Prometheus, OTLP, JMX, ...
    KafkaWindowsMetrics metrics =
        new KafkaWindowsMetrics(windows, Tags.of("group", "arrivals-counter"), clock);
    metrics.bindTo(registry);
    try {
      while (running) {
        windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
        metrics.refresh(); // the per-partition meters follow the assignment
        for (WindowResult<String, Long> w : windows.pollFinalized()) {
          if (w.isComplete()) {
            sink.upsert(w.start(), w.source(), w.key(), w.value());
          } else { // never over a complete row (docs/kafka.md, "Missing records")
            sink.insertIfAbsent(w.start(), w.source(), w.key(), w.value());
          }
        }
        consumer.commitSync(windows.committableOffsets());
      }
    } finally {
      metrics.close(); // removes every meter it registered
      consumer.close();
    }
    // end snippet
  }

  static void progressGroup(KafkaConsumer<String, String> consumer, String bootstrap) {
    // snippet: operations.md the progress group
    Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .consumer(consumer)
            .progressGroup(admin, "arrivals-counter.progress", Duration.ofSeconds(10))
            .build();
    // end snippet
  }
}
