package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.RowKey;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.OutputTopicReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Exactly once through {@code TransactionalSink} under Spring Boot: two instances, three consumers,
 * each with its own {@code transactional.id}, through a restart; a {@code read_committed} reader of
 * the output topic sees every row once, and the rows sum to the truth.
 */
class SpringTransactionalBrokerTest {

  private static final int PARTITIONS = 4;

  private final LowwaterBroker broker = LowwaterBroker.shared();
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T01:00:00Z"));

  @Test
  void aReadCommittedReaderSeesEveryRowOnceThroughARestart() throws Exception {
    String id = "spring-tx";
    broker.createTopic(id, PARTITIONS);
    broker.createTopic(id + "-out", 2);
    Feed feed =
        new Feed(
            broker.bootstrapServers(),
            id,
            PARTITIONS,
            Instant.parse("2026-01-01T00:50:00Z").toEpochMilli());
    String[] properties = {
      "spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
      "spring.kafka.consumer.max-poll-records=50",
      "spring.kafka.consumer.auto-offset-reset=earliest",
      "spring.kafka.consumer.isolation-level=read-committed"
    };
    List<CountingApp.Instance> all = new ArrayList<>();
    try {
      feed.produce(0, 200);
      CountingApp.Instance a = transactional(id, 2, "app-a", all).start(properties);
      CountingApp.Instance b = transactional(id, 1, "app-b", all).start(properties);
      SpringGroupBrokerTest.await(
          () -> !a.windows().isEmpty() && !b.windows().isEmpty(), "both instances hold partitions");
      feed.produce(200, 400);
      b.stop(); // a restart of b: same prefix, same transactional ids
      CountingApp.Instance b2 = transactional(id, 1, "app-b", all).start(properties);
      feed.produce(400, 600);
      SpringGroupBrokerTest.await(
          () -> SpringGroupBrokerTest.drained(id, a, b2), "every partition read to its end");
      clock.advance(Duration.ofMinutes(3)); // past the quiet period and the allowed lateness
      SpringGroupBrokerTest.await(
          () -> summed(read(id)).equals(feed.truth), "the committed rows equal the truth");

      Map<String, Integer> times = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : read(id)) {
        times.merge(row(r), 1, Integer::sum);
      }
      assertThat(times).allSatisfy((row, n) -> assertThat(n).as(row).isEqualTo(1));
    } finally {
      for (CountingApp.Instance i : all) {
        i.stop();
      }
    }
  }

  private CountingApp.Instance transactional(
      String id, int concurrency, String prefix, List<CountingApp.Instance> all) {
    CountingApp.Instance i =
        new CountingApp.Instance(
            id, id + "-group", concurrency, clock, new Rows(), id + "-out", prefix);
    all.add(i);
    return i;
  }

  private List<ConsumerRecord<byte[], byte[]>> read(String id) {
    return OutputTopicReader.readCommitted(
        broker.bootstrapServers(), id + "-out", Duration.ofSeconds(30));
  }

  private static String row(ConsumerRecord<byte[], byte[]> r) {
    RowKey key = RowKey.parse(r.key());
    return key.start()
        + "/"
        + key.partition()
        + "/"
        + new String(key.key(), StandardCharsets.UTF_8);
  }

  private static Map<String, Long> summed(List<ConsumerRecord<byte[], byte[]>> records) {
    Map<String, Long> latest = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      latest.put(row(r), ByteBuffer.wrap(r.value()).getLong());
    }
    Map<String, Long> summed = new TreeMap<>();
    latest.forEach((row, n) -> summed.merge(row.replaceFirst("/\\d+/", "/"), n, Long::sum));
    return summed;
  }
}
