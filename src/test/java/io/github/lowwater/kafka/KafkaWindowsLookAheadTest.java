package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsTest.MINUTE;
import static io.github.lowwater.kafka.KafkaWindowsTest.NOW;
import static io.github.lowwater.kafka.KafkaWindowsTest.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * {@code onPoll}'s lookahead where it is on: each partition's windows hold more than the 16,384
 * keys from which a batch looks its keys up ahead ({@code EventTimeWindows.LOOK_AHEAD_MIN_KEYS}),
 * and polls of up to 500 records mix events (with new {@code String} keys, equal to the stored ones
 * but never the same object, as a deserializer makes them), late events, heartbeats and skipped
 * records. Every row equals that of one {@link TumblingWindows} per partition fed the same events
 * one by one, and so do the late counts.
 */
class KafkaWindowsLookAheadTest {

  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final int KEYS = 40_000;

  /**
   * The value says what the mapper makes of the record: "e" an event, "h" a heartbeat, "s" skip.
   */
  private static final RecordMapper<String, String, String, Long> MAPPER =
      (r, out) -> {
        switch (r.value()) {
          case "e" -> out.emit(r.timestamp(), new String(r.key()), r.offset() % 7 + 1);
          case "h" -> out.observe(r.timestamp());
          default -> {} // skipped
        }
      };

  @Test
  void rowsAndLateCountsEqualThoseOfTheSameEventsAddedOneByOne() {
    ManualClock clock = new ManualClock(NOW.plus(Duration.ofDays(1))); // no event in the future
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofSeconds(30))
            .clock(clock)
            .consumer(new MockConsumer<>("earliest"))
            .build();
    windows.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    Map<TopicPartition, TumblingWindows<String, Long, Long>> reference = new HashMap<>();
    for (TopicPartition tp : List.of(P0, P1)) {
      reference.put(
          tp,
          TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
              .allowedLateness(Duration.ofSeconds(30))
              .clock(clock)
              .build());
    }
    SplittableRandom random = new SplittableRandom(20);
    long[] offset = new long[2];
    long[] time = {T, T};
    List<String> rows = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int poll = 0; poll < 400; poll++) {
      Map<TopicPartition, List<ConsumerRecord<String, String>>> batch = new HashMap<>();
      for (int p = 0; p < 2; p++) {
        TopicPartition tp = p == 0 ? P0 : P1;
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        int n = random.nextInt(500);
        for (int i = 0; i < n; i++) {
          time[p] += random.nextInt(40);
          int roll = random.nextInt(100);
          long t = roll < 5 ? time[p] - MINUTE * (1 + random.nextInt(10)) : time[p]; // some late
          String kind = roll < 95 ? "e" : roll < 98 ? "h" : "s";
          String key = "key-" + random.nextInt(KEYS);
          ConsumerRecord<String, String> r =
              new ConsumerRecord<>(
                  tp.topic(),
                  p,
                  offset[p]++,
                  t,
                  TimestampType.CREATE_TIME,
                  0,
                  0,
                  key,
                  kind,
                  new org.apache.kafka.common.header.internals.RecordHeaders(),
                  java.util.Optional.empty());
          records.add(r);
          TumblingWindows<String, Long, Long> ref = reference.get(tp);
          if (kind.equals("e")) {
            ref.add(tp, t, key, r.offset() % 7 + 1);
          } else if (kind.equals("h")) {
            ref.observe(tp, t);
          } else {
            ref.heartbeat(tp);
          }
        }
        if (!records.isEmpty()) {
          batch.put(tp, records);
        }
      }
      windows.onPoll(new ConsumerRecords<>(batch, Map.of()), MAPPER);
      for (WindowResult<String, Long> r : windows.pollFinalized()) {
        rows.add(r.source() + " " + r.start() + " " + r.key() + " " + r.value());
      }
      for (Map.Entry<TopicPartition, TumblingWindows<String, Long, Long>> e :
          reference.entrySet()) {
        for (WindowResult<String, Long> r : e.getValue().pollFinalized()) {
          expected.add(e.getKey() + " " + r.start() + " " + r.key() + " " + r.value());
        }
      }
    }
    assertThat(rows).hasSizeGreaterThan(2 * 16_384);
    rows.sort(null);
    expected.sort(null);
    assertThat(rows).isEqualTo(expected);
    long late = reference.values().stream().mapToLong(w -> w.stats().late()).sum();
    assertThat(late).as("the trace has late events").isPositive();
    assertThat(windows.stats().late()).isEqualTo(late);
    assertThat(windows.stats().accepted())
        .isEqualTo(reference.values().stream().mapToLong(w -> w.stats().accepted()).sum());
  }
}
