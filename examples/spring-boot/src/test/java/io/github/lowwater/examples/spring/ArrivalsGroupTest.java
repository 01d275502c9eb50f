package io.github.lowwater.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.spring.LowwaterContainer;
import io.github.lowwater.spring.boot.LowwaterContainers;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.JvmInstance;
import io.github.lowwater.test.LowwaterBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Instances of the service in one group on the test kit's broker: one stopped mid-run, every
 * arrival counted once; and an offset reset without a checkpoint, which leaves complete rows as
 * they were.
 */
class ArrivalsGroupTest {

  static final long START = Instant.parse("2026-03-02T06:00:00Z").toEpochMilli();
  static final long WINDOW = Duration.ofMinutes(5).toMillis();

  final LowwaterBroker broker = LowwaterBroker.shared();

  @Test
  void twoInstancesThroughADeployCountEveryArrivalOnce() throws Exception {
    broker.createTopic("arrivals", 4);
    Map<String, Long> truth = new TreeMap<>();
    produce("arrivals", 4, 0, 900, truth); // 15 minutes, one arrival a second per partition
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    JdbcTemplate jdbc = b.getBean(JdbcTemplate.class); // one in-memory database for both
    awaitRows(jdbc);
    a.close(); // a deploy stops one instance: its partitions move to the other
    produce("arrivals", 4, 900, 1800, truth);
    // one arrival two hours later closes every window before it
    produce("arrivals", 4, 3600 * 2, 3600 * 2 + 1, truth);
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!counted(jdbc).equals(truth) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(counted(jdbc)).isEqualTo(truth);
    } finally {
      b.close();
    }
  }

  /**
   * Guards the sink against the overwrite of issue 45 (item 2): an offset reset that leaves no
   * checkpoint ({@code kafka-consumer-groups --reset-offsets}) makes the next reading start inside
   * a window the service had written; that window's rows come again with part of its records,
   * marked incomplete, and an upsert that ignored {@code isComplete()} wrote them over the complete
   * rows (a count of 100 became 50). The complete rows must keep their values.
   */
  @Test
  void anOffsetResetWithoutACheckpointLeavesEveryCompleteRowAsItWas() throws Exception {
    String topic = "arrivals-reset";
    broker.createTopic(topic, 2);
    Map<String, Long> truth = new TreeMap<>();
    produce(topic, 2, 0, 900, truth);
    produce(topic, 2, 3600 * 2, 3600 * 2 + 1, truth); // closes every window before it
    String database = "jdbc:h2:mem:" + topic + ";DB_CLOSE_DELAY=-1"; // outlives the contexts
    String[] args = {
      "--arrivals.topic=" + topic, "--arrivals.group=" + topic, "--spring.datasource.url=" + database
    };
    ConfigurableApplicationContext first = start(args);
    JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(database, "sa", "")); // Boot's user
    try {
      awaitCheckpoints(topic, 2, 900); // every window before the last arrival written, committed
    } finally {
      first.close();
    }
    assertThat(counted(jdbc)).isEqualTo(truth);
    Map<String, String> written = rows(jdbc);

    // The operator resets the group into the first window, half way: offsets without metadata.
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> reset = new HashMap<>();
      for (int p = 0; p < 2; p++) {
        reset.put(new TopicPartition(topic, p), new OffsetAndMetadata(150));
      }
      admin.alterConsumerGroupOffsets(topic, reset).all().get();
    }

    ConfigurableApplicationContext second = start(args);
    try {
      awaitCheckpoints(topic, 2, 900); // the whole re-read written and committed again
      long incomplete = 0;
      LowwaterContainer<?, ?> container = second.getBean(LowwaterContainers.class).container(topic);
      for (int i = 0; i < 2; i++) {
        if (container.windows(i) != null) { // null: that consumer never had a partition
          incomplete += container.windows(i).incompleteRows();
        }
      }
      assertThat(incomplete).as("rows the re-read marked incomplete").isPositive();
      assertThat(rows(jdbc)).isEqualTo(written);
    } finally {
      second.close();
    }
  }

  /**
   * Instances killed as processes are killed, each in a JVM of its own (the test kit's {@link
   * JvmInstance}): the first halts between its first write and its commit, the second takes its
   * partitions over and is killed by SIGKILL after a commit, with new records to read, and a third
   * instance finishes. Every arrival is counted once.
   */
  @Test
  void instancesHaltedAfterAWriteOrKilledBySigkillLoseNoArrival(@TempDir Path dir)
      throws Exception {
    String topic = "arrivals-killed";
    broker.createTopic(topic, 4);
    Map<String, Long> truth = new TreeMap<>();
    produce(topic, 4, 0, 900, truth);
    // A file database the JVMs share: this one opens it first and serves it (AUTO_SERVER).
    String database = "jdbc:h2:file:" + dir.resolve("arrivals") + ";AUTO_SERVER=TRUE";
    SingleConnectionDataSource shared = new SingleConnectionDataSource(database, "sa", "", true);
    JdbcTemplate jdbc = new JdbcTemplate(shared);
    try {
      jdbc.execute(
          new String(
              getClass().getResourceAsStream("/schema.sql").readAllBytes(),
              java.nio.charset.StandardCharsets.UTF_8));
      List<String> args =
          List.of(
              "--arrivals.topic=" + topic,
              "--arrivals.group=" + topic,
              "--spring.datasource.url=" + database,
              "--spring.datasource.username=sa", // Boot's default only for an embedded one
              "--spring.sql.init.mode=never",
              "--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
              "--spring.kafka.consumer.properties.session.timeout.ms="
                  + GroupClients.SESSION_TIMEOUT_MS,
              "--spring.kafka.consumer.properties.heartbeat.interval.ms=1000");
      // a alone first: were b in the group, b could write every row before a and a never halt.
      // snippet: jvm-instance (docs/testing.md)
      try (JvmInstance a =
          JvmInstance.start(
              "arrivals-a",
              ArrivalsForTests.class,
              List.of(JvmInstance.haltAfterWrites(1)),
              args)) {
        assertThat(a.awaitExit(Duration.ofSeconds(60)))
            .as("%s", a)
            .isEqualTo(JvmInstance.HALT_STATUS);
      }
      assertThat(counted(jdbc)).as("a wrote, then halted before its commit").isNotEmpty();
      try (JvmInstance b =
          JvmInstance.start("arrivals-b", ArrivalsForTests.class, List.of(), args)) {
        // b has a's partitions (after a's session timeout): it wrote through window [5, 10) of
        // every partition and committed; a halted at its first rows, before offset 330.
        awaitCheckpoints(topic, 4, 600);
        produce(topic, 4, 900, 1800, truth);
        assertThat(b.kill()).as("%s", b).isEqualTo(JvmInstance.SIGKILL_STATUS);
      }
      // end snippet
      produce(topic, 4, 3600 * 2, 3600 * 2 + 1, truth); // closes every window before it
      ConfigurableApplicationContext c = start(args.toArray(String[]::new));
      try {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!counted(jdbc).equals(truth) && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        assertThat(counted(jdbc)).isEqualTo(truth);
      } finally {
        c.close();
      }
    } finally {
      shared.destroy();
    }
  }

  ConfigurableApplicationContext start(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--spring.kafka.bootstrap-servers=" + broker.bootstrapServers()); // over the file's
    return new SpringApplicationBuilder(ArrivalsApplication.class)
        .web(WebApplicationType.NONE)
        .run(all.toArray(String[]::new));
  }

  /**
   * Waits until the group has committed an offset of at least {@code atLeast} with a checkpoint on
   * each of its {@code partitions} partitions.
   */
  void awaitCheckpoints(String group, int partitions, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (Admin admin = broker.admin()) {
      while (true) {
        Map<TopicPartition, OffsetAndMetadata> committed = CommittedOffsets.of(admin, group);
        if (committed.size() == partitions
            && CommittedOffsets.withoutMetadata(committed, "lw").isEmpty()
            && committed.values().stream().allMatch(om -> om.offset() >= atLeast)) {
          return;
        }
        assertThat(System.nanoTime()).as("commits %s", committed).isLessThan(deadline);
        Thread.sleep(100);
      }
    }
  }

  /** Arrivals per (window start, line), summed over partitions, before the closing record. */
  Map<String, Long> counted(JdbcTemplate jdbc) {
    Map<String, Long> counted = new TreeMap<>();
    jdbc.query(
        "SELECT window_start, line, SUM(arrivals) FROM arrivals_5m WHERE window_start < ?"
            + " GROUP BY window_start, line",
        rs -> {
          counted.put(rs.getTimestamp(1).getTime() + "/" + rs.getString(2), rs.getLong(3));
        },
        new java.sql.Timestamp(START + 3600_000));
    return counted;
  }

  /** Every row of the table: (window start, partition, line) to (arrivals, complete). */
  Map<String, String> rows(JdbcTemplate jdbc) {
    Map<String, String> rows = new TreeMap<>();
    jdbc.query(
        "SELECT window_start, source_partition, line, arrivals, complete FROM arrivals_5m",
        rs -> {
          rows.put(
              rs.getTimestamp(1).getTime() + "/" + rs.getInt(2) + "/" + rs.getString(3),
              rs.getLong(4) + (rs.getBoolean(5) ? "" : " (incomplete)"));
        });
    return rows;
  }

  void awaitRows(JdbcTemplate jdbc) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (counted(jdbc).isEmpty()) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /**
   * Arrivals at seconds {@code from} to {@code to} on each partition, lines L1 to L3, added to
   * {@code truth} per (window start, line) when before the closing record.
   */
  void produce(String topic, int partitions, int from, int to, Map<String, Long> truth)
      throws Exception {
    List<Future<?>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < partitions; p++) {
        for (int s = from; s < to; s++) {
          long time = START + s * 1000L;
          String line = "L" + (1 + (s + p) % 3);
          sent.add(producer.send(new ProducerRecord<>(topic, p, time, line, "arrival")));
          if (time < START + 3600_000) {
            truth.merge((time - time % WINDOW) + "/" + line, 1L, Long::sum);
          }
        }
      }
      for (Future<?> f : sent) {
        f.get(); // the truth is what the topic holds
      }
    }
  }
}
