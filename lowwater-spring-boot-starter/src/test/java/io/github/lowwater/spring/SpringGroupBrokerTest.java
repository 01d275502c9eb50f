package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.test.CommittedOffsets;
import io.github.lowwater.test.GroupClients;
import io.github.lowwater.test.LowwaterBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lowwater hosted by Spring Boot, on the broker: instances of one service (Spring application
 * contexts, three consumers between them) through a restart and a crash, both group protocols. The
 * sink ends with exactly the truth computed from what was produced; no row is rewritten with
 * another value; every commit the group holds carries a checkpoint; a poison record goes to the
 * dead-letter handler and costs nothing else; and the last windows close by the quiet-period rule,
 * driven by the containers' idle ticks, once the fake clock passes the quiet period.
 */
class SpringGroupBrokerTest {

  private static final int PARTITIONS = 4;
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private final LowwaterBroker broker = LowwaterBroker.shared();

  /** The wall clock stands 10 minutes after the feed's start; it only moves when told to. */
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T01:00:00Z"));

  private final long base = Instant.parse("2026-01-01T00:50:00Z").toEpochMilli();

  @ParameterizedTest
  @EnumSource(GroupProtocol.class)
  void aGroupOfApplicationsThroughARestartAndACrashWritesExactlyTheTruth(GroupProtocol protocol)
      throws Exception {
    String id = "spring-group-" + protocol.name().toLowerCase(java.util.Locale.ROOT);
    broker.createTopic(id, PARTITIONS);
    Feed feed = new Feed(broker.bootstrapServers(), id, PARTITIONS, base);
    Rows rows = new Rows();
    String[] properties = properties(protocol);
    List<CountingApp.Instance> all = new ArrayList<>();
    try {
      feed.produce(0, 200, 50); // the record of 50 s on partition 0 is poison
      CountingApp.Instance a = instance(id, 2, rows, all).start(properties);
      CountingApp.Instance b = instance(id, 1, rows, all).start(properties);
      await(() -> a.writes.get() > 0 && b.writes.get() > 0, "both instances write");
      assertEveryCommitCarriesACheckpoint(id);

      a.stop(); // a deploy: a plain stop, its partitions move to b
      CountingApp.Instance a2 = instance(id, 2, rows, all).start(properties);
      feed.produce(200, 400);
      b.crashAfterNextWrite = true; // b writes rows, then dies before its commit
      assertThat(b.crashed.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("b crashed").isTrue();
      feed.produce(400, 600);

      // a2 holds every partition once b is out of the group, and has read them to the end.
      await(() -> drained(id, a2), "a2 reads every partition to its end");
      assertThat(rows.summed())
          .as("the last windows wait for the quiet period")
          .isNotEqualTo(feed.truth);
      // No record for the quiet period (30 s): the watermark follows the wall clock minus the
      // allowed lateness (2 min by default), which passes the last window's end.
      clock.advance(Duration.ofMinutes(3));
      awaitQuietly(() -> rows.summed().equals(feed.truth));
      assertThat(rows.summed())
          .as("the rows summed over partitions (%s)", describe(a2))
          .isEqualTo(feed.truth);

      assertThat(rows.conflicts).as("rows rewritten with another value").isEmpty();
      List<String> deadLetters = new ArrayList<>();
      all.forEach(i -> deadLetters.addAll(i.deadLetters));
      assertThat(deadLetters).contains(id + "-0@50").allMatch((id + "-0@50")::equals);
      assertEveryCommitCarriesACheckpoint(id);
      // Every window written, so every partition is committed at its end, with no record held.
      await(() -> committedAtTheEnd(id), "every partition committed at its end");
    } finally {
      for (CountingApp.Instance i : all) {
        i.stop();
      }
    }
  }

  private CountingApp.Instance instance(
      String id, int concurrency, Rows rows, List<CountingApp.Instance> all) {
    CountingApp.Instance i = new CountingApp.Instance(id, id + "-group", concurrency, clock, rows);
    all.add(i);
    return i;
  }

  /** Spring Boot's properties for an instance: the test kit's group settings for the protocol. */
  private String[] properties(GroupProtocol protocol) {
    List<String> p = new ArrayList<>();
    p.add("spring.kafka.bootstrap-servers=" + broker.bootstrapServers());
    p.add("spring.kafka.consumer.max-poll-records=50");
    GroupClients.consumer(broker.bootstrapServers(), "unused", protocol)
        .forEach(
            (key, value) -> {
              if (!key.equals("bootstrap.servers") && !key.equals("group.id")) {
                p.add("spring.kafka.consumer.properties." + key + "=" + value);
              }
            });
    // A frozen member leaves the group after max.poll.interval.ms, under either protocol.
    p.add(
        "spring.kafka.consumer.properties.max.poll.interval.ms=" + GroupClients.SESSION_TIMEOUT_MS);
    return p.toArray(String[]::new);
  }

  /** Every partition is held by a consumer of the instances that has read it to its end. */
  static boolean drained(String topic, CountingApp.Instance... instances) {
    Set<TopicPartition> done = new HashSet<>();
    for (CountingApp.Instance instance : instances) {
      for (KafkaWindows<?, ?, ?> w : instance.windows()) {
        for (TopicPartition tp : w.partitions()) {
          if (w.processedLag(tp) == 0) {
            done.add(tp);
          }
        }
      }
    }
    return done.size() == PARTITIONS;
  }

  private void assertEveryCommitCarriesACheckpoint(String id) {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed = CommittedOffsets.of(admin, id + "-group");
      assertThat(committed).isNotEmpty();
      assertThat(CommittedOffsets.withoutMetadata(committed, "lw"))
          .as("commits without a checkpoint")
          .isEmpty();
    }
  }

  private boolean committedAtTheEnd(String id) {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed = CommittedOffsets.of(admin, id + "-group");
      return committed.size() == PARTITIONS
          && committed.values().stream().allMatch(om -> om.offset() == 600);
    }
  }

  /** What the windows of an instance say: for a failure's message. */
  static String describe(CountingApp.Instance instance) {
    StringBuilder s = new StringBuilder();
    for (KafkaWindows<?, ?, ?> w : instance.windows()) {
      s.append(w.stats()).append(' ');
      for (TopicPartition tp : w.partitions()) {
        s.append(tp).append(" frontier ").append(w.frontier(tp)).append(" lag ");
        s.append(w.processedLag(tp)).append("; ");
      }
    }
    return s.toString();
  }

  /** Waits up to the deadline for {@code condition}; the caller asserts what it means. */
  static void awaitQuietly(BooleanSupplier condition) throws InterruptedException {
    long stop = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() - stop < 0) {
      Thread.sleep(50); // polling with a deadline
    }
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long stop = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - stop).as("%s within %s", what, DEADLINE).isNegative();
      Thread.sleep(50); // polling with a deadline
    }
  }
}
