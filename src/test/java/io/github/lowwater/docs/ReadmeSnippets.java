package io.github.lowwater.docs;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;

/** The code blocks of README.md; see the package comment. */
@SuppressWarnings({"unused", "ResultOfMethodCallIgnored"})
final class ReadmeSnippets {

  private ReadmeSnippets() {}

  /** A table of rows keyed by (window, partition, key). */
  interface Sink {
    void upsert(long windowStart, int partition, String key, long value) throws SQLException;

    void insertIfAbsent(long windowStart, int partition, String key, long value)
        throws SQLException;
  }

  /** A table of rows keyed by (window, key). */
  interface WindowSink {
    void write(long start, long end, String key, long value);
  }

  /** A dead-letter topic. */
  interface DeadLetters {
    void send(Object key, Object value);
  }

  static void theLoop(KafkaConsumer<String, String> consumer, Sink sink, boolean running) {
    // snippet: README the loop
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(2))
            .consumer(consumer) // required; enable.auto.commit=false
            .build(); // one result per (window, partition, key)
    consumer.subscribe(List.of("arrival_predictions"), windows.rebalanceListener());
    try {
      while (running) {
        windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
        try {
          for (WindowResult<String, Long> w : windows.pollFinalized()) {
            TopicPartition p = (TopicPartition) w.source();
            if (w.isComplete()) {
              sink.upsert(
                  w.start(), p.partition(), w.key(), w.value()); // sum over partitions on read
            } else { // records this reading lacks may belong to it: never over a complete row
              sink.insertIfAbsent(w.start(), p.partition(), w.key(), w.value());
            }
          }
        } catch (SQLException e) { // the drained rows come again, the same, from the last commit
          windows.rewindToLastCommit(consumer.assignment());
          continue;
        }
        try {
          consumer.commitSync(
              windows.committableOffsets()); // offsets + checkpoints, what is written
        } catch (RebalanceInProgressException | CommitFailedException e) {
          // safe to skip: the next commit, or the partition's next owner, starts from the last one
        }
      }
    } finally {
      consumer.close(); // safe as it is: the next owner resumes from the last commit
    }
    // end snippet
  }

  static void withoutKafka(
      String source,
      long eventTimeMillis,
      String key,
      Long value,
      DeadLetters deadLetters,
      WindowSink sink) {
    // snippet: README without Kafka
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(2))
            .idleTimeout(Duration.ofMinutes(2))
            .lateEventHandler((src, t, end, watermark, k, v) -> deadLetters.send(k, v))
            .build();
    windows.add(source, eventTimeMillis, key, value); // false: late, handled above
    windows.refresh(); // retire idle sources when nothing arrives
    for (WindowResult<String, Long> w : windows.pollFinalized()) {
      sink.write(w.start(), w.end(), w.key(), w.value());
    }
    // end snippet
  }

  static void shapes() {
    // snippet: README shapes
    TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()); // [0,5) [5,10) ...
    HoppingWindows.builder(Duration.ofHours(1), Duration.ofMinutes(5), Aggregators.sumLong());
    // the last hour, every five minutes: one pane
    // update per event, panes combined at emission
    SessionWindows.builder(Duration.ofMinutes(30), Aggregators.sumLong());
    // a key's visit, ended by 30 minutes of silence
    // end snippet
  }

  static void aFakeClock(long t) {
    // snippet: README a fake clock
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()).clock(clock).build();
    w.add("p0", t, "key", 1L);
    clock.advance(Duration.ofMinutes(3)); // idleness is now a one-line test
    w.refresh();
    // end snippet
  }
}
