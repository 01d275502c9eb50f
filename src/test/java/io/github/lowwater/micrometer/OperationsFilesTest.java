package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Fixtures.MINUTE;
import static io.github.lowwater.micrometer.Fixtures.NOW;
import static io.github.lowwater.micrometer.Fixtures.P0;
import static io.github.lowwater.micrometer.Fixtures.P1;
import static io.github.lowwater.micrometer.Fixtures.T;
import static io.github.lowwater.micrometer.Fixtures.record;
import static io.github.lowwater.micrometer.Fixtures.records;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.kafka.KafkaJoin;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metric names the project writes down are the names a Prometheus server sees (issues 33 and
 * 45). Every binder is bound, each to its own {@link PrometheusMeterRegistry}, to a facade that has
 * done work (records fed, partitions assigned, session windows for the session meter, a join with
 * rows, a published disorder snapshot), and its scrape is the reference: every {@code lowwater_...}
 * name in README.md, docs/*.md and ops/ must be a sample name of a scrape, with the labels written
 * next to it ({@code name{label=...}}), and every dotted {@code lowwater.a.b} name a meter of a
 * binder; every exported name is listed in docs/metrics.md. Issue 45 found {@code
 * lowwater_join_rows_suppressed_total} and {@code lowwater_events_late_total} in docs/operations.md
 * and {@code KafkaJoinMetrics} missing from docs/metrics.md while the check read only the ops files
 * against {@code KafkaWindowsMetrics}. Also: the dashboard is valid JSON with a query in every
 * target, and every alert has a runbook line that points at a section of docs/operations.md that
 * exists.
 */
class OperationsFilesTest {

  static final Path ALERTS = Path.of("ops", "prometheus", "lowwater-alerts.yml");
  static final Path DASHBOARD = Path.of("ops", "grafana", "lowwater-dashboard.json");
  static final Path RUNBOOK = Path.of("docs", "operations.md");
  static final Path METRICS_DOC = Path.of("docs", "metrics.md");

  /** A Prometheus name: not part of a longer identifier or of a dotted name. */
  static final Pattern METRIC = Pattern.compile("(?<![A-Za-z0-9_.])lowwater_[a-z_]+");

  /** A Prometheus name followed by a label: {@code lowwater_x{side=...}}. */
  static final Pattern METRIC_LABEL =
      Pattern.compile("(?<![A-Za-z0-9_.])(lowwater_[a-z_]+)\\{([a-z_]+)=");

  /** A Micrometer name of at least three parts; {@code lowwater.complete} is a record header. */
  static final Pattern METER = Pattern.compile("(?<![A-Za-z0-9_.])lowwater(\\.[a-z]+){2,}");

  /**
   * Dotted {@code lowwater.} names that are not meters: a Maven property of the release. Spring
   * properties share the prefix, so docs/spring.md is left out of the dotted check (its Prometheus
   * names are checked).
   */
  static final Set<String> NOT_METERS = Set.of("lowwater.previous.version");

  static final Set<Path> NO_DOTTED_CHECK = Set.of(Path.of("docs", "spring.md"));

  /** Sample name to the label keys it has in the scrape. */
  static final Map<String, Set<String>> SCRAPED = new TreeMap<>();

  /** Every meter name the binders register. */
  static final Set<String> METERS = new TreeSet<>();

