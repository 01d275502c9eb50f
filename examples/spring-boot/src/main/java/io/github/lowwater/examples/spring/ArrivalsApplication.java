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
import org.springframework.beans.factory.annotation.Value;
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
  LowwaterListener<String, String, String, Long, Long> arrivals(
      JdbcTemplate jdbc,
      @Value("${arrivals.topic}") String topic,
      @Value("${arrivals.group}") String group) {
    return LowwaterListener.<String, String, String, Long, Long>builder(topic)
        .groupId(group)
        .windows(
            () ->
                KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                    .allowedLateness(Duration.ofSeconds(30)))
        .mapper(ConsumerRecord::key, record -> 1L)
        .rowWriter(rows -> upsert(jdbc, rows))
        .concurrency(2)
        .build();
  }

  /**
   * One row per (window, partition, line), written again with the same value after a hand-over. A
   * complete row is upserted; a row marked incomplete (records this reading lacks may belong to it:
   * an offset reset without a checkpoint, records deleted by retention) is inserted only where the
   * table has no row yet, so it never overwrites a complete one (the README's loop).
   */
  static void upsert(JdbcTemplate jdbc, List<WindowResult<String, Long>> rows) {
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
}
