package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamJoin} against a real peer, Kafka Streams 4.4.0's {@code KStream.join}, {@code
 * leftJoin} and {@code outerJoin} with {@code JoinWindows.ofTimeDifferenceAndGrace(d, grace)} on
 * its {@code TopologyTestDriver}: the same random feeds of two topics, one task. The mapping
 * (docs/semantics.md, "Two streams against Kafka Streams"): our interval is {@code within(d)}, our
 * allowed lateness is its grace, and one source carries both topics, since its stream time is the
 * newest time of either side. Each feed ends with a record of each side far ahead, which makes it
 * emit the unmatched rows it still holds (it emits them only when a record arrives).
 *
 * <p>Every row either side has must be on the other side, key, time and value, except the rows of
 * two documented differences, each told apart by a predicate and counted:
 *
 * <ol>
 *   <li><b>It joins records we call late.</b> Its stores keep each side for {@code 2d + grace} of
 *       stream time, so a record up to {@code d} behind our watermark still finds partners there;
 *       ours are on the late path (rule 68). Its rows that hold a record we called late; and, in
 *       left and outer joins, our unmatched rows of a record that it paired with one of those.
 *   <li><b>It emits an unmatched row it later contradicts.</b> An out-of-order record whose window
 *       already ended ({@code t + d < stream time}, possible when the grace exceeds {@code d}) and
 *       that finds no partner gets its unmatched row at once, and a partner may still arrive within
 *       the grace: it then emits the pair too. Ours waits for the watermark (rule 69). Its
 *       unmatched rows of a record that pairs in ours.
 * </ol>
 */
class PeerJoinTest {

  /** A row: key, time, value. */
  record Row(String key, long time, String value) {}

  /** One record of a feed. */
  record Rec(boolean left, long time, String key, String value) {}

  @Test
  void joinsAgreeWithKafkaStreamsOnRandomFeedsOnceTheDocumentedDifferencesAreSetApart() {
    int compared = 0;
    int lateJoined = 0;
    int contradicted = 0;
    int partnerLate = 0;
    int traces = Trials.of(1_200);
    for (int trace = 0; trace < traces; trace++) {
      Random random = new Random(trace);
      long d = random.nextInt(8);
      long grace = random.nextInt(12);
      JoinType type = JoinType.values()[trace % 3];
      boolean rocksDb = trace % 10 == 0;
      List<Rec> feed = feed(random, d, grace);
      Set<String> late = new HashSet<>();
      List<Row> ours = ours(feed, d, grace, type, late);
      List<Row> peer = peer(feed, d, grace, type, rocksDb);
      String context =
          String.format(
              "trace %d: %s d %d grace %d%s", trace, type, d, grace, rocksDb ? " rocksdb" : "");
      // Ours never holds a late record.
      assertThat(ours).as(context).noneMatch(r -> holdsAny(r, late));
      List<Row> peerCompared = new ArrayList<>();
      List<Row> peerLate = new ArrayList<>();
      for (Row r : peer) {
        (holdsAny(r, late) ? peerLate : peerCompared).add(r);
      }
      lateJoined += peerLate.size();
      List<Row> onlyOurs = new ArrayList<>(ours);
      peerCompared.forEach(onlyOurs::remove);
      List<Row> onlyPeer = new ArrayList<>(peerCompared);
      ours.forEach(onlyPeer::remove);
      List<Row> unmapped = new ArrayList<>();
      for (Row r : onlyOurs) {
        if (isUnmatched(r) && pairsIn(r, peerLate)) {
          partnerLate++;
        } else {
          unmapped.add(r);
        }
      }
      for (Row r : onlyPeer) {
        if (isUnmatched(r) && pairsIn(r, ours) && behindStreamTime(r, feed, d)) {
          contradicted++;
        } else {
          unmapped.add(r);
        }
      }
      assertThat(unmapped)
          .as(
              "%s: rows only ours %s, only the peer's %s; feed %s",
              context, onlyOurs, onlyPeer, feed)
          .isEmpty();
      compared += ours.size() - onlyOurs.size();
    }
    System.out.printf(
        "PeerJoinTest: %d traces, %d rows compared; set apart: (1) %d of its rows joining a"
            + " record we call late, %d unmatched rows of ours whose partner it joined late; (2) %d"
            + " unmatched rows it emitted at once and contradicted with an on-time pair%n",
        traces, compared, lateJoined, partnerLate, contradicted);
    assertThat(compared).as("rows compared").isGreaterThan(traces * 10);
    assertThat(lateJoined).as("the first difference occurs").isPositive();
    assertThat(contradicted).as("the second difference occurs").isPositive();
    assertThat(partnerLate).as("the first difference's consequence").isPositive();
  }

