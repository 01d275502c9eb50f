package io.github.lowwater.bench;

import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinRow;
import io.github.lowwater.join.JoinSide;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.join.Reconciled;
import io.github.lowwater.join.Reconciliation;
import io.github.lowwater.join.Sided;
import io.github.lowwater.join.StreamJoin;
import io.github.lowwater.kafka.KafkaJoin;
import io.github.lowwater.kafka.KafkaJoinRow;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslStoreSuppliers;

/**
 * End-to-end throughput of two-topic jobs on a real broker (issue 35): a source topic and a target
 * topic (its copy with a few records dropped), co-partitioned, read by Lowwater's consumer loops
 * and by Kafka Streams jobs, each pass from nothing, the contenders alternated in every round, in
 * one JVM. Not JMH: a plain main in the style of {@link EndToEnd}, whose helpers it reuses (the
 * broker, the producer settings, the Kafka Streams settings, the GC counts). A second mode, {@code
 * --memory N}, measures the retained heap per buffered record of a join instead.
 *
 * <h2>The data</h2>
 *
 * <p>{@code --records} records per topic (default 50,000) on {@code --partitions} partitions
 * (default 6) per topic: {@code String} keys uniform over {@code --keys} (default 10,000; {@code
 * "customer-0000042"}), each key in the partition Kafka's default partitioner gives it ({@code
 * murmur2}), so the same key is in the same partition number of both topics; {@code long} values 1
 * to 100; record timestamps as event time, record {@code i} (of the whole topic) at {@code i * 100
 * / partitions} ms, so {@value #GAP_MILLIS} ms between two records of a partition on average, one
 * record in eight moved back by up to {@value #MAX_DISORDER_MILLIS} ms ({@link EndToEnd}'s
 * disorder). The target topic holds the same records (key, value, timestamp, partition, order)
 * except about one in {@code --drop-every} (default 1,000), dropped at random. Deterministic (fixed
 * seeds). From the data the run computes what every contender must give: the rows of the
 * reconciliation by status, and the pairs of the join (and the sum of their joined values).
 *
 * <h2>The contenders ({@code --contenders}, default all, in this order)</h2>
 *
 * <ol>
 *   <li>{@code reconcile}: {@link KafkaWindows}, 1-minute tumbling windows, 2 minutes of allowed
 *       lateness, {@link ResultScope#CO_PARTITIONED}, the aggregator {@code
 *       Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals)}, one
 *       consumer subscribed to both topics with {@code windows.rebalanceListener()} ({@code
 *       RangeAssignor}, a group of its own per pass, {@code max.poll.records} 500); the mapper
 *       gives {@code Sided.left(value)} for a source record and {@code Sided.right(value)} for a
 *       target record. The loop: {@code poll}, {@code onPoll}, {@code pollFinalized()} (the rows
 *       counted by status), {@code commitSync(committableOffsets())}; at the end {@code
 *       finishAll()}, a last {@code pollFinalized()} and commit.
 *   <li>{@code join}: a plain consumer (the same settings) feeding {@link StreamJoin} ({@code
 *       JoinInterval.within(1 minute)}, {@link JoinType#INNER}, {@code allowedLateness(2 minutes)},
 *       joiner {@code a + b}), each record's {@code TopicPartition} its source, every assigned
 *       partition registered at assignment; after each poll {@code pollResults()} (the pairs
 *       counted, their values summed) and {@code commitSync()} of the consumed positions. That
 *       commit is not exact across a restart: the records buffered in the join are past the
 *       committed positions and are lost with the process. At the end {@code finish()} and a last
 *       {@code pollResults()}.
 *   <li>{@code kafka-join}: the same join through {@link KafkaJoin}, exact in a group: its
 *       rebalance listener (chained with the timer's), {@code onPoll}, {@code pollResults()} and
 *       {@code commitSync(committableOffsets())} (each partition at its oldest record a new owner
 *       still needs, with its checkpoint), {@code finishAll()} at the end. What exactness costs
 *       over {@code join}.
 *   <li>{@code streams-join-memory} and {@code streams-join-rocksdb}: Kafka Streams, one new
 *       application per pass: {@code stream(source)} and {@code stream(target)}, each with a {@code
 *       peek} that counts the records, {@code join(other, (a, b) -> a + b,
 *       JoinWindows.ofTimeDifferenceAndGrace(1 minute, 2 minutes), StreamJoined.with(String, Long,
 *       Long).withDslStoreSuppliers(...))} with {@link
 *       BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers} or {@link
 *       BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers}, and a {@code foreach} that counts the
 *       pairs and sums their values (as {@link EndToEnd}'s Kafka Streams loops: no output topic).
 *       One stream thread, Kafka Streams' defaults otherwise ({@link EndToEnd#streamsConfig}):
 *       at-least-once, a commit every 30 s, changelogs on.
 * </ol>
 *
 * <p>A Lowwater pass is timed from its consumer's partition assignment (the rebalance listener's
 * {@code onPartitionsAssigned}, inside the first polls; the group join before it is not timed) to
 * its last commit; a Kafka Streams pass from the moment the application is {@code RUNNING} (or its
 * first record, if earlier) to the {@code peek} of its last input record. The join's pairs are
 * forwarded when their second record is processed, so no end records are needed. {@code
 * System.gc()} runs before each pass. Records/s counts the records read from both topics.
 *
 * <p>Checked: every pass reads every record of both topics; {@code reconcile} gives exactly the
 * expected rows ({@code MATCHED} where no record of the (window, key) was dropped, {@code
 * LEFT_ONLY} where all were, {@code DIFFERENT} otherwise) when no record is late; the joins give
 * exactly the expected pairs and sum when no record is late (Lowwater) or dropped (Kafka Streams'
 * {@code dropped-records-total}). A mismatch is printed in its row and fails the run after the
 * summary; the summary prints the pair counts of every join side by side.
 *
 * <h2>Commands</h2>
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package -DskipTests
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.TwoTopicEndToEnd --records 50000 --keys 10000
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.TwoTopicEndToEnd --records 500000 --keys 10000 \
 *     --contenders reconcile,join --rounds 5 --commit-interval 0
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.TwoTopicEndToEnd --records 500000 --keys 10000 \
 *     --contenders reconcile,join --rounds 5 --commit-interval 30000
 * flock /tmp/lowwater-build.lock java -XX:+UseSerialGC -Xms1g -Xmx1g \
 *     -cp benchmarks/target/benchmarks.jar io.github.lowwater.bench.TwoTopicEndToEnd \
 *     --memory 200000 --keys 10000
 * flock /tmp/lowwater-build.lock java -XX:+UseSerialGC -Xms1g -Xmx1g \
 *     -cp benchmarks/target/benchmarks.jar io.github.lowwater.bench.TwoTopicEndToEnd \
 *     --memory 20000 --keys 10000
 * </pre>
 *
 * <p>The first run is the comparison (docs/benchmarks.md, "Two topics: reconciliation and joins
 * against Kafka Streams"): at its defaults a round takes about 13 s on the 2-vCPU development
 * machine, the whole run about 55 s. The two Lowwater-only runs measure longer Lowwater passes and
 * what the commit after every poll costs them (about 25 to 35 s each); the memory runs take about
 * 20 s and 5 s.
 *
 * <p>Options: {@code --records N} per topic (50,000), {@code --keys N} (10,000), {@code
 * --partitions N} (6), {@code --drop-every N} (1,000; 0 drops none), {@code --warmup N} (1), {@code
 * --rounds N} (3), {@code --contenders L,L} (reconcile,join,streams-join-memory,
 * streams-join-rocksdb), {@code --commit-interval ms} (0: the Lowwater loops commit after every
 * poll; Kafka Streams commits every 30 s), {@code --memory N} (the memory mode, below, with N
 * buffered records), {@code --memory-rounds N} (5).
 *
 * <h2>Memory mode</h2>
 *
 * <p>{@code --memory N}: the retained heap per buffered record, without JOL: the used heap after
 * repeated {@code System.gc()} ({@code totalMemory - freeMemory}) before and after adding {@code N}
 * left records of the data above (the first {@code N} of the source topic) to an empty join,
 * divided by {@code N}, the median of {@code --memory-rounds}. The join's time difference is 365
 * days, so that nothing is released. Measured: {@link StreamJoin} with the key strings shared
 * (created once per key before the first reading, not counted), {@link StreamJoin} with a fresh key
 * string per record (decoded from the key's bytes as {@code StringDeserializer} does: what a
 * consumer hands it), and Kafka Streams' in-memory join store through a {@link TopologyTestDriver}
 * (the same join topology with the in-memory store suppliers, logging disabled so that the driver
 * captures no changelog records; the driver is built before the first reading), plus a control: the
 * driver with a topology without a store (should be about 0). The values are {@code Long}s from the
 * JDK's small-value cache, as {@code LongDeserializer} gives them for 1 to 100. Use the serial
 * collector.
 */
