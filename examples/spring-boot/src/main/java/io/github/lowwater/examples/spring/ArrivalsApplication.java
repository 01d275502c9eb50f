package io.github.lowwater.examples.spring;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.spring.LowwaterListener;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/** Arrivals per bus line, in 5-minute windows of event time, upserted into {@code arrivals_5m}. */
@SpringBootApplication
public class ArrivalsApplication {

  public static void main(String[] args) {
    SpringApplication.run(ArrivalsApplication.class, args);
  }

  @Bean
  LowwaterListener<String, String, String, Long, Long> arrivals(JdbcTemplate jdbc) {
    return LowwaterListener.<String, String, String, Long, Long>builder("arrivals")
        .groupId("arrivals-5m")
        .windows(
            () ->
                KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                    .allowedLateness(Duration.ofSeconds(30)))
        .mapper(ConsumerRecord::key, record -> 1L)
        .rowWriter(rows -> upsert(jdbc, rows))
        .concurrency(2)
        .build();
  }

  /** One row per (window, partition, line): written again with the same value after a hand-over. */
  static void upsert(JdbcTemplate jdbc, List<WindowResult<String, Long>> rows) {
    jdbc.batchUpdate(
        "MERGE INTO arrivals_5m (window_start, source_partition, line, arrivals) KEY"
            + " (window_start, source_partition, line) VALUES (?, ?, ?, ?)",
        rows,
        rows.size(),
        (ps, row) -> {
          ps.setTimestamp(1, new Timestamp(row.start()));
          ps.setInt(2, ((TopicPartition) row.source()).partition());
          ps.setString(3, row.key());
          ps.setLong(4, row.value());
        });
  }
}
