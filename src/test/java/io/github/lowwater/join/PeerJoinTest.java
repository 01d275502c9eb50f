package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * allowed lateness is its {@code after + grace} ({@code d + grace}: it closes a record's window at
 * {@code t + after + grace} of stream time, we judge a record by its own time against the newest
 * less the lateness), and one source carries both topics, since its stream time is the newest time
 * of either side. Each feed ends with a record of each side far ahead, which makes it emit the
 * unmatched rows it still holds (it emits them only when a record arrives). Half the feeds have
 * disorder up to a little more than {@code d + grace}, half up to {@code 3d + grace}.
 *
 * <p>Every row either side has must be on the other side, key, time and value, except the rows of
 * three documented differences, each told apart by a predicate and counted (issue 45, item 4: the
 * mapping documented before, lateness = grace, missed 42% of its pairs on the narrow feeds; this
 * one misses 2.6%, all of the first kind):
 *
 * <ol>
 *   <li><b>It joins records we call late.</b> It drops no record for lateness: a record probes the
 *       other side's store, which keeps a record while its time is above that side's newest time
 *       less {@code 2d + grace}, so a record up to {@code 2d} behind our watermark when the sides
 *       are level (more when the partner's side lags) still finds partners there, and in left and
 *       outer joins a late record with none gets its unmatched row at once; ours are on the late
 *       path (rule 68). Its rows that hold a record we called late (each pair checked to lie within
 *       its store's retention); and, in left and outer joins, our unmatched rows of a record that
 *       it paired with one of those.
 *   <li><b>It emits an unmatched row it later contradicts.</b> It emits a record's unmatched row
 *       once its stream time passes {@code t + d + grace} (ours: {@code t + 2d + grace}, rule 69),
 *       or at once if the record's window had ended when it arrived (KAFKA-19536); a partner that
 *       arrives after that and is on time for both gives the pair too. Its unmatched rows of a
 *       record that pairs in ours with a partner that arrived past the record's window end.
 *   <li><b>Its store's retention edge.</b> A record exactly {@code 2d + grace} behind its side's
 *       newest time has left its store, where ours still pairs it with a record at our watermark:
 *       our pairs past that edge, and its unmatched rows of the records that pair only there.
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
    long furthestBehind = 0;
    int contradicted = 0;
    int partnerLate = 0;
    int retentionEdge = 0;
    int lateUnmatched = 0;
    int retentionEdgeAtZero = 0;
    int beyondTwiceD = 0;
    int peerPairs = 0;
    int peerPairsLost = 0;
    int peerPairsLostAsDocumentedBefore = 0;
    int traces = Trials.of(1_200);
    for (int trace = 0; trace < traces; trace++) {
      Random random = new Random(trace);
      long d = random.nextInt(8);
      long grace = random.nextInt(12);
      JoinType type = JoinType.values()[trace % 3];
      boolean rocksDb = trace % 10 == 0;
      boolean wide = trace % 2 == 1; // disorder past 2d behind our watermark in half the feeds
      List<Rec> feed = feed(random, d, grace, wide);
      Map<String, Long> late = new HashMap<>();
      // The mapping: its grace is our lateness less its after (d): allowedLateness(after + grace).
      List<Row> ours = ours(feed, d, d + grace, type, late);
      List<Row> peer = peer(feed, d, grace, type, rocksDb);
      String context =
          String.format(
              "trace %d: %s d %d grace %d%s", trace, type, d, grace, rocksDb ? " rocksdb" : "");
      // Ours never holds a late record.
      assertThat(ours).as(context).noneMatch(r -> holdsAny(r, late.keySet()));
      List<Row> peerCompared = new ArrayList<>();
      List<Row> peerLate = new ArrayList<>();
      for (Row r : peer) {
        (holdsAny(r, late.keySet()) ? peerLate : peerCompared).add(r);
      }
      for (Row r : peerLate) { // (1)
        if (isUnmatched(r)) {
          lateUnmatched++; // it never drops a record for lateness: its unmatched row comes at once
          continue;
        }
        // It pairs a record we call late with any partner still in its store of the other side,
        // which keeps a record while it is above that side's newest time less 2d + grace.
        assertThat(pastTheStoresRetention(r, feed, d, grace))
            .as("%s: %s joined past its store's retention; feed %s", context, r, feed)
            .isFalse();
        for (String part : r.value().split("\\+")) {
          Long behind = late.get(part);
          if (behind != null) {
            furthestBehind = Math.max(furthestBehind, behind);
            if (behind > 2 * d) {
              beyondTwiceD++; // the partner's side lags the other: its store keeps more
            }
          }
        }
      }
      lateJoined += peerLate.size();
      lateJoined -= peerLate.stream().filter(PeerJoinTest::isUnmatched).count();
      List<Row> onlyOurs = new ArrayList<>(ours);
      peerCompared.forEach(onlyOurs::remove);
      List<Row> onlyPeer = new ArrayList<>(peerCompared);
      ours.forEach(onlyPeer::remove);
      List<Row> unmapped = new ArrayList<>();
      for (Row r : onlyOurs) {
        if (isUnmatched(r) && pairsIn(r, peerLate)) {
          partnerLate++;
        } else if (!isUnmatched(r) && pastTheStoresRetention(r, feed, d, grace)) {
          retentionEdge++;
          retentionEdgeAtZero += d == 0 ? 1 : 0;
        } else {
          unmapped.add(r);
        }
      }
      for (Row r : onlyPeer) {
        if (isUnmatched(r) && pairedPastItsWindowEnd(r, ours, feed, d)) {
          contradicted++;
        } else if (isUnmatched(r) && pairedOnlyPastTheStoresRetention(r, ours, feed, d, grace)) {
          retentionEdge++;
          retentionEdgeAtZero += d == 0 ? 1 : 0;
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
      // What the mapping documented before (lateness = grace) lost of the peer's pairs, and this.
      if (!wide) {
        List<Row> pairs = peer.stream().filter(r -> !isUnmatched(r)).toList();
        peerPairs += pairs.size();
        peerPairsLost += missing(pairs, ours);
        peerPairsLostAsDocumentedBefore +=
            missing(pairs, ours(feed, d, grace, type, new HashMap<>()));
      }
    }
    System.out.printf(
        "PeerJoinTest: %d traces, %d rows compared; set apart: (1) %d of its pairs joining a"
            + " record we call late (up to %d ms behind our watermark, %d of them more than 2d), %d of its unmatched rows"
            + " of a record we call late, %d unmatched rows of ours"
            + " whose partner it joined late; (2) %d unmatched rows it emitted at once and"
            + " contradicted with an on-time pair; (3) %d rows at its store's retention edge (%d with d = 0). Of its"
            + " %d pairs in the narrow feeds, allowedLateness(after + grace) misses %d, allowedLateness(grace) %d%n",
        traces,
        compared,
        lateJoined,
        furthestBehind,
        beyondTwiceD,
        lateUnmatched,
        partnerLate,
        contradicted,
        retentionEdge,
        retentionEdgeAtZero,
        peerPairs,
        peerPairsLost,
        peerPairsLostAsDocumentedBefore);
    assertThat(compared).as("rows compared").isGreaterThan(traces * 10);
    assertThat(lateJoined).as("the first difference occurs").isPositive();
    assertThat(contradicted).as("the second difference occurs").isPositive();
    assertThat(partnerLate).as("the first difference's consequence").isPositive();
    assertThat(retentionEdge).as("the third difference occurs").isPositive();
    assertThat(lateUnmatched).as("its unmatched rows of late records occur").isPositive();
    assertThat(peerPairsLost)
        .as("the true mapping loses fewer of its pairs than lateness = grace")
        .isLessThan(peerPairsLostAsDocumentedBefore);
  }

  /** How many of {@code rows} are not among {@code in} (as a multiset). */
  private static int missing(List<Row> rows, List<Row> in) {
    List<Row> left = new ArrayList<>(rows);
    in.forEach(left::remove);
    return left.size();
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
   * Whether the record of an unmatched row pairs in {@code ours} with a partner that arrived when
   * the stream time (the newest time of either side so far) had passed the record's window end
   * {@code t + d}: the peer emitted the unmatched row by then, at the record's arrival if its
   * window had ended (KAFKA-19536), or once its stream time passed {@code t + d + grace}, and the
   * pair after it.
   */
  private static boolean pairedPastItsWindowEnd(
      Row unmatched, List<Row> ours, List<Rec> feed, long d) {
    String record = unmatched.value().replace("null", "").replace("+", "");
    long end = timeOf(record, feed) + d;
    for (Row r : ours) {
      List<String> parts = List.of(r.value().split("\\+"));
      if (!isUnmatched(r) && parts.contains(record)) {
        String partner = parts.get(0).equals(record) ? parts.get(1) : parts.get(0);
        if (streamTimeBefore(partner, feed) > end) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether a pair's earlier record had left the peer's store when the later one arrived: its store
   * of a side keeps a record while its time is above the side's newest time less the retention,
   * {@code 2d + grace} ({@code before + after + grace}), so a record exactly that far behind is
   * gone (the retention's edge), where ours still holds it.
   */
  private static boolean pastTheStoresRetention(Row pair, List<Rec> feed, long d, long grace) {
    String[] parts = pair.value().split("\\+");
    int i = indexOf(parts[0], feed);
    int j = indexOf(parts[1], feed);
    Rec first = feed.get(Math.min(i, j));
    long sideTime = Long.MIN_VALUE;
    for (int k = 0; k < Math.max(i, j); k++) {
      if (feed.get(k).left() == first.left()) {
        sideTime = Math.max(sideTime, feed.get(k).time());
      }
    }
    return first.time() <= sideTime - (2 * d + grace);
  }

  /**
   * Whether the record of the peer's unmatched row pairs in ours only in pairs past the store's
   * retention (the consequence of {@link #pastTheStoresRetention}).
   */
  private static boolean pairedOnlyPastTheStoresRetention(
      Row unmatched, List<Row> ours, List<Rec> feed, long d, long grace) {
    String record = unmatched.value().replace("null", "").replace("+", "");
    boolean any = false;
    for (Row r : ours) {
      if (!isUnmatched(r) && List.of(r.value().split("\\+")).contains(record)) {
        if (!pastTheStoresRetention(r, feed, d, grace)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  private static int indexOf(String value, List<Rec> feed) {
    for (int k = 0; k < feed.size(); k++) {
      if (feed.get(k).value().equals(value)) {
        return k;
      }
    }
    throw new AssertionError("no record " + value);
  }

  private static long timeOf(String value, List<Rec> feed) {
    return feed.stream().filter(r -> r.value().equals(value)).findFirst().orElseThrow().time();
  }

  /** The newest time of either side before the record with this value arrived. */
  private static long streamTimeBefore(String value, List<Rec> feed) {
    long streamTime = Long.MIN_VALUE;
    for (Rec r : feed) {
      if (r.value().equals(value)) {
        return streamTime;
      }
      streamTime = Math.max(streamTime, r.time());
    }
    throw new AssertionError("no record " + value);
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
   * Mostly ascending times with disorder up to a little more than d + grace (records a little
   * behind our watermark), or if {@code wide} 3d + grace (up to 2d behind it and a little more),
   * keys of few values.
   */
  private static List<Rec> feed(Random random, long d, long grace, boolean wide) {
    List<Rec> feed = new ArrayList<>();
    long time = 1_000;
    int n = 10 + random.nextInt(70);
    int disorder = (int) ((wide ? 3 * d : d) + grace + 3);
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

  /** Our rows; each late record's value goes into {@code late} with how far behind it was. */
  private static List<Row> ours(
      List<Rec> feed, long d, long lateness, JoinType type, Map<String, Long> late) {
    StreamJoin<String, String, String, String> join =
        StreamJoin.builder(
                JoinInterval.within(Duration.ofMillis(d)),
                (String k, String l, String r) -> l + "+" + r)
            .type(type)
            .allowedLateness(Duration.ofMillis(lateness))
            .clock(new ManualClock())
            .lateHandler((side, source, t, w, key, value) -> late.put((String) value, w - t))
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