public final class TwoTopicEndToEnd {

  static final String SOURCE = "ledger-source";
  static final String TARGET = "ledger-target";

  /** Mean event time between two records of one partition: {@link EndToEnd}'s. */
  static final long GAP_MILLIS = EndToEnd.GAP_MILLIS;

  /** The largest step back of a record moved back (one in eight): {@link EndToEnd}'s. */
  static final long MAX_DISORDER_MILLIS = EndToEnd.MAX_DISORDER_MILLIS;

  /** The reconciliation's tumbling windows. */
  static final Duration WINDOW_SIZE = Duration.ofMinutes(1);

  /** The joins' time difference: {@code |r - l| <= d} pairs. */
  static final Duration TIME_DIFFERENCE = Duration.ofMinutes(1);

  /** Lowwater's allowed lateness and Kafka Streams' grace period. */
  static final Duration ALLOWED_LATENESS = EndToEnd.ALLOWED_LATENESS;

  /** The memory mode's time difference: nothing is released. */
  static final Duration MEMORY_TIME_DIFFERENCE = Duration.ofDays(365);

  static final Duration POLL_TIMEOUT = EndToEnd.POLL_TIMEOUT;

  /** How long a pass may go without a new record before the run fails. */
  static final Duration STALL = Duration.ofMinutes(2);

  /** A contender: its {@code --contenders} name. */
  enum Contender {
    RECONCILE("reconcile"),
    JOIN("join"),
    KAFKA_JOIN("kafka-join"),
    STREAMS_JOIN_MEMORY("streams-join-memory"),
    STREAMS_JOIN_ROCKSDB("streams-join-rocksdb");

    final String label;

    Contender(String label) {
      this.label = label;
    }

    boolean streams() {
      return this == STREAMS_JOIN_MEMORY || this == STREAMS_JOIN_ROCKSDB;
    }

    static Contender named(String name) {
      for (Contender c : values()) {
        if (c.label.equals(name)) {
          return c;
        }
      }
      throw new IllegalArgumentException(
          "--contenders must name some of "
              + Arrays.stream(values()).map(c -> c.label).toList()
              + ": "
              + name);
    }
  }

  private TwoTopicEndToEnd() {}

