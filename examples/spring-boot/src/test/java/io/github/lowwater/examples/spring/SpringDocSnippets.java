package io.github.lowwater.examples.spring;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.LateRecordHandler;
import io.github.lowwater.spring.LowwaterContainer;
import io.github.lowwater.spring.LowwaterListener;
import io.github.lowwater.spring.boot.LowwaterContainers;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * The code blocks of docs/spring.md, compiled by this example's build against the starter: the root
 * module's {@code DocsCodeBlocksTest} finds each block in a snippet region below (issue 45, item 7;
 * the root module does not compile against the starter). Not a configuration this example runs:
 * {@link ArrivalsApplication} is.
 */
final class SpringDocSnippets {

  private static final Logger log = LoggerFactory.getLogger(SpringDocSnippets.class);

  /** An arrival as a payload: its event time is when the bus arrived. */
  record Arrival(long arrivedAtMillis) {}

  /** Reads an {@link Arrival} from its event time in decimal. */
  static final class ArrivalDeserializer implements Deserializer<Arrival> {
    @Override
    public Arrival deserialize(String topic, byte[] data) {
      return new Arrival(Long.parseLong(new String(data, StandardCharsets.UTF_8)));
    }
  }

  static final class Listener {
    // snippet: spring-listener (docs/spring.md)
    @Bean
    LowwaterListener<String, String, String, Long, Long> arrivals(JdbcTemplate jdbc) {
      return LowwaterListener.<String, String, String, Long, Long>builder("arrivals")
          .groupId("arrivals-5m")
          .windows(
              () ->
                  KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                      .allowedLateness(Duration.ofSeconds(30)))
          .mapper(ConsumerRecord::key, record -> 1L)
          .rowWriter(rows -> write(jdbc, rows)) // complete rows upserted, incomplete ones inserted
          .concurrency(2)
          .build();
    }
    // end snippet
  }

  // snippet: spring-write (docs/spring.md)
  static void write(JdbcTemplate jdbc, List<WindowResult<String, Long>> rows) {
    jdbc.batchUpdate(
        "MERGE INTO arrivals_5m t USING (VALUES (CAST(? AS TIMESTAMP), CAST(? AS INT),"
            + " CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BOOLEAN)))"
            + " AS r(window_start, source_partition, line, arrivals, complete)"
            + " ON t.window_start = r.window_start AND t.source_partition = r.source_partition"
            + " AND t.line = r.line"
            + " WHEN MATCHED AND r.complete THEN UPDATE SET arrivals = r.arrivals, complete = TRUE"
            + " WHEN NOT MATCHED THEN INSERT VALUES"
            + " (r.window_start, r.source_partition, r.line, r.arrivals, r.complete)",
        rows,
        rows.size(),
        (ps, row) -> {
          ps.setTimestamp(1, new Timestamp(row.start()));
          ps.setInt(2, ((TopicPartition) row.source()).partition());
          ps.setString(3, row.key());
          ps.setLong(4, row.value());
          ps.setBoolean(5, row.isComplete());
        });
  }

  // end snippet

  static void containers(ApplicationContext context) {
    // snippet: spring-containers (docs/spring.md)
    LowwaterContainer<?, ?> arrivals =
        context.getBean(LowwaterContainers.class).container("arrivals-5m");
    for (KafkaMessageListenerContainer<?, ?> consumer : arrivals.containers()) {
      log.info("{} holds {}", consumer.getBeanName(), consumer.getAssignedPartitions());
    }
    arrivals.windows(0).stats(); // consumer 0's windows, once it has had partitions
    arrivals.stop(); // its consumers leave the group: a clean hand-over
    arrivals.start();
    // end snippet
  }

  static final class Progress {
    // snippet: spring-progress (docs/spring.md)
    @Bean(destroyMethod = "close") // closed after the containers have stopped
    Admin lowwaterAdmin(KafkaAdmin kafkaAdmin) {
      return Admin.create(kafkaAdmin.getConfigurationProperties()); // Boot's spring.kafka.* settings
    }

    @Bean
    LowwaterListener<String, Arrival, String, Long, Long> arrivals(JdbcTemplate jdbc, Admin admin) {
      return LowwaterListener.<String, Arrival, String, Long, Long>builder("arrival_predictions")
          .groupId("arrivals-5m")
          .windows(
              () ->
                  KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                      .allowedLateness(Duration.ofSeconds(30))
                      .lateRecordHandler(
                          (record, reason, t, end, watermark) -> {
                            if (reason == LateRecordHandler.Reason.LATE) {
                              lateArrivals(jdbc, record, t); // a dead-letter table: topic, partition, offset
                            }
                          })
                      .progressGroup(admin, "arrivals-5m.progress", Duration.ofSeconds(10)))
          .mapper((record, out) -> out.emit(record.value().arrivedAtMillis(), record.key(), 1L))
          .deserializers(StringDeserializer::new, ArrivalDeserializer::new)
          .rowWriter(rows -> write(jdbc, rows))
          .build();
    }
    // end snippet

    static void lateArrivals(JdbcTemplate jdbc, ConsumerRecord<?, ?> record, long t) {
      jdbc.update(
          "INSERT INTO late_arrivals VALUES (?, ?, ?, ?)",
          record.topic(),
          record.partition(),
          record.offset(),
          new Timestamp(t));
    }
  }

  static LowwaterListener<String, String, String, Long, Long> transactional() {
    return LowwaterListener.<String, String, String, Long, Long>builder("arrivals")
        .groupId("arrivals-5m")
        .windows(() -> KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()))
        .mapper(ConsumerRecord::key, record -> 1L)
        // snippet: spring-transactional (docs/spring.md)
        .transactionalSink(
            "arrivals-5m",
            new StringSerializer(),
            new LongSerializer(),
            System.getenv("POD_NAME")) // unique per instance, stable across its restarts
        // end snippet
        .build();
  }

  private SpringDocSnippets() {}
}
