package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.TestGroup;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 36 on the real broker: the window shapes through a group's scale-out to three, a crash (no
 * close, no commit) and a restart, both group protocols, over four days of records across the start
 * of daylight saving time in Berlin. Daily windows in Europe/Berlin ({@link CalendarPeriod#days}):
 * one row per (day, partition, key), each day as long as Berlin's clocks make it (a 23-hour day).
 * Sliding windows of 90 minutes ({@link KafkaWindows#sliding}): one row per distinct set of a
 * (partition, key)'s records within 90 minutes of each other. The sink follows the README's loop (a
 * complete row is upserted, an incomplete one only inserted); it must end equal to the rows
 * computed from what was produced.
 */
class WindowShapesGroupBrokerTest {

  private static final int PARTITIONS = 4;
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final CalendarPeriod DAYS = CalendarPeriod.days(BERLIN);
  private static final long BASE =
      ZonedDateTime.parse("2026-03-27T18:00+01:00[Europe/Berlin]").toInstant().toEpochMilli();
  private static final Duration LATENESS = Duration.ofHours(3);
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final long SLIDING_DIFFERENCE = Duration.ofMinutes(90).toMillis();

  private final LowwaterBroker broker = LowwaterBroker.shared();

  /** (partition, key) to the event times produced, as the topic holds them. */
  private final Map<String, List<Long>> produced = new TreeMap<>();

  /** The sink, the same keys. */
  private final Map<String, Long> sink = new TreeMap<>();

  private final List<String> rewrites = new ArrayList<>();

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aGroupWritesDailyRowsInAZoneExactlyThroughScalingACrashAndARestart(GroupProtocol protocol) {
    run(
        "calendar-" + protocol.name().toLowerCase(Locale.ROOT),
        protocol,
        consumer ->
            KafkaWindows.builder(DAYS, Aggregators.count())
                .allowedLateness(LATENESS)
                .consumer(consumer)
                .build());
    Map<String, Long> truth = new TreeMap<>();
    produced.forEach(
        (partitionKey, times) -> {
          for (long t : times) {
            truth.merge(DAYS.startOf(t) + "/" + DAYS.endOf(t) + "/" + partitionKey, 1L, Long::sum);
          }
        });
    assertThat(sink).isEqualTo(truth);
    assertThat(truth.keySet())
        .as("the 23-hour day is among them")
        .anyMatch(row -> row.startsWith(DAYS.startOf(BASE + Duration.ofDays(2).toMillis()) + "/"));
    long dst = DAYS.startOf(BASE + Duration.ofDays(2).toMillis());
    assertThat(DAYS.endOf(dst) - dst).isEqualTo(Duration.ofHours(23).toMillis());
  }

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aGroupWritesSlidingWindowRowsExactlyThroughScalingACrashAndARestart(GroupProtocol protocol) {
    run(
        "sliding-" + protocol.name().toLowerCase(Locale.ROOT),
        protocol,
        consumer ->
            KafkaWindows.sliding(Duration.ofMillis(SLIDING_DIFFERENCE), Aggregators.count())
                .allowedLateness(LATENESS)
                .consumer(consumer)
                .build());
    // Rule 77, from the text: the window ending at e exists iff a record lies at e - 1, or one at
    // e - d - 2 and one in [e - d - 1, e); it counts the records in it.
    long d = SLIDING_DIFFERENCE;
    Map<String, Long> truth = new TreeMap<>();
    produced.forEach(
        (partitionKey, times) ->
            KafkaWindowsGroupTest.slidingCounts(times, d)
                .forEach(
                    (start, in) ->
                        truth.put(start + "/" + (start + d + 1) + "/" + partitionKey, in)));
    assertThat(sink).isEqualTo(truth);
    assertThat(truth.values()).as("windows of several records").anyMatch(n -> n > 2);
  }

  private void run(
      String name,
      GroupProtocol protocol,
      java.util.function.Function<
              org.apache.kafka.clients.consumer.Consumer<String, String>,
              KafkaWindows<String, Long, Long>>
          windows) {
    String topic = name;
    broker.createTopic(topic, PARTITIONS);
    Map<String, Object> config = GroupClients.consumer(broker.bootstrapServers(), name, protocol);
    Map<TopicPartition, Long> ends = new HashMap<>();
    try (TestGroup<String, String, KafkaWindows<String, Long, Long>> group =
        new TestGroup<>(
            config,
            new StringDeserializer(),
            new StringDeserializer(),
            List.of(topic),
            windows::apply,
            KafkaWindows::rebalanceListener)) {
      var a = group.join();
      var b = group.join();
      produce(topic, 0, 40, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      var c = group.join(); // scale out
      produce(topic, 40, 60, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      group.crash(b); // no close, no commit
      group.awaitStable(DEADLINE, this::loop);
      var d = group.join(); // the restart
      produce(topic, 60, 96, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> group.hasRead(ends), DEADLINE, this::loop);

      for (var m : group.live()) {
        m.participant().finishAll(); // the end of this bounded input
        write(m.participant().pollFinalized());
        m.consumer().commitSync(m.participant().committableOffsets());
        assertThat(m.participant().stats().late()).as("late at %s", m).isZero();
      }
      assertThat(List.of(a, c, d)).allSatisfy(m -> assertThat(group.live()).contains(m));
    }
    assertThat(rewrites).as("complete rows rewritten with another value").isEmpty();
  }

  /** One turn of the README's loop: hand the poll over, write, commit. */
  private void loop(
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> member,
      ConsumerRecords<String, String> records) {
    KafkaWindows<String, Long, Long> windows = member.participant();
    windows.onPoll(records, ConsumerRecord::key, r -> 1L);
    write(windows.pollFinalized());
    try {
      member.consumer().commitSync(windows.committableOffsets());
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // the next poll completes the rebalance; the partition's next owner starts from the last one
    }
  }

  private void write(List<WindowResult<String, Long>> rows) {
    for (WindowResult<String, Long> r : rows) {
      String row =
          r.start()
              + "/"
              + r.end()
              + "/"
              + ((TopicPartition) r.source()).partition()
              + "/"
              + r.key();
      if (r.isComplete()) {
        Long before = sink.put(row, r.value());
        if (before != null && !before.equals(r.value()) && rewrites.size() < 10) {
          rewrites.add(row + ": " + before + " -> " + r.value());
        }
      } else {
        sink.putIfAbsent(row, r.value()); // never over a complete row
      }
    }
  }

  /**
   * Hours {@code from} to {@code to} after {@link #BASE}: about a record per partition and hour,
   * keys of three, up to two hours out of order (within the lateness).
   */
  private void produce(String topic, int from, int to, Map<TopicPartition, Long> ends) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    List<String> partitionKeys = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            GroupClients.producer(broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int p = 0; p < PARTITIONS; p++) {
        Random random = new Random(from * 17L + p);
        for (int h = from; h < to; h++) {
          for (int n = random.nextInt(3); n > 0; n--) {
            long t = BASE + h * 3_600_000L + random.nextInt(3_600_000);
            if (random.nextInt(5) == 0) {
              t -= random.nextInt(7_200_000);
            }
            String key = "shop" + random.nextInt(3);
            sent.add(producer.send(new ProducerRecord<>(topic, p, t, key, "1")));
            partitionKeys.add(p + "/" + key);
            times.add(t);
          }
        }
      }
      producer.flush();
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata md = sent.get(i).get(); // the truth is what the topic holds
        produced.computeIfAbsent(partitionKeys.get(i), k -> new ArrayList<>()).add(times.get(i));
        ends.merge(new TopicPartition(md.topic(), md.partition()), md.offset() + 1, Math::max);
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("a send failed", e);
    }
  }
}