  /** The command-line options. */
  record Options(
      int records,
      int keys,
      int partitions,
      int dropEvery,
      int warmup,
      int rounds,
      List<Contender> contenders,
      long commitIntervalMillis,
      int memoryRecords,
      int memoryRounds) {
    static Options parse(String[] args) {
      int records = 50_000;
      int keys = 10_000;
      int partitions = 6;
      int dropEvery = 1_000;
      int warmup = 1;
      int rounds = 3;
      List<String> contenders =
          Arrays.stream(Contender.values()).map(c -> c.label).toList(); // every one
      long commitIntervalMillis = 0;
      int memoryRecords = 0;
      int memoryRounds = 5;
      for (int a = 0; a < args.length; a++) {
        String name = args[a];
        if (a + 1 >= args.length) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        String value = args[++a].replace("_", "").replace(",", "");
        switch (name) {
          case "--records" -> records = Integer.parseInt(value);
          case "--keys" -> keys = Integer.parseInt(value);
          case "--partitions" -> partitions = Integer.parseInt(value);
          case "--drop-every" -> dropEvery = Integer.parseInt(value);
          case "--warmup" -> warmup = Integer.parseInt(value);
          case "--rounds" -> rounds = Integer.parseInt(value);
          case "--contenders" -> contenders = List.of(args[a].split(","));
          case "--commit-interval" -> commitIntervalMillis = Long.parseLong(value);
          case "--memory" -> memoryRecords = Integer.parseInt(value);
          case "--memory-rounds" -> memoryRounds = Integer.parseInt(value);
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + name
                      + " (--records, --keys, --partitions, --drop-every, --warmup, --rounds,"
                      + " --contenders, --commit-interval, --memory, --memory-rounds)");
        }
      }
      if (contenders.isEmpty() || contenders.size() != new HashSet<>(contenders).size()) {
        throw new IllegalArgumentException("--contenders must name distinct ones: " + contenders);
      }
      if (records < partitions
          || keys < 1
          || partitions < 1
          || dropEvery < 0
          || warmup < 0
          || rounds < 1
          || commitIntervalMillis < 0
          || memoryRecords < 0
          || memoryRounds < 1) {
        throw new IllegalArgumentException(
            "need records >= partitions >= 1, keys >= 1, drop-every >= 0, warmup >= 0, rounds >="
                + " 1, commit-interval >= 0, memory >= 0, memory-rounds >= 1");
      }
      return new Options(
          records,
          keys,
          partitions,
          dropEvery,
          warmup,
          rounds,
          contenders.stream().map(Contender::named).toList(),
          commitIntervalMillis,
          memoryRecords,
          memoryRounds);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The data and what it must give

  /**
   * The records of the source topic, by index; the target holds those not {@code dropped}, in the
   * same order.
   */
  record Data(
      long[] time, int[] key, long[] value, int[] partition, boolean[] dropped, int droppedCount) {
    int records() {
      return time.length;
    }

    /** The records of both topics. */
    long total() {
      return 2L * records() - droppedCount;
    }
  }

  static Data generate(int records, int keys, int partitions, int dropEvery) {
    String[] keyStrings = Feed.keyStrings(keys);
    int[] keyPartition = new int[keys];
    for (int k = 0; k < keys; k++) {
      byte[] bytes = keyStrings[k].getBytes(StandardCharsets.UTF_8);
      keyPartition[k] = Utils.toPositive(Utils.murmur2(bytes)) % partitions; // default partitioner
    }
    SplittableRandom random = new SplittableRandom(0x2_70_91CL);
    long[] time = new long[records];
    int[] key = new int[records];
    long[] value = new long[records];
    int[] partition = new int[records];
    boolean[] dropped = new boolean[records];
    int droppedCount = 0;
    for (int i = 0; i < records; i++) {
      long t = (long) i * GAP_MILLIS / partitions;
      if (random.nextInt(8) == 0) {
        t = Math.max(0, t - 1 - random.nextLong(MAX_DISORDER_MILLIS));
      }
      time[i] = Feed.BASE_MILLIS + t;
      key[i] = random.nextInt(keys);
      value[i] = 1 + random.nextInt(100);
      partition[i] = keyPartition[key[i]];
      if (dropEvery > 0 && random.nextInt(dropEvery) == 0) {
        dropped[i] = true;
        droppedCount++;
      }
    }
    return new Data(time, key, value, partition, dropped, droppedCount);
  }

  /**
   * What the contenders must give: the reconciliation's rows by status (tumbling windows of {@link
   * #WINDOW_SIZE}; a key lives in one partition, so a (window, task, key) is a (window, key)), and
   * the inner join's pairs within {@link #TIME_DIFFERENCE} with the sum of their joined values
   * ({@code left + right}).
   */
  record Expected(
      long rows, long matched, long different, long leftOnly, long pairs, long pairSum) {}

  static Expected expected(Data d, int keys) {
    int n = d.records();
    long size = WINDOW_SIZE.toMillis();
    Map<Long, long[]> cells = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long cell = Math.floorDiv(d.time()[i], size) * keys + d.key()[i];
      long[] c = cells.computeIfAbsent(cell, x -> new long[2]);
      c[0]++;
      if (!d.dropped()[i]) {
        c[1]++;
      }
    }
    long matched = 0;
    long leftOnly = 0;
    long different = 0;
    for (long[] c : cells.values()) {
      if (c[0] == c[1]) {
        matched++;
      } else if (c[1] == 0) {
        leftOnly++;
      } else {
        different++;
      }
    }
    // The pairs: per key, every left record against the right records within the difference.
    int[] start = new int[keys + 1];
    for (int i = 0; i < n; i++) {
      start[d.key()[i] + 1]++;
    }
    for (int k = 0; k < keys; k++) {
      start[k + 1] += start[k];
    }
    int[] byKey = new int[n];
    int[] fill = Arrays.copyOf(start, keys);
    for (int i = 0; i < n; i++) {
      byKey[fill[d.key()[i]]++] = i;
    }
    long diff = TIME_DIFFERENCE.toMillis();
    long pairs = 0;
    long pairSum = 0;
    for (int k = 0; k < keys; k++) {
      int from = start[k];
      int to = start[k + 1];
      long[] packed = new long[to - from]; // (time offset << 8) | value, the right records
      int m = 0;
      for (int j = from; j < to; j++) {
        int i = byKey[j];
        if (!d.dropped()[i]) {
          packed[m++] = ((d.time()[i] - Feed.BASE_MILLIS) << 8) | d.value()[i];
        }
      }
      packed = Arrays.copyOf(packed, m);
      Arrays.sort(packed);
      long[] rightTime = new long[m];
      long[] prefix = new long[m + 1];
      for (int j = 0; j < m; j++) {
        rightTime[j] = packed[j] >> 8;
        prefix[j + 1] = prefix[j] + (packed[j] & 0xFF);
      }
      for (int j = from; j < to; j++) {
        int i = byKey[j];
        long t = d.time()[i] - Feed.BASE_MILLIS;
        int lo = firstAtLeast(rightTime, t - diff);
        int hi = firstAtLeast(rightTime, t + diff + 1);
        pairs += hi - lo;
        pairSum += (hi - lo) * d.value()[i] + prefix[hi] - prefix[lo];
      }
    }
    return new Expected(cells.size(), matched, different, leftOnly, pairs, pairSum);
  }