  @BeforeAll
  static void scrapeEveryBinder() {
    ManualClock clock = new ManualClock(NOW);
    Tags group = Tags.of("group", "g");

    KafkaWindows<String, Long, Long> tumbling =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    KafkaWindows<String, Long, Long> sessions =
        KafkaWindows.sessions(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    for (KafkaWindows<String, Long, Long> windows : List.of(tumbling, sessions)) {
      windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
      scrape(new KafkaWindowsMetrics(windows, group, clock), () -> feed(windows));
    }

    TopicPartition l0 = new TopicPartition("orders", 0);
    TopicPartition r0 = new TopicPartition("payments", 0);
    MockConsumer<String, String> joinConsumer = new MockConsumer<>("earliest");
    joinConsumer.assign(List.of(l0, r0));
    joinConsumer.updateBeginningOffsets(Map.of(l0, 0L, r0, 0L));
    KafkaJoin<String, String, String, String> join =
        KafkaJoin.<String, String, String, String>builder(
                JoinInterval.between(Duration.ZERO, Duration.ofMinutes(10)),
                (k, l, r) -> l + "|" + r)
            .type(JoinType.LEFT)
            .allowedLateness(Duration.ZERO)
            .topics("orders", "payments")
            .clock(clock)
            .consumer(joinConsumer)
            .build();
    join.rebalanceListener().onPartitionsAssigned(List.of(l0, r0));
    scrape(
        new KafkaJoinMetrics(join, group),
        () -> {
          join.onPoll(
              records(
                  record(l0, 0, T, "o0"),
                  record(l0, 1, T + 20 * MINUTE, "o1"),
                  record(l0, 2, T + MINUTE, "o2"), // late
                  record(r0, 0, T + MINUTE, "p0"),
                  record(r0, 1, T + 21 * MINUTE, "p1")),
              ConsumerRecord::key,
              ConsumerRecord::value,
              ConsumerRecord::value);
          assertThat(join.pollResults()).as("the join made rows").isNotEmpty();
        });

    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build();
    scrape(
        new TumblingWindowsMetrics(windows, group),
        () -> {
          windows.add("p0", T + MINUTE, "a", 1L);
          windows.add("p0", T + 6 * MINUTE, "a", 1L);
          windows.add("p0", T, "a", 1L); // late
          assertThat(windows.pollFinalized()).isNotEmpty();
        });

    WatermarkTracker tracker =
        WatermarkTracker.builder()
            .idleTimeout(Duration.ofMinutes(1))
            .maxFutureSkew(Duration.ofMinutes(1))
            .clock(clock)
            .build();
    scrape(
        new WatermarkTrackerMetrics(tracker, group),
        () -> {
          tracker.observe("p0", T - 30_000);
          tracker.observe("p1", T + 10 * MINUTE); // beyond the guard
        });

    DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
    scrape(
        new DisorderMetrics(recorder, group),
        () -> {
          SourceDisorder p0 = recorder.source("p0");
          recorder.record(p0, 1_000);
          recorder.record(p0, 800);
          recorder.recordLate(p0, 700, 900);
          recorder.publish();
        });
  }

  static void feed(KafkaWindows<String, Long, Long> windows) {
    windows.onPoll(
        records(record(P0, 0, T + MINUTE), record(P0, 1, T + 16 * MINUTE), record(P1, 0, T)),
        ConsumerRecord::key,
        r -> 1L);
    windows.pollFinalized();
  }

  /** Binds {@code binder}, does the {@code work}, and adds what the scrape exports. */
  static void scrape(MeterBinder binder, Runnable work) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    binder.bindTo(registry);
    work.run();
    if (binder instanceof KafkaWindowsMetrics k) {
      k.refresh();
    }
    for (Meter m : registry.getMeters()) {
      METERS.add(m.getId().getName());
    }
    Pattern sample = Pattern.compile("^(lowwater_[a-z_]+)(?:\\{(.*)\\})? .*$");
    Pattern label = Pattern.compile("([a-z_]+)=\"");
    registry
        .scrape()
        .lines()
        .forEach(
            l -> {
              Matcher m = sample.matcher(l);
              if (m.matches()) {
                Set<String> keys = SCRAPED.computeIfAbsent(m.group(1), k -> new TreeSet<>());
                if (m.group(2) != null) {
                  Matcher lm = label.matcher(m.group(2));
                  while (lm.find()) {
                    keys.add(lm.group(1));
                  }
                }
              }
            });
  }

  static Set<String> metricsIn(String text) {
    return find(METRIC, text, 0);
  }

  static Set<String> find(Pattern p, String text, int group) {
    Set<String> names = new TreeSet<>();
    Matcher m = p.matcher(text);
    while (m.find()) {
      names.add(m.group(group));
    }
    return names;
  }

