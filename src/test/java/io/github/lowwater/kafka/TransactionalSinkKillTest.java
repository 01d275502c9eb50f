package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.OutputTopicReader;
import io.github.lowwater.testing.SyntheticFeed.Event;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A real process kill in the middle of a transaction: an instance of {@link TransactionalInstance}
 * runs in a JVM of its own, started by this test, and is killed with {@code SIGKILL} ({@code
 * Process.destroyForcibly}) while blocked before {@code commitTransaction}, its rows in the output
 * topic's log and its offsets sent to the transaction. A successor with the same {@code
 * transactional.id} (a restarted instance) fences it, which aborts the open transaction at once,
 * and after the dead member's session timeout reads every partition to the end from the group's
 * commits. The output topic then holds, for a {@code read_committed} reader, every (window,
 * partition, key) row exactly once, summing to the truth of the input; a {@code read_uncommitted}
 * reader also sees the killed transaction's rows.
 */
class TransactionalSinkKillTest {

  static final String INPUT = "tx-kill-in";
  static final String OUTPUT = "tx-kill-out";
  static final String GROUP = "tx-kill";
  static final String TRANSACTIONAL_ID = "tx-kill-instance-1";
  static final Duration DEADLINE = Duration.ofSeconds(90);

  @Test
  void aProcessKilledInsideATransactionLeavesEveryRowCommittedExactlyOnceByItsSuccessor()
      throws Exception {
    LowwaterBroker broker = LowwaterBroker.shared();
    broker.createTopic(INPUT, 4);
    broker.createTopic(OUTPUT, 2);
    long start = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
    List<Event> events =
        Feed.produce(
            broker.bootstrapServers(),
            INPUT,
            new Feed().append(new int[] {0, 1, 2, 3}, start, start + 3_000_000, 1_000, 5).events());
    Map<TopicPartition, Long> ends = new HashMap<>();
    for (Event e : events) {
      ends.merge(new TopicPartition(INPUT, e.partition()), 1L, Long::sum);
    }

    File log = Files.createTempFile("tx-kill-child-", ".log").toFile();
    Process child =
        new ProcessBuilder(
                new File(System.getProperty("java.home"), "bin/java").getPath(),
                "-cp",
                System.getProperty("java.class.path"),
                TransactionalInstance.class.getName(),
                broker.bootstrapServers(),
                INPUT,
                GROUP,
                OUTPUT,
                TRANSACTIONAL_ID)
            .redirectError(log)
            .start();
    List<byte[]> inFlight = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      long stop = System.nanoTime() + DEADLINE.toNanos();
      String line;
      while ((line = out.readLine()) != null
          && !line.equals(TransactionalInstance.IN_TRANSACTION)) {
        assertThat(System.nanoTime()).as("the child reaches its transaction").isLessThan(stop);
      }
      assertThat(line)
          .as("the child's output (its log: %s)", Files.readString(log.toPath()))
          .isEqualTo(TransactionalInstance.IN_TRANSACTION);
      while (out.ready() || inFlight.isEmpty()) {
        inFlight.add(HexFormat.of().parseHex(out.readLine()));
      }
      child.destroyForcibly(); // SIGKILL: no callback, no leave, no abort
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child is dead").isTrue();
      assertThat(child.exitValue()).as("killed by signal 9").isEqualTo(128 + 9);
    } finally {
      child.destroyForcibly();
    }

    String summary =
        TransactionalInstance.run(
            broker.bootstrapServers(), INPUT, GROUP, OUTPUT, TRANSACTIONAL_ID, ends, DEADLINE);

    List<ConsumerRecord<byte[], byte[]>> committed =
        OutputTopicReader.read(
            broker.bootstrapServers(), OUTPUT, IsolationLevel.READ_COMMITTED, DEADLINE);
    List<ConsumerRecord<byte[], byte[]>> all =
        OutputTopicReader.read(
            broker.bootstrapServers(), OUTPUT, IsolationLevel.READ_UNCOMMITTED, DEADLINE);
    Map<RowKey, Integer> times = new HashMap<>();
    TreeMap<Long, TreeMap<String, Long>> sums = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : committed) {
      RowKey k = RowKey.parse(r.key());
      times.merge(k, 1, Integer::sum);
      sums.computeIfAbsent(k.start(), s -> new TreeMap<>())
          .merge(
              new String(k.key(), StandardCharsets.UTF_8),
              ByteBuffer.wrap(r.value()).getLong(),
              Long::sum);
    }
    Map<RowKey, Integer> seen = new HashMap<>();
    all.forEach(r -> seen.merge(RowKey.parse(r.key()), 1, Integer::sum));
    System.out.printf(
        "tx-kill: %d records, %d committed rows, %d read uncommitted, %d in the killed"
            + " transaction; successor %s%n",
        events.size(), committed.size(), all.size(), inFlight.size(), summary);

    assertThat(times.values()).as("every committed row once").containsOnly(1);
    assertThat(sums)
        .as("the rows summed over partitions vs the truth of the input")
        .isEqualTo(Feed.truth(events, TransactionalInstance.WINDOW.toMillis()));
    for (byte[] key : inFlight) {
      RowKey k = RowKey.parse(key);
      assertThat(seen.get(k)).as("read_uncommitted sees %s aborted and committed", k).isEqualTo(2);
      assertThat(times.get(k)).as("%s committed once, by the successor", k).isEqualTo(1);
    }
  }
}