  /** Whether a row's value holds one of the values (each value occurs once in a feed). */
  private static boolean holdsAny(Row row, Set<String> values) {
    for (String part : row.value().split("\\+")) {
      if (values.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the record of an unmatched row had its window end behind the peer's stream time when it
   * arrived ({@code t + d < streamTime}, the record itself included): when the peer emits the
   * unmatched row at once.
   */
  private static boolean behindStreamTime(Row unmatched, List<Rec> feed, long d) {
    String record = unmatched.value().replace("null", "").replace("+", "");
    long streamTime = Long.MIN_VALUE;
    for (Rec r : feed) {
      streamTime = Math.max(streamTime, r.time());
      if (r.value().equals(record)) {
        return r.time() + d < streamTime;
      }
    }
    throw new AssertionError("no record " + record);
  }

  private static boolean isUnmatched(Row row) {
    return row.value().startsWith("null+") || row.value().endsWith("+null");
  }

  /** Whether the record of an unmatched row appears in a pair among {@code rows}. */
  private static boolean pairsIn(Row unmatched, List<Row> rows) {
    String record = unmatched.value().replace("null", "").replace("+", "");
    return rows.stream()
        .filter(r -> !isUnmatched(r))
        .anyMatch(r -> List.of(r.value().split("\\+")).contains(record));
  }

  /**
   * Mostly ascending times with disorder up to a little more than d + grace, keys of few values.
   */
  private static List<Rec> feed(Random random, long d, long grace) {
    List<Rec> feed = new ArrayList<>();
    long time = 1_000;
    int n = 10 + random.nextInt(70);
    int disorder = (int) (d + grace + 3);
    for (int i = 0; i < n; i++) {
      time += random.nextInt(3);
      boolean left = random.nextBoolean();
      long t = time - random.nextInt(disorder);
      feed.add(new Rec(left, t, "k" + random.nextInt(3), (left ? "l" : "r") + i));
    }
    long flush = time + d + grace + 100;
    feed.add(new Rec(true, flush, "flush", "lflush"));
    feed.add(new Rec(false, flush, "flush", "rflush"));
    return feed;
  }

  private static List<Row> ours(
      List<Rec> feed, long d, long grace, JoinType type, Set<String> late) {
    StreamJoin<String, String, String, String> join =
        StreamJoin.builder(
                JoinInterval.within(Duration.ofMillis(d)),
                (String k, String l, String r) -> l + "+" + r)
            .type(type)
            .allowedLateness(Duration.ofMillis(grace))
            .clock(new ManualClock())
            .lateHandler((side, source, t, w, key, value) -> late.add((String) value))
            .build();
    for (Rec r : feed) {
      if (r.left()) {
        join.addLeft("task", r.time(), r.key(), r.value());
      } else {
        join.addRight("task", r.time(), r.key(), r.value());
      }
    }
    return join.pollResults().stream()
        .filter(r -> !r.key().equals("flush"))
        .map(r -> new Row(r.key(), r.timeMillis(), r.value()))
        .toList();
  }

  private static List<Row> peer(
      List<Rec> feed, long d, long grace, JoinType type, boolean rocksDb) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, String> left =
        builder.stream("left", Consumed.with(Serdes.String(), Serdes.String()));
    KStream<String, String> right =
        builder.stream("right", Consumed.with(Serdes.String(), Serdes.String()));
    JoinWindows windows =
        JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(d), Duration.ofMillis(grace));
    DslStoreSuppliers stores =
        rocksDb
            ? new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers()
            : new BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers();
    StreamJoined<String, String, String> joined =
        StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String())
            .withDslStoreSuppliers(stores);
    ValueJoiner<String, String, String> joiner = (l, r) -> l + "+" + r;
    KStream<String, String> out =
        switch (type) {
          case INNER -> left.join(right, joiner, windows, joined);
          case LEFT -> left.leftJoin(right, joiner, windows, joined);
          case OUTER -> left.outerJoin(right, joiner, windows, joined);
        };
    out.to("out", Produced.with(Serdes.String(), Serdes.String()));
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "peer-join");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    // Emit the unmatched rows at every record, not once a second of (mocked) wall-clock time.
    props.put(
        StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_OUTER_JOIN_SPURIOUS_RESULTS_FIX, 0L);
    List<Row> rows = new ArrayList<>();
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
      TestInputTopic<String, String> l =
          driver.createInputTopic("left", new StringSerializer(), new StringSerializer());
      TestInputTopic<String, String> r =
          driver.createInputTopic("right", new StringSerializer(), new StringSerializer());
      TestOutputTopic<String, String> o =
          driver.createOutputTopic("out", new StringDeserializer(), new StringDeserializer());
      for (Rec rec : feed) {
        (rec.left() ? l : r).pipeInput(rec.key(), rec.value(), rec.time());
      }
      for (TestRecord<String, String> rec : o.readRecordsToList()) {
        if (!rec.key().equals("flush")) {
          rows.add(new Row(rec.key(), rec.timestamp(), rec.value()));
        }
      }
    }
    return rows;
  }
}
