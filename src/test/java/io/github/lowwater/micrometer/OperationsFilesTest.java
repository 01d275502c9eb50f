package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.P0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * The operations files the project ships (issue 33): the Prometheus alert rules and the Grafana
 * dashboard query only metrics that the binders export (as a Prometheus scrape names them), the
 * dashboard is valid JSON with a query in every target, and every alert has a runbook line that
 * points at a section of docs/operations.md that exists. A renamed meter fails here, not in an
 * operator's empty panel.
 */
class OperationsFilesTest {

  static final Path ALERTS = Path.of("ops", "prometheus", "lowwater-alerts.yml");
  static final Path DASHBOARD = Path.of("ops", "grafana", "lowwater-dashboard.json");
  static final Path RUNBOOK = Path.of("docs", "operations.md");
  static final Pattern METRIC = Pattern.compile("lowwater_[a-z_]+");

  /** The metric names a Prometheus scrape of every KafkaWindowsMetrics meter exports. */
  static Set<String> exported() {
    ManualClock clock = new ManualClock(NOW);
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.sumLong())
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new KafkaWindowsMetrics(windows, Tags.of("group", "g"), clock).bindTo(registry);
    return registry
        .scrape()
        .lines()
        .filter(l -> l.startsWith("# TYPE "))
        .map(l -> l.split(" ")[2])
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static Set<String> metricsIn(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(text);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  @Test
  void theDashboardIsJsonAndQueriesOnlyExportedMetrics() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(panel.get("targets")).as("panel %s", panel.get("title")).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        String expr = target.get("expr").asText();
        assertThat(metricsIn(expr)).as("a query names a metric: %s", expr).isNotEmpty();
        queries.add(expr);
      }
    }
    Set<String> used = metricsIn(String.join("\n", queries));
    used.addAll(metricsIn(dashboard.get("templating").toString()));
    assertThat(exported()).as("the metrics the dashboard queries").containsAll(used);
  }

  @Test
  void everyAlertQueriesExportedMetricsAndHasARunbookSectionThatExists() throws IOException {
    String alerts = Files.readString(ALERTS);
    assertThat(exported()).as("the metrics the alerts use").containsAll(metricsIn(alerts));
    long rules = alerts.lines().filter(l -> l.trim().startsWith("- alert:")).count();
    List<String> runbooks =
        alerts.lines().filter(l -> l.trim().startsWith("runbook:")).collect(Collectors.toList());
    assertThat(rules).isPositive();
    assertThat(runbooks).as("a runbook line per alert").hasSize((int) rules);
    Set<String> sections =
        Files.readString(RUNBOOK)
            .lines()
            .filter(l -> l.startsWith("#"))
            .map(l -> slug(l.replaceFirst("^#+ ", "")))
            .collect(Collectors.toSet());
    for (String runbook : runbooks) {
      Matcher m = Pattern.compile("docs/operations\\.md#([a-z0-9-]+)").matcher(runbook);
      assertThat(m.find()).as("points at docs/operations.md: %s", runbook).isTrue();
      assertThat(sections).as("the section of %s", runbook).contains(m.group(1));
    }
  }

  /** A heading's anchor as GitHub makes it: lower case, spaces to hyphens, punctuation dropped. */
  static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 -]", "").trim().replace(' ', '-');
  }
}