  /** The first index of a sorted array whose value is at least {@code x}. */
  static int firstAtLeast(long[] sorted, long x) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Produces the source topic and its copy, record by record in the same order. */
  static void produce(String bootstrap, Data d, String[] keyStrings) {
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, Long> producer = EndToEnd.producer(bootstrap)) {
      for (int i = 0; i < d.records() && failure.get() == null; i++) {
        String key = keyStrings[d.key()[i]];
        for (String topic : d.dropped()[i] ? List.of(SOURCE) : List.of(SOURCE, TARGET)) {
          producer.send(
              new ProducerRecord<>(topic, d.partition()[i], d.time()[i], key, d.value()[i]),
              (metadata, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                }
              });
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("production failed", failure.get());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Passes

  /**
   * One timed pass: {@code nanos} is timed, {@code setupNanos} and {@code teardownNanos} are not.
   * {@code output} describes what it gave; {@code check} is "ok", "MISMATCH: ..." or why it is not
   * checked.
   */
  record Pass(
      int round,
      Contender contender,
      long records,
      long nanos,
      long setupNanos,
      long teardownNanos,
      long youngCount,
      long youngMillis,
      long otherCount,
      long otherMillis,
      long pairs,
      long pairSum,
      String output,
      String check) {
    double recordsPerSecond() {
      return records * 1e9 / nanos;
    }

    boolean mismatch() {
      return check.startsWith("MISMATCH");
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    if (o.memoryRecords() > 0) {
      memory(o);
      return;
    }
    long begin = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "TwoTopicEndToEnd: %,d records per topic, %,d keys, %d partitions per topic, one record in"
            + " %,d dropped from the target, %d warm-up + %d rounds of %s, commit interval %d ms;"
            + " %s %s, heap max %,d MB, %s%n%n",
        o.records(),
        o.keys(),
        o.partitions(),
        o.dropEvery(),
        o.warmup(),
        o.rounds(),
        o.contenders().stream().map(c -> c.label).toList(),
        o.commitIntervalMillis(),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    System.out.printf(
        Locale.ROOT,
        "Reconciliation: %d s tumbling windows, allowed lateness %d s. Joins: inner, time"
            + " difference %d s, allowed lateness / grace %d s.%n",
        WINDOW_SIZE.toSeconds(),
        ALLOWED_LATENESS.toSeconds(),
        TIME_DIFFERENCE.toSeconds(),
        ALLOWED_LATENESS.toSeconds());
    if (o.contenders().stream().anyMatch(Contender::streams)) {
      StreamsConfig config =
          new StreamsConfig(EndToEnd.streamsConfig("127.0.0.1:9092", "settings", Path.of("state")));
      System.out.printf(
          Locale.ROOT,
          "Kafka Streams: %s=%s, %s=%d, %s=%d, %s=%d%n",
          StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
          config.getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG),
          StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
          config.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG),
          StreamsConfig.NUM_STREAM_THREADS_CONFIG,
          config.getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG),
          StreamsConfig.MAX_TASK_IDLE_MS_CONFIG,
          config.getLong(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG));
    }
    Data data = generate(o.records(), o.keys(), o.partitions(), o.dropEvery());
    Expected expected = expected(data, o.keys());
    System.out.printf(
        Locale.ROOT,
        "Expected: %,d records in both topics (%,d dropped from the target); reconciliation rows"
            + " %,d (matched %,d, different %,d, left-only %,d); join pairs %,d (joined values"
            + " summing to %,d)%n%n",
        data.total(),
        data.droppedCount(),
        expected.rows(),
        expected.matched(),
        expected.different(),
        expected.leftOnly(),
        expected.pairs(),
        expected.pairSum());
    try (InProcessBroker broker = InProcessBroker.start()) {
      broker.createTopic(SOURCE, o.partitions());
      broker.createTopic(TARGET, o.partitions());
      long t0 = System.nanoTime();
      produce(broker.bootstrapServers(), data, Feed.keyStrings(o.keys()));
      long produceNanos = System.nanoTime() - t0;
      System.out.printf(
          Locale.ROOT,
          "Produced %,d records in %.1f s; broker started and topics created in %.1f s%n%n",
          data.total(),
          produceNanos / 1e9,
          (t0 - begin) / 1e9);
      System.out.println(
          "| round | contender | records | seconds | records/s | young GCs | young GC ms | other"
              + " GCs | other GC ms | setup s | teardown s | output | check |");
      System.out.println(
          "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |");
      List<Pass> passes = new ArrayList<>();
      for (int round = 1 - o.warmup(); round <= o.rounds(); round++) {
        for (Contender c : o.contenders()) {
          Pass p =
              switch (c) {
                case RECONCILE ->
                    reconcilePass(broker.bootstrapServers(), o, data, expected, round);
                case JOIN -> joinPass(broker.bootstrapServers(), o, data, expected, round);
                case KAFKA_JOIN ->
                    kafkaJoinPass(broker.bootstrapServers(), o, data, expected, round);
                default -> streamsPass(broker, o, data, expected, round, c);
              };
          if (round > 0) {
            passes.add(p);
          }
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %,d | %.2f | %,.0f | %d | %d | %d | %d | %.2f | %.2f | %s | %s |%n",
              round > 0 ? Integer.toString(round) : "warm-up",
              c.label,
              p.records(),
              p.nanos() / 1e9,
              p.recordsPerSecond(),
              p.youngCount(),
              p.youngMillis(),
              p.otherCount(),
              p.otherMillis(),
              p.setupNanos() / 1e9,
              p.teardownNanos() / 1e9,
              p.output(),
              p.check());
        }
      }
      summarize(passes, expected);
    }
    System.out.printf(
        Locale.ROOT,
        "%nTotal: %.1f s, broker start and production included.%n",
        (System.nanoTime() - begin) / 1e9);
  }

  static String roundName(int round) {
    return round > 0 ? Integer.toString(round) : "warmup" + (-round);
  }

  /**
   * The consumer of the Lowwater loops: {@link EndToEnd}'s settings ({@code max.poll.records} 500,
   * no auto-commit, from the earliest offset), a group of its own, {@code RangeAssignor} (which
   * co-partitions the two topics; classic protocol).
   */
  static KafkaConsumer<String, Long> consumer(String bootstrap, String group) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    return new KafkaConsumer<>(props);
  }

  /**
   * Starts a Lowwater pass's timer once every partition of both topics is assigned; for the join,
   * registers each assigned partition as a source first.
   */
  static final class AssignedTimer implements ConsumerRebalanceListener {
    private final int partitions;
    private final StreamJoin<?, ?, ?, ?> join;
    private final Set<TopicPartition> assigned = new HashSet<>();
    long startNanos;
    long[] gcAtStart;

    AssignedTimer(int partitions, StreamJoin<?, ?, ?, ?> join) {
      this.partitions = partitions;
      this.join = join;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> parts) {
      for (TopicPartition tp : parts) {
        if (join != null) {
          join.register(tp);
        }
        assigned.add(tp);
      }
      if (assigned.size() == partitions && gcAtStart == null) {
        gcAtStart = EndToEnd.gcCounts();
        startNanos = System.nanoTime();
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> parts) {
      assigned.removeAll(parts);
    }

    void requireStarted() {
      if (gcAtStart == null) {
        throw new IllegalStateException("records before every partition was assigned");
      }
    }
  }

  /** Whether the interval since {@code last} calls for a commit; always at 0. */
  static boolean commitDue(Options o, long lastNanos, long nowNanos) {
    return o.commitIntervalMillis() == 0
        || nowNanos - lastNanos >= o.commitIntervalMillis() * 1_000_000;
  }

  /** (1) The reconciliation: {@link KafkaWindows}, {@code CO_PARTITIONED}, {@code Reconciled}. */
  static Pass reconcilePass(String bootstrap, Options o, Data data, Expected ex, int round) {
    long begin = System.nanoTime();
    long end;
    long[] gcAfter;
    long records = 0;
    long[] byStatus = new long[Reconciled.Status.values().length];
    long late;
    AssignedTimer timer = new AssignedTimer(2 * o.partitions(), null);
    try (KafkaConsumer<String, Long> consumer =
        consumer(bootstrap, "reconcile-" + roundName(round))) {
      KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
          KafkaWindows.builder(
                  WINDOW_SIZE,
                  Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
              .allowedLateness(ALLOWED_LATENESS)
              .resultScope(ResultScope.CO_PARTITIONED)
              .consumer(consumer)
              .build();
      consumer.subscribe(List.of(SOURCE, TARGET), windows.rebalanceListener(timer));
      System.gc();
      long lastCommit = 0;
      while (records < data.total()) {
        ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
        windows.onPoll(
            polled,
            ConsumerRecord::key,
            r -> r.topic().equals(SOURCE) ? Sided.left(r.value()) : Sided.right(r.value()));
        records += polled.count();
        for (WindowResult<String, Reconciled<Long, Long>> w : windows.pollFinalized()) {
          byStatus[w.value().status().ordinal()]++;
        }
        long now = System.nanoTime();
        if (commitDue(o, lastCommit, now)) {
          consumer.commitSync(windows.committableOffsets());
          lastCommit = now;
        }
      }
      timer.requireStarted();
      windows.finishAll();
      for (WindowResult<String, Reconciled<Long, Long>> w : windows.pollFinalized()) {
        byStatus[w.value().status().ordinal()]++;
      }
      consumer.commitSync(windows.committableOffsets());
      end = System.nanoTime();
      gcAfter = EndToEnd.gcCounts();
      late = windows.stats().late();
    }
    long matched = byStatus[Reconciled.Status.MATCHED.ordinal()];
    long different = byStatus[Reconciled.Status.DIFFERENT.ordinal()];
    long leftOnly = byStatus[Reconciled.Status.LEFT_ONLY.ordinal()];
    long rightOnly = byStatus[Reconciled.Status.RIGHT_ONLY.ordinal()];
    long rows = matched + different + leftOnly + rightOnly;
    String output =
        String.format(
            Locale.ROOT,
            "rows %,d: matched %,d, different %,d, left-only %,d, right-only %,d; late %,d",
            rows,
            matched,
            different,
            leftOnly,
            rightOnly,
            late);
    String check;
    if (records != data.total()) {
      check = "MISMATCH: read " + records + " records";
    } else if (late > 0) {
      check = "not checked (late records)";
    } else if (matched == ex.matched()
        && different == ex.different()
        && leftOnly == ex.leftOnly()
        && rightOnly == 0) {
      check = "ok";
    } else {
      check = "MISMATCH: rows differ from the expected ones";
    }
    return pass(
        round, Contender.RECONCILE, records, begin, timer, end, gcAfter, 0, 0, output, check);
  }

  /** (2) The windowed join: a plain consumer feeding {@link StreamJoin}. */
  static Pass joinPass(String bootstrap, Options o, Data data, Expected ex, int round) {
    long begin = System.nanoTime();
    long end;
    long[] gcAfter;
    long records = 0;
    long pairs = 0;
    long pairSum = 0;
    StreamJoin<String, Long, Long, Long> join =
        StreamJoin.<String, Long, Long, Long>builder(
                JoinInterval.within(TIME_DIFFERENCE), (k, a, b) -> a + b)
            .type(JoinType.INNER)
            .allowedLateness(ALLOWED_LATENESS)
            .build();
    AssignedTimer timer = new AssignedTimer(2 * o.partitions(), join);
    try (KafkaConsumer<String, Long> consumer = consumer(bootstrap, "join-" + roundName(round))) {
      consumer.subscribe(List.of(SOURCE, TARGET), timer);
      System.gc();
      long lastCommit = 0;
      while (records < data.total()) {
        ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
        for (TopicPartition tp : polled.partitions()) {
          boolean left = tp.topic().equals(SOURCE);
          for (ConsumerRecord<String, Long> r : polled.records(tp)) {
            if (left) {
              join.addLeft(tp, r.timestamp(), r.key(), r.value());
            } else {
              join.addRight(tp, r.timestamp(), r.key(), r.value());
            }
          }
        }
        records += polled.count();
        for (JoinRow<String, Long> row : join.pollResults()) {
          pairs++;
          pairSum += row.value();
        }
        long now = System.nanoTime();
        if (commitDue(o, lastCommit, now)) {
          consumer.commitSync(); // the consumed positions: not exact across a restart
          lastCommit = now;
        }
      }
      timer.requireStarted();
      join.finish();
      for (JoinRow<String, Long> row : join.pollResults()) {
        pairs++;
        pairSum += row.value();
      }
      consumer.commitSync();
      end = System.nanoTime();
      gcAfter = EndToEnd.gcCounts();
    }
    long late = join.late(JoinSide.LEFT) + join.late(JoinSide.RIGHT);
    String output =
        String.format(Locale.ROOT, "pairs %,d (sum %,d); late %,d", pairs, pairSum, late);
    String check = joinCheck(records, data, ex, pairs, pairSum, late, "late records");
    return pass(
        round, Contender.JOIN, records, begin, timer, end, gcAfter, pairs, pairSum, output, check);
  }

  /** (2b) The same join through {@link KafkaJoin}: tasks, pins, checkpoints in the commits. */
  static Pass kafkaJoinPass(String bootstrap, Options o, Data data, Expected ex, int round) {
    long begin = System.nanoTime();
    long end;
    long[] gcAfter;
    long records = 0;
    long pairs = 0;
    long pairSum = 0;
    long late;
    AssignedTimer timer = new AssignedTimer(2 * o.partitions(), null);
    try (KafkaConsumer<String, Long> consumer =
        consumer(bootstrap, "kafka-join-" + roundName(round))) {
      KafkaJoin<String, Long, Long, Long> join =
          KafkaJoin.<String, Long, Long, Long>builder(
                  JoinInterval.within(TIME_DIFFERENCE), (k, a, b) -> a + b)
              .type(JoinType.INNER)
              .allowedLateness(ALLOWED_LATENESS)
              .topics(SOURCE, TARGET)
              .consumer(consumer)
              .build();
      ConsumerRebalanceListener listener = join.rebalanceListener();
      consumer.subscribe(
          List.of(SOURCE, TARGET),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> parts) {
              listener.onPartitionsAssigned(parts);
              timer.onPartitionsAssigned(parts);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> parts) {
              timer.onPartitionsRevoked(parts);
              listener.onPartitionsRevoked(parts);
            }
          });
      System.gc();
      long lastCommit = 0;
      while (records < data.total()) {
        ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
        join.onPoll(polled, ConsumerRecord::key, ConsumerRecord::value, ConsumerRecord::value);
        records += polled.count();
        for (KafkaJoinRow<String, Long> row : join.pollResults()) {
          pairs++;
          pairSum += row.value();
        }
        long now = System.nanoTime();
        if (commitDue(o, lastCommit, now)) {
          consumer.commitSync(join.committableOffsets());
          lastCommit = now;
        }
      }
      timer.requireStarted();
      join.finishAll();
      for (KafkaJoinRow<String, Long> row : join.pollResults()) {
        pairs++;
        pairSum += row.value();
      }
      consumer.commitSync(join.committableOffsets());
      end = System.nanoTime();
      gcAfter = EndToEnd.gcCounts();
      late = join.late(JoinSide.LEFT) + join.late(JoinSide.RIGHT);
    }
    String output =
        String.format(Locale.ROOT, "pairs %,d (sum %,d); late %,d", pairs, pairSum, late);
    String check = joinCheck(records, data, ex, pairs, pairSum, late, "late records");
    return pass(
        round,
        Contender.KAFKA_JOIN,
        records,
        begin,
        timer,
        end,
        gcAfter,
        pairs,
        pairSum,
        output,
        check);
  }

  static String joinCheck(
      long records, Data data, Expected ex, long pairs, long pairSum, long late, String why) {
    if (records != data.total()) {
      return "MISMATCH: read " + records + " records";
    }
    if (pairs == ex.pairs() && pairSum == ex.pairSum()) {
      return late > 0 ? "ok despite " + why : "ok";
    }
    return late > 0
        ? "not checked (" + why + ")"
        : String.format(
            Locale.ROOT,
            "MISMATCH: %,d pairs (sum %,d) against %,d (sum %,d)",
            pairs,
            pairSum,
            ex.pairs(),
            ex.pairSum());
  }

  static Pass pass(
      int round,
      Contender c,
      long records,
      long begin,
      AssignedTimer timer,
      long end,
      long[] gcAfter,
      long pairs,
      long pairSum,
      String output,
      String check) {
    long[] gcBefore = timer.gcAtStart;
    return new Pass(
        round,
        c,
        records,
        end - timer.startNanos,
        timer.startNanos - begin,
        System.nanoTime() - end,
        gcAfter[0] - gcBefore[0],
        gcAfter[1] - gcBefore[1],
        gcAfter[2] - gcBefore[2],
        gcAfter[3] - gcBefore[3],
        pairs,
        pairSum,
        output,
        check);
  }

  // ---------------------------------------------------------------------------------------------
  // Kafka Streams

  /** What a Kafka Streams pass sees; written by its one stream thread, read after a latch. */
  static final class Probe {
    final long records;
    final CountDownLatch allRecords = new CountDownLatch(1);
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile long startNanos;
    volatile long[] gcAtStart;
    volatile long lastRecordNanos;
    volatile long[] gcAtLastRecord;
    volatile long seen;
    long pairs;
    long pairSum;

    Probe(long records) {
      this.records = records;
    }

    synchronized void started() {
      if (gcAtStart == null) {
        gcAtStart = EndToEnd.gcCounts();
        startNanos = System.nanoTime();
      }
    }

    void record() {
      long n = seen + 1; // one writer
      seen = n;
      if (n == 1) {
        started();
      }
      if (n == records) {
        lastRecordNanos = System.nanoTime();
        gcAtLastRecord = EndToEnd.gcCounts();
        allRecords.countDown();
      }
    }

    void pair(Long value) {
      pairs++;
      pairSum += value;
    }
  }

  /**
   * The job a user would write: both topics, a {@code peek} each that counts the records, an inner
   * join within the time difference and grace on the given store suppliers, a {@code foreach} that
   * counts the pairs.
   */
  static Topology joinTopology(
      DslStoreSuppliers stores, Duration difference, boolean logging, Probe probe) {
    StreamsBuilder builder = new StreamsBuilder();
    Consumed<String, Long> consumed = Consumed.with(Serdes.String(), Serdes.Long());
    KStream<String, Long> left = builder.stream(SOURCE, consumed);
    KStream<String, Long> right = builder.stream(TARGET, consumed);
    if (probe != null) {
      left = left.peek((k, v) -> probe.record());
      right = right.peek((k, v) -> probe.record());
    }
    StreamJoined<String, Long, Long> joined =
        StreamJoined.<String, Long, Long>with(Serdes.String(), Serdes.Long(), Serdes.Long())
            .withDslStoreSuppliers(stores);
    if (!logging) {
      joined = joined.withLoggingDisabled();
    }
    KStream<String, Long> pairs =
        left.join(
            right,
            (Long a, Long b) -> a + b,
            JoinWindows.ofTimeDifferenceAndGrace(difference, ALLOWED_LATENESS),
            joined);
    if (probe != null) {
      pairs.foreach((k, v) -> probe.pair(v));
    }
    return builder.build();
  }

  /** (3) One pass of a Kafka Streams join: a new application, timed as {@link EndToEnd}'s. */
  static Pass streamsPass(
      InProcessBroker broker, Options o, Data data, Expected ex, int round, Contender c)
      throws Exception {
    long begin = System.nanoTime();
    String applicationId = c.label + "-" + roundName(round);
    Path stateDir = Files.createTempDirectory("lowwater-streams-");
    Probe probe = new Probe(data.total());
    DslStoreSuppliers stores =
        c == Contender.STREAMS_JOIN_MEMORY
            ? new BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers()
            : new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    KafkaStreams streams =
        new KafkaStreams(
            joinTopology(stores, TIME_DIFFERENCE, true, probe),
            EndToEnd.streamsConfig(broker.bootstrapServers(), applicationId, stateDir));
    streams.setStateListener(
        (now, before) -> {
          if (now == KafkaStreams.State.RUNNING) {
            probe.started();
          }
        });
    streams.setUncaughtExceptionHandler(
        e -> {
          probe.failure.compareAndSet(null, e);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    long dropped;
    try {
      System.gc();
      streams.start();
      long seen = -1;
      long progressNanos = System.nanoTime();
      while (!probe.allRecords.await(100, TimeUnit.MILLISECONDS)) {
        KafkaStreams.State state = streams.state();
        if (probe.failure.get() != null || state.hasStartedOrFinishedShuttingDown()) {
          throw new IllegalStateException(
              applicationId + " stopped (" + state + ")", probe.failure.get());
        }
        if (probe.seen != seen) {
          seen = probe.seen;
          progressNanos = System.nanoTime();
        } else if (System.nanoTime() - progressNanos > STALL.toNanos()) {
          throw new IllegalStateException(applicationId + ": no new record after " + seen);
        }
      }
      dropped = droppedRecords(streams.metrics());
    } finally {
      if (!streams.close(Duration.ofMinutes(2))) {
        throw new IllegalStateException(applicationId + " did not close within 2 minutes");
      }
      streams.cleanUp();
      EndToEnd.deleteRecursively(stateDir);
      broker.deleteTopicsStartingWith(applicationId + "-");
    }
    if (probe.failure.get() != null) {
      throw new IllegalStateException(applicationId + " failed", probe.failure.get());
    }
    long end = System.nanoTime();
    long[] gcBefore = probe.gcAtStart;
    long[] gcAfter = probe.gcAtLastRecord;
    String output =
        String.format(
            Locale.ROOT, "pairs %,d (sum %,d); dropped %,d", probe.pairs, probe.pairSum, dropped);
    String check =
        joinCheck(probe.seen, data, ex, probe.pairs, probe.pairSum, dropped, "dropped records");
    return new Pass(
        round,
        c,
        probe.seen,
        probe.lastRecordNanos - probe.startNanos,
        probe.startNanos - begin,
        end - probe.lastRecordNanos,
        gcAfter[0] - gcBefore[0],
        gcAfter[1] - gcBefore[1],
        gcAfter[2] - gcBefore[2],
        gcAfter[3] - gcBefore[3],
        probe.pairs, // read after close, which joined the stream thread
        probe.pairSum,
        output,
        check);
  }

  /** The records Kafka Streams dropped ({@code dropped-records-total}), over its tasks. */
  static long droppedRecords(Map<MetricName, ? extends Metric> metrics) {
    double dropped = 0;
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      if (e.getKey().name().equals("dropped-records-total")
          && e.getValue().metricValue() instanceof Number n) {
        dropped += n.doubleValue();
      }
    }
    return (long) dropped;
  }

  // ---------------------------------------------------------------------------------------------
  // Summary

  static void summarize(List<Pass> passes, Expected ex) {
    Map<Contender, List<Pass>> by = new LinkedHashMap<>();
    for (Pass p : passes) {
      by.computeIfAbsent(p.contender(), k -> new ArrayList<>()).add(p);
    }
    System.out.println();
    System.out.println(
        "| contender | median records/s | median seconds | young GCs (median) | young GC ms"
            + " (median) | checks |");
    System.out.println("| --- | ---: | ---: | ---: | ---: | --- |");
    Map<Contender, Double> median = new LinkedHashMap<>();
    for (Map.Entry<Contender, List<Pass>> e : by.entrySet()) {
      List<Pass> ps = e.getValue();
      double rate = EndToEnd.median(ps.stream().mapToDouble(Pass::recordsPerSecond).toArray());
      median.put(e.getKey(), rate);
      Map<String, Integer> checks = new LinkedHashMap<>();
      for (Pass p : ps) {
        checks.merge(p.check(), 1, Integer::sum);
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %.2f | %.0f | %.0f | %s |%n",
          e.getKey().label,
          rate,
          EndToEnd.median(ps.stream().mapToDouble(p -> p.nanos() / 1e9).toArray()),
          EndToEnd.median(ps.stream().mapToDouble(Pass::youngCount).toArray()),
          EndToEnd.median(ps.stream().mapToDouble(Pass::youngMillis).toArray()),
          String.join(
              ", ",
              checks.entrySet().stream().map(c -> c.getValue() + " x " + c.getKey()).toList()));
    }
    System.out.println();
    List<String> same = new ArrayList<>();
    for (Contender streams :
        List.of(Contender.STREAMS_JOIN_MEMORY, Contender.STREAMS_JOIN_ROCKSDB)) {
      addRatio(same, median, Contender.JOIN, streams);
    }
    for (Contender streams :
        List.of(Contender.STREAMS_JOIN_MEMORY, Contender.STREAMS_JOIN_ROCKSDB)) {
      addRatio(same, median, Contender.KAFKA_JOIN, streams);
    }
    addRatio(same, median, Contender.JOIN, Contender.KAFKA_JOIN);
    addRatio(same, median, Contender.STREAMS_JOIN_MEMORY, Contender.STREAMS_JOIN_ROCKSDB);
    if (!same.isEmpty()) {
      System.out.println("Ratios of the medians, the same join: " + String.join(", ", same));
    }
    List<String> other = new ArrayList<>();
    addRatio(other, median, Contender.RECONCILE, Contender.JOIN);
    for (Contender streams :
        List.of(Contender.STREAMS_JOIN_MEMORY, Contender.STREAMS_JOIN_ROCKSDB)) {
      addRatio(other, median, Contender.RECONCILE, streams);
    }
    if (!other.isEmpty()) {
      System.out.println(
          "Ratios of the medians, different jobs (the reconciliation is a windowed co-group, not a"
              + " join): "
              + String.join(", ", other));
    }
    // The pair counts side by side: the last measured pass of each join.
    List<String> counts = new ArrayList<>();
    Set<Long> distinct = new HashSet<>();
    for (Map.Entry<Contender, List<Pass>> e : by.entrySet()) {
      if (e.getKey() != Contender.RECONCILE) {
        Pass last = e.getValue().get(e.getValue().size() - 1);
        counts.add(
            String.format(
                Locale.ROOT, "%s %,d (sum %,d)", e.getKey().label, last.pairs(), last.pairSum()));
        distinct.add(last.pairs());
      }
    }
    if (!counts.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "Pairs (last round): %s; expected %,d (sum %,d): %s%n",
          String.join(", ", counts),
          ex.pairs(),
          ex.pairSum(),
          distinct.size() == 1 && distinct.contains(ex.pairs())
              ? "the same"
              : "THEY DIFFER (see the checks)");
    }
    List<Pass> mismatches = passes.stream().filter(Pass::mismatch).toList();
    if (!mismatches.isEmpty()) {
      throw new IllegalStateException("mismatches: " + mismatches);
    }
  }

  static void addRatio(List<String> into, Map<Contender, Double> median, Contender a, Contender b) {
    if (median.containsKey(a) && median.containsKey(b)) {
      into.add(
          String.format(
              Locale.ROOT, "%s / %s = %.2f", a.label, b.label, median.get(a) / median.get(b)));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Memory mode

  /** Something measured: built untimed, then filled between the two readings. */
  interface Measured {
    /** Fills the state and returns what must stay reachable until the second reading. */
    Object fill();
  }

  static void memory(Options o) throws Exception {
    int n = o.memoryRecords();
    System.out.printf(
        Locale.ROOT,
        "Retained heap per buffered record, %,d left records of the data (%,d keys, %d"
            + " partitions), median of %d rounds; %s %s, %s%n%n",
        n,
        o.keys(),
        o.partitions(),
        o.memoryRounds(),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    Data d = generate(n, o.keys(), o.partitions(), 0);
    String[] keys = Feed.keyStrings(o.keys());
    byte[][] keyBytes = new byte[keys.length][];
    for (int k = 0; k < keys.length; k++) {
      keyBytes[k] = keys[k].getBytes(StandardCharsets.UTF_8);
    }
    TopicPartition[] sources = new TopicPartition[o.partitions()];
    for (int p = 0; p < sources.length; p++) {
      sources[p] = new TopicPartition(SOURCE, p);
    }
    System.out.println("| structure | records | bytes per record (median) | all rounds |");
    System.out.println("| --- | ---: | ---: | --- |");
    double[] lowwater = new double[2];
    for (boolean fresh : new boolean[] {false, true}) {
      lowwater[fresh ? 1 : 0] =
          report(
              fresh
                  ? "Lowwater StreamJoin, a fresh key String per record (as deserialized)"
                  : "Lowwater StreamJoin, key Strings shared (not counted)",
              n,
              o.memoryRounds(),
              () -> {
                StreamJoin<String, Long, Long, Long> join =
                    StreamJoin.<String, Long, Long, Long>builder(
                            JoinInterval.within(MEMORY_TIME_DIFFERENCE), (k, a, b) -> a + b)
                        .type(JoinType.INNER)
                        .allowedLateness(ALLOWED_LATENESS)
                        .build();
                return () -> {
                  for (int i = 0; i < n; i++) {
                    String key =
                        fresh
                            ? new String(keyBytes[d.key()[i]], StandardCharsets.UTF_8)
                            : keys[d.key()[i]];
                    join.addLeft(sources[d.partition()[i]], d.time()[i], key, d.value()[i]);
                  }
                  if (join.buffered(JoinSide.LEFT) != n || join.late(JoinSide.LEFT) != 0) {
                    throw new IllegalStateException("not every record buffered: " + join);
                  }
                  return join;
                };
              });
    }
    double streams = 0;
    for (boolean withStore : new boolean[] {true, false}) {
      double perRecord =
          report(
              withStore
                  ? "Kafka Streams in-memory join store (TopologyTestDriver, logging disabled)"
                  : "control: TopologyTestDriver, the two streams without a join",
              n,
              o.memoryRounds(),
              () -> {
                Topology topology;
                if (withStore) {
                  topology =
                      joinTopology(
                          new BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers(),
                          MEMORY_TIME_DIFFERENCE,
                          false,
                          null);
                } else {
                  StreamsBuilder b = new StreamsBuilder();
                  Consumed<String, Long> consumed = Consumed.with(Serdes.String(), Serdes.Long());
                  b.stream(SOURCE, consumed).foreach((k, v) -> {});
                  b.stream(TARGET, consumed).foreach((k, v) -> {});
                  topology = b.build();
                }
                Properties props = new Properties();
                props.put(StreamsConfig.APPLICATION_ID_CONFIG, "memory");
                props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
                TopologyTestDriver driver = new TopologyTestDriver(topology, props);
                TestInputTopic<String, Long> input =
                    driver.createInputTopic(SOURCE, new StringSerializer(), new LongSerializer());
                return () -> {
                  for (int i = 0; i < n; i++) {
                    input.pipeInput(keys[d.key()[i]], d.value()[i], d.time()[i]);
                  }
                  long dropped = droppedRecords(driver.metrics());
                  if (dropped != 0) {
                    throw new IllegalStateException(dropped + " records dropped");
                  }
                  return new Object[] {driver, input};
                };
              });
      if (withStore) {
        streams = perRecord;
      }
    }
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Ratios of the medians: Kafka Streams in-memory / Lowwater StreamJoin (keys shared) = %.2f,"
            + " Kafka Streams in-memory / Lowwater StreamJoin (fresh keys) = %.2f%n",
        streams / lowwater[0],
        streams / lowwater[1]);
    System.out.println(
        "Each figure: (used heap after the records - used heap before) / records, each reading the"
            + " least of 4 readings after System.gc(); the keys, the data and the driver are"
            + " created before the first reading.");
  }

  /**
   * Runs {@code rounds} measurements (after one unmeasured one), prints the median and returns it.
   */
  static double report(String what, int n, int rounds, Supplier<Measured> setup)
      throws InterruptedException {
    close(setup.get().fill()); // loads and compiles the classes outside the measurement
    double[] perRecord = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      Measured m = setup.get();
      long before = usedAfterGc();
      Object state = m.fill();
      long after = usedAfterGc();
      Reference.reachabilityFence(state);
      Reference.reachabilityFence(m);
      perRecord[r] = (after - before) / (double) n;
      close(state);
    }
    double[] sorted = perRecord.clone();
    Arrays.sort(sorted);
    StringBuilder all = new StringBuilder();
    for (double v : perRecord) {
      all.append(all.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", v));
    }
    double median = EndToEnd.median(sorted);
    System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %s |%n", what, n, median, all);
    return median;
  }

  static void close(Object state) {
    if (state instanceof Object[] parts && parts[0] instanceof TopologyTestDriver driver) {
      driver.close();
    }
  }

  static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(20);
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }
}
