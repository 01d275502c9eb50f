package io.github.lowwater.docs;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.TestGroup;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The code blocks of docs/testing.md; see the package comment. */
@SuppressWarnings("unused")
final class TestingDocSnippets {

  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final Duration WINDOW = Duration.ofMinutes(5);
  static final Duration DEADLINE = Duration.ofSeconds(30);

  /** A sink that upserts rows. */
  interface Sink {
    void upsert(WindowResult<String, Long> row);
  }

  /** A record of key {@code key} at offset {@code offset}, event time {@code T0 + minutes}. */
  static ConsumerRecord<String, String> record(
      TopicPartition tp, long offset, int minutes, String key) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        T0.plus(Duration.ofMinutes(minutes)).toEpochMilli(),
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        "v",
        new RecordHeaders(),
        Optional.empty());
  }

  static void setUp(TopicPartition p0, TopicPartition p1) {
    // snippet: testing.md the setup
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:30:00Z"));
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(1))
            .clock(clock)
            .consumer(consumer) // the listener reads the committed checkpoints through it
            .build();
    consumer.subscribe(List.of("arrivals"), windows.rebalanceListener());
    consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L)); // before the first poll
    consumer.rebalance(List.of(p0, p1)); // runs onPartitionsAssigned
    consumer.addRecord(record(p0, 0, 1, "a")); // offset 0, event time T0 + 1 min
    // end snippet
  }

  static void oneTurn(
      MockConsumer<String, String> consumer, KafkaWindows<String, Long, Long> windows, Sink sink) {
    // snippet: testing.md one turn
    windows.onPoll(consumer.poll(Duration.ofMillis(100)), ConsumerRecord::key, r -> 1L);
    windows.pollFinalized().forEach(sink::upsert);
    consumer.commitSync(windows.committableOffsets());
    // end snippet
  }

  static void restart(
      MockConsumer<String, String> old,
      MockConsumer<String, String> consumer,
      KafkaWindows<String, Long, Long> windows,
      TopicPartition p0,
      TopicPartition p1) {
    // snippet: testing.md a restart
    Map<TopicPartition, OffsetAndMetadata> committed = old.committed(Set.of(p0, p1));
    // new consumer and windows as above, then:
    consumer.subscribe(List.of("arrivals"), windows.rebalanceListener());
    consumer.commitSync(committed); // after subscribe, which clears the mock's committed offsets
    consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
    consumer.rebalance(List.of(p0, p1)); // the listener reads the checkpoints here
    // end snippet
  }

  static void theClock(ManualClock clock) {
    // snippet: testing.md the clock
    // windows built as above, with .quietAdvanceAfter(Duration.ofSeconds(90));
    // one record at T0 + 1 min, polled: nothing closes
    clock.advance(Duration.ofSeconds(89)); // still nothing
    clock.advance(Duration.ofSeconds(1)); // the next onPoll closes the window [T0, T0 + 5 min)
    // end snippet
  }

  private void loop(
      TestGroup.Member<String, String, KafkaWindows<String, Long, Long>> member,
      ConsumerRecords<String, String> records) {
    KafkaWindows<String, Long, Long> windows = member.participant();
    windows.onPoll(records, ConsumerRecord::key, r -> 1L);
    windows.pollFinalized();
    member.consumer().commitSync(windows.committableOffsets());
  }

  private static boolean drained(
      TestGroup<String, String, KafkaWindows<String, Long, Long>> group,
      Map<TopicPartition, Long> ends) {
    return group.hasRead(ends);
  }

  private static void produce(String topic, int from, int to, Map<TopicPartition, Long> ends) {}

  void aGroupTest(
      LowwaterBroker broker,
      Admin admin,
      String groupId,
      String topic,
      GroupProtocol protocol,
      Map<TopicPartition, Long> ends) {
    // snippet: testing.md a group test
    try (TestGroup<String, String, KafkaWindows<String, Long, Long>> group =
        new TestGroup<>(
            GroupClients.consumer(broker.bootstrapServers(), groupId, protocol),
            new StringDeserializer(),
            new StringDeserializer(),
            List.of(topic),
            consumer ->
                KafkaWindows.builder(WINDOW, Aggregators.sumLong()).consumer(consumer).build(),
            KafkaWindows::rebalanceListener)) {
      var a = group.join();
      var b = group.join();
      produce(topic, 0, 300, ends);
      group.awaitStable(DEADLINE, this::loop);
      group.pollUntil(() -> drained(group, ends), DEADLINE, this::loop);
      group.crash(b); // b holds open windows: they must not be lost
      group.awaitStable(DEADLINE, this::loop); // a takes b's partitions from b's commits
      var c = group.join(); // a restart
      produce(topic, 300, 600, ends);
      group.awaitStable(DEADLINE, this::loop);
    }
    // then: the rows written equal the truth of what was produced, no row was rewritten with
    // another
    // value, and CommittedOffsets.withoutMetadata(CommittedOffsets.of(admin, groupId), "lw") is
    // empty
    Map<TopicPartition, OffsetAndMetadata> bare =
        CommittedOffsets.withoutMetadata(CommittedOffsets.of(admin, groupId), "lw");
    // end snippet
  }

  static Map<String, Object> rangeAssigned(
      LowwaterBroker broker, String groupId, GroupProtocol protocol) {
    // snippet: testing.md a range assignor for co-partitioned tasks and joins
    Map<String, Object> config =
        GroupClients.consumer(broker.bootstrapServers(), groupId, protocol);
    if (protocol == GroupProtocol.CLASSIC) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    } else {
      config.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range"); // KIP-848: server-side
    }
    // end snippet
    return config;
  }
}
