package io.github.lowwater.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** Two instances of the service in one group, one stopped mid-run: every arrival counted once. */
class ArrivalsGroupTest {

  static final long START = Instant.parse("2026-03-02T06:00:00Z").toEpochMilli();
  static final long WINDOW = Duration.ofMinutes(5).toMillis();

  final LowwaterBroker broker = LowwaterBroker.shared();
  final Map<String, Long> truth = new TreeMap<>();

  @Test
  void twoInstancesThroughADeployCountEveryArrivalOnce() throws Exception {
    broker.createTopic("arrivals", 4);
    produce(0, 900); // 15 minutes, one arrival a second per partition
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    JdbcTemplate jdbc = b.getBean(JdbcTemplate.class); // one in-memory database for both
    awaitRows(jdbc);
    a.close(); // a deploy stops one instance: its partitions move to the other
    produce(900, 1800);
    produce(3600 * 2, 3600 * 2 + 1); // one arrival two hours later closes every window before it
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

  ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(ArrivalsApplication.class)
        .web(WebApplicationType.NONE)
        .run("--spring.kafka.bootstrap-servers=" + broker.bootstrapServers()); // over the file's
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

  void awaitRows(JdbcTemplate jdbc) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (counted(jdbc).isEmpty()) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** Arrivals at seconds {@code from} to {@code to} on each partition, lines L1 to L3. */
  void produce(int from, int to) throws Exception {
    java.util.List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < 4; p++) {
        for (int s = from; s < to; s++) {
          long time = START + s * 1000L;
          String line = "L" + (1 + (s + p) % 3);
          sent.add(producer.send(new ProducerRecord<>("arrivals", p, time, line, "arrival")));
          if (time < START + 3600_000) {
            truth.merge((time - time % WINDOW) + "/" + line, 1L, Long::sum);
          }
        }
      }
      for (java.util.concurrent.Future<?> f : sent) {
        f.get(); // the truth is what the topic holds
      }
    }
  }
}