  /** README.md, docs/*.md and every file under ops/. */
  static List<Path> documented() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(Path.of("README.md"));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    try (Stream<Path> ops = Files.walk(Path.of("ops"))) {
      ops.filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    return files;
  }

  static void eachDocumented(Consumer<Path> check) throws IOException {
    for (Path p : documented()) {
      check.accept(p);
    }
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theScrapeHasEveryMeterOfEveryBinder() {
    // the reference itself: a name a binder did not register cannot vouch for a doc
    assertThat(SCRAPED)
        .containsKeys(
            "lowwater_partition_session_oldest_age_milliseconds",
            "lowwater_partition_lag_records",
            "lowwater_last_poll_age_milliseconds",
            "lowwater_join_rows_total",
            "lowwater_join_rows_suppressed_rows_total",
            "lowwater_sources_suspect_time_unit_sources_total",
            "lowwater_disorder_lag_percentile_milliseconds");
    assertThat(SCRAPED.get("lowwater_events_late_events_total")).contains("group", "side");
  }

  @Test
  void everyPrometheusNameInTheDocsAndOpsFilesIsInAScrapeWithItsLabels() throws IOException {
    List<String> wrong = new ArrayList<>();
    eachDocumented(
        p -> {
          String text = read(p);
          for (String name : metricsIn(text)) {
            if (!SCRAPED.containsKey(name)) {
              wrong.add(p + ": " + name + " is not in a scrape");
            }
          }
          Matcher m = METRIC_LABEL.matcher(text);
          while (m.find()) {
            Set<String> keys = SCRAPED.get(m.group(1));
            if (keys != null && !keys.contains(m.group(2))) {
              wrong.add(p + ": " + m.group(1) + " has no label " + m.group(2) + ", only " + keys);
            }
          }
        });
    assertThat(wrong).as("scraped: %s", SCRAPED.keySet()).isEmpty();
  }

  @Test
  void everyMicrometerNameInTheDocsIsAMeterOfABinder() throws IOException {
    List<String> wrong = new ArrayList<>();
    eachDocumented(
        p -> {
          if (NO_DOTTED_CHECK.contains(p)) {
            return;
          }
          for (String name : find(METER, read(p), 0)) {
            if (!METERS.contains(name) && !NOT_METERS.contains(name)) {
              wrong.add(p + ": " + name + " is not a meter");
            }
          }
        });
    assertThat(wrong).as("meters: %s", METERS).isEmpty();
  }

  @Test
  void everyExportedNameIsListedInTheMetricsPage() throws IOException {
    String metrics = Files.readString(METRICS_DOC);
    assertThat(metricsIn(metrics)).as("docs/metrics.md").containsAll(SCRAPED.keySet());
    assertThat(find(METER, metrics, 0)).as("docs/metrics.md").containsAll(METERS);
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
    assertThat(SCRAPED.keySet()).as("the metrics the dashboard queries").containsAll(used);
  }

  @Test
  void everyAlertQueriesExportedMetricsAndHasARunbookSectionThatExists() throws IOException {
    String alerts = Files.readString(ALERTS);
    assertThat(SCRAPED.keySet()).as("the metrics the alerts use").containsAll(metricsIn(alerts));
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

  /** Issue 45, item 5: a stall, which no other meter shows, has an alert. */
  @Test
  void aStalledLoopHasAnAlertOnTheTimeSinceTheLastPoll() throws IOException {
    String alerts = Files.readString(ALERTS);
    int at = alerts.indexOf("- alert: LowwaterLoopStalled");
    assertThat(at).as("the stall alert").isNotNegative();
    int next = alerts.indexOf("- alert:", at + 1);
    String rule = alerts.substring(at, next < 0 ? alerts.length() : next);
    assertThat(metricsIn(rule)).containsExactly("lowwater_last_poll_age_milliseconds");
    assertThat(rule).contains("docs/operations.md#a-stalled-loop");
  }

  /** A heading's anchor as GitHub makes it: lower case, spaces to hyphens, punctuation dropped. */
  static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 -]", "").trim().replace(' ', '-');
  }
}
