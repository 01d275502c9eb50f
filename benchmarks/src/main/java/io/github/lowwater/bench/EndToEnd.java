package io.github.lowwater.bench;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.PartitionResultVisitor;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.kafka.RowRecords;
import io.github.lowwater.kafka.TransactionalSink;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindowedKStream;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.Suppressed.BufferConfig;
import org.apache.kafka.streams.kstream.TimeWindowedKStream;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.Stores;

/**
 * End-to-end throughput on a real broker: the same topic read by several loops, interleaved in one
 * JVM, each pass with a fresh consumer or a fresh Kafka Streams application: plain consumer loops,
 * {@link KafkaWindows}, and the Kafka Streams jobs a user would otherwise write. Not JMH: a plain
 * main that times whole passes.
 *
 * <h2>What it does</h2>
 *
 * <ol>
 *   <li>Starts an in-process KRaft broker ({@link InProcessBroker}, a temporary log directory).
 *   <li>Produces {@code --records} records (default 10,000,000) to a topic of {@code --partitions}
 *       partitions (default 6), with {@code String} keys uniform over {@code --keys} (default
 *       100,000; {@code "customer-0000042"}), {@code long} values 1 to 100 ({@code
 *       LongSerializer}), and record timestamps as event time in the pattern of the catch-up feed
 *       ({@link Feed}): partition sizes skewed by log-normal weights ({@code exp(0.75 *
 *       gaussian)}), every partition covering the same span of event time, {@value #GAP_MILLIS} ms
 *       between two records of one partition on average, one record in eight moved back by up to
 *       {@value #MAX_DISORDER_MILLIS} ms (about 150 records of its partition). Record {@code n} of
 *       a partition of {@code c} records is at {@code n * span / c}. At the defaults this is the
 *       "sparse" density of {@link WindowsMatrixBenchmark}: about 18,000 records per 5-minute
 *       window, 0.18 per (window, key). Deterministic (fixed seeds). The skew of the catch-up comes
 *       from the partition sizes and from how the consumer fetches (a poll returns up to 500
 *       records, taken from one partition's fetched batch after another). The sum of the values is
 *       kept: every loop but {@code count} is checked against it.
 *   <li>Then {@code --warmup} rounds (default 1, printed but left out of the summary: the JIT
 *       compiles the consumer and the loops in them) and {@code --rounds} rounds (default 3), each
 *       a pass of every loop of {@code --loops} in its order (default {@code
 *       count,hashmap,windows}). The consumer loops each use a new {@code KafkaConsumer} (its own
 *       group, never committed to: {@code assign} every partition, {@code seekToBeginning}, {@code
 *       max.poll.records} 500, {@code StringDeserializer} and {@code LongDeserializer}) that polls
 *       until it has read every record:
 *       <ol type="i">
 *         <li>{@code count}: counts the records of each poll, one by one;
 *         <li>{@code hashmap}: sums the values per key into one {@code HashMap<String, long[]>}, no
 *             windows;
 *         <li>{@code windows}: feeds {@link KafkaWindows} ({@link ResultScope#PER_PARTITION},
 *             5-minute tumbling windows, 2 minutes of allowed lateness, {@link
 *             Aggregators#sumLong()}, the record timestamp as event time, built with {@code
 *             consumer(consumer)}) with {@code onPoll(records, ConsumerRecord::key,
 *             ConsumerRecord::value)}, then {@code drainFinalized(visitor)}, which adds every
 *             result's value to a checksum; at the end of the topic {@code finishAll()} and a last
 *             {@code drainFinalized}. None of the loops commits offsets;
 *         <li>{@code windows-hopping}: the same with {@code hopping(1 minute)}: 5-minute windows
 *             every minute, each record in 5 windows;
 *         <li>{@code windows-sessions}: the same with {@code KafkaWindows.sessions}: the Kafka
 *             Streams loops' 5-minute inclusive gap as our strict gap of 5 minutes and 1 ms, and
 *             one millisecond less of allowed lateness (the same sessions closed at the same time);
 *         <li>{@code windows-sliding}: the same with {@code KafkaWindows.sliding(5 minutes)}: a
 *             window ending at each record and one starting just after it (issue 36).
 *       </ol>
 *       The Kafka Streams loops ({@code streams-tumbling-rocksdb}, {@code streams-tumbling-memory},
 *       {@code streams-hopping-rocksdb}, {@code streams-hopping-memory}, {@code
 *       streams-sessions-rocksdb}, {@code streams-sessions-memory}, {@code
 *       streams-sliding-rocksdb}, {@code streams-sliding-memory}) each start a new application
 *       ({@link #streamsPass}, {@link #topology}): {@code groupByKey}, {@code
 *       TimeWindows.ofSizeAndGrace(5 min, 2 min)} (hopping: {@code advanceBy(1 min)}), {@code
 *       SessionWindows.ofInactivityGapAndGrace(5 min, 2 min)} or {@code
 *       SlidingWindows.ofTimeDifferenceAndGrace(5 min, 2 min)}, {@code reduce(Long::sum)} into the
 *       default RocksDB store or an in-memory one ({@code Stores.inMemoryWindowStore}, {@code
 *       inMemorySessionStore}, retention 7 minutes), {@code
 *       suppress(Suppressed.untilWindowCloses(unbounded()))}, and a {@code foreach} that adds every
 *       final result to a checksum. One stream thread; otherwise Kafka Streams' defaults
 *       (at-least-once, a commit every 30 s, a 10 MiB record cache, changelogs on, which the broker
 *       in this JVM writes), printed at the start of the run.
 *   <li>Checks the sums: every result sums to the produced sum times the windows a record is in (1,
 *       hopping 5), except in a pass with late records (Lowwater) or dropped records (Kafka
 *       Streams' {@code dropped-records-total}), which is marked "not checked"; a mismatch fails
 *       the run after the summary. It prints a table of the passes and a summary.
 * </ol>
 *
 * <p>A consumer pass is timed from its first {@code poll} to its last record processed (for the
 * windows loops, to the last {@code drainFinalized} after {@code finishAll()}); creating, assigning
 * and closing the consumer are outside. A Kafka Streams pass is timed from the moment the
 * application is {@code RUNNING} (its partitions assigned) to the {@code peek} of the topic's last
 * record, before the grouping; outside the timer: creating the application and joining its group,
 * then, to close every window and check the sum, one record per partition (key {@value #END_KEY},
 * value 0, a day of event time after the topic's end) on a topic of the pass's own that is merged
 * into the stream, and the close, whose cache flush lets the suppression emit the last windows. The
 * table shows both untimed parts ({@code setup s}, {@code teardown s}). {@code System.gc()} runs
 * before each pass, so that each starts with an empty young generation; the garbage-collector
 * counts and times per pass are the differences of the {@link GarbageCollectorMXBean}s over the
 * timed part, and include what the in-process broker allocates while it serves the fetches (and,
 * for Kafka Streams, the changelog writes).
 *
 * <h2>Command</h2>
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.EndToEnd --records 10000000 --keys 100000
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.EndToEnd --records 10000000 --keys 100000 --loops \
 *     count,hashmap,windows,windows-hopping,streams-tumbling-rocksdb,streams-tumbling-memory,\
 *     streams-hopping-rocksdb,streams-hopping-memory,streams-sessions-rocksdb
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.EndToEnd --records 100000 --keys 10000 --loops \
 *     streams-sessions-rocksdb,streams-sessions-memory
 * </pre>
 *
 * <p>(The {@code --loops} list is one argument, without the line breaks.) Options: {@code --records
 * N} (default 10,000,000), {@code --keys N} (100,000), {@code --partitions N} (6), {@code --warmup
 * N} (1), {@code --rounds N} (3), {@code --loops L,L} (count,hashmap,windows). The heap is the
 * JVM's ({@code -Xms2g -Xmx2g}, as the JMH benchmarks; the collector is the default, G1 on this
 * machine). The broker's log lives in a temporary directory (about 33 bytes per record on disk, 330
 * MB at 10M records) that is deleted at the end; each Kafka Streams pass deletes its state
 * directory and its topics (changelogs, end topic) when it ends. A 10M run of the default loops
 * takes about 65 s on the 2-vCPU development machine (production 12 s); the Kafka Streams loops are
 * far slower (see docs/benchmarks.md, which says why the in-memory session store gets a smaller run
 * of its own).
 *
 * <h2>Output</h2>
 *
 * <p>Markdown on standard output: the settings (and Kafka Streams' effective ones), the production
 * time and sum, a table with one row per pass ({@code round | loop | records | seconds | records/s
 * | young GCs | young GC ms | other GCs | other GC ms | setup s | teardown s | sum check}; "young"
 * are the collectors named {@code G1 Young Generation}, {@code Copy}, {@code PS Scavenge} and the
 * like, "other" the rest, for example {@code G1 Old Generation}), then per loop the medians over
 * the measured rounds (records/s, seconds, young GCs, young GC ms, the young GC share of the pass)
 * and its sum checks, the ratios of the medians {@code windows / hashmap}, {@code windows / count}
 * and {@code hashmap / count}, then, for the loops present, {@code windows-hopping / windows}, each
 * Lowwater loop over each Kafka Streams loop of the same windows ({@code windows /
 * streams-tumbling-rocksdb}, ...) and each in-memory Kafka Streams loop over its RocksDB one, and
 * the total time.
 */
public final class EndToEnd {

  static final String TOPIC = "events";

  /** Mean event time between two records of one partition. */
  static final long GAP_MILLIS = 100;

  /** The largest step back of a record moved back (one in eight). */
  static final long MAX_DISORDER_MILLIS = 15_000;

  static final Duration WINDOW_SIZE = Duration.ofMinutes(5);

  /**
   * The hopping loops' advance: each record is in {@code WINDOW_SIZE / HOP_ADVANCE = 5} windows.
   */
  static final Duration HOP_ADVANCE = Duration.ofMinutes(1);

  /**
   * The session loops' inactivity gap: the tumbling window's size. At the defaults a key's records
   * are about 28 minutes of event time apart, so most sessions hold one record.
   */
  static final Duration SESSION_GAP = Duration.ofMinutes(5);

  /** Lowwater's allowed lateness and Kafka Streams' grace period. */
  static final Duration ALLOWED_LATENESS = Duration.ofMinutes(2);

  static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /**
   * How long a Kafka Streams pass may go without a new record before the run fails (a pass itself
   * may take longer: at the smoke run's rates a 10M-record hopping pass takes about 23 minutes).
   */
  static final Duration STREAMS_STALL = Duration.ofMinutes(5);

  /** The key of the end records of a Kafka Streams pass (value 0, not in {@link Feed}'s keys). */
  static final String END_KEY = "~end";

  /** The end records' event time after the topic's newest record: every window has closed. */
  static final long END_AFTER_MILLIS = Duration.ofDays(1).toMillis();

  /** What runs a loop. */
  enum Engine {
    /** A {@code KafkaConsumer} that counts. */
    COUNT,
    /** A {@code KafkaConsumer} that sums per key into a {@code HashMap}. */
    HASHMAP,
    /** A {@code KafkaConsumer} that feeds {@link KafkaWindows}. */
    LOWWATER,
    /**
     * The README loop to a topic: {@link KafkaWindows}, every commit interval its rows sent to an
     * output topic by a plain idempotent producer, flushed, then {@code commitSync}.
     */
    LOWWATER_COMMIT_SYNC,
    /** The same every commit interval through {@code emit(TransactionalSink)}: exactly once. */
    LOWWATER_TRANSACTIONAL,
    /** Kafka Streams with its default (RocksDB) store. */
    STREAMS_ROCKSDB,
    /** Kafka Streams with its in-memory store. */
    STREAMS_MEMORY;

    boolean streams() {
      return this == STREAMS_ROCKSDB || this == STREAMS_MEMORY;
    }
  }

  /** The windows of a loop; {@code NONE} for the loops without windows. */
  enum Shape {
    NONE,
    TUMBLING,
    HOPPING,
    SESSIONS,
    /**
     * Sliding windows of {@code WINDOW_SIZE} (issue 36): how many windows hold a record depends on
     * its neighbours, so the sliding passes are checked against each other, not the produced sum.
     */
    SLIDING;

    /** How many results a record's value is summed into: the checksum over the produced sum. */
    long resultsPerRecord() {
      return this == HOPPING ? WINDOW_SIZE.toMillis() / HOP_ADVANCE.toMillis() : 1;
    }
  }

  /** A loop of a round: its {@code --loops} name, what runs it and its windows. */
  record Loop(String name, Engine engine, Shape shape) {
    static Loop named(String name) {
      for (Loop l : ALL_LOOPS) {
        if (l.name().equals(name)) {
          return l;
        }
      }
      throw new IllegalArgumentException(
          "--loops must name some of " + ALL_LOOPS.stream().map(Loop::name).toList() + ": " + name);
    }
  }

  /** Every loop. */
  static final List<Loop> ALL_LOOPS =
      List.of(
          new Loop("count", Engine.COUNT, Shape.NONE),
          new Loop("hashmap", Engine.HASHMAP, Shape.NONE),
          new Loop("windows", Engine.LOWWATER, Shape.TUMBLING),
          new Loop("windows-hopping", Engine.LOWWATER, Shape.HOPPING),
          new Loop("windows-sessions", Engine.LOWWATER, Shape.SESSIONS),
          new Loop("windows-commitsync", Engine.LOWWATER_COMMIT_SYNC, Shape.TUMBLING),
          new Loop("windows-transactional", Engine.LOWWATER_TRANSACTIONAL, Shape.TUMBLING),
          new Loop("streams-tumbling-rocksdb", Engine.STREAMS_ROCKSDB, Shape.TUMBLING),
          new Loop("streams-tumbling-memory", Engine.STREAMS_MEMORY, Shape.TUMBLING),
          new Loop("streams-hopping-rocksdb", Engine.STREAMS_ROCKSDB, Shape.HOPPING),
          new Loop("streams-hopping-memory", Engine.STREAMS_MEMORY, Shape.HOPPING),
          new Loop("streams-sessions-rocksdb", Engine.STREAMS_ROCKSDB, Shape.SESSIONS),
          new Loop("streams-sessions-memory", Engine.STREAMS_MEMORY, Shape.SESSIONS),
          new Loop("windows-sliding", Engine.LOWWATER, Shape.SLIDING),
          new Loop("streams-sliding-rocksdb", Engine.STREAMS_ROCKSDB, Shape.SLIDING),
          new Loop("streams-sliding-memory", Engine.STREAMS_MEMORY, Shape.SLIDING));

  /** The default loops of a round, in their order. */
  static final List<String> LOOPS = List.of("count", "hashmap", "windows");

  private EndToEnd() {}

  /** The command-line options. */
  record Options(
      long records,
      int keys,
      int partitions,
      int warmup,
      int rounds,
      List<Loop> loops,
      long commitIntervalMillis) {
    static Options parse(String[] args) {
      long records = 10_000_000;
      int keys = 100_000;
      int partitions = 6;
      int warmup = 1;
      int rounds = 3;
      List<String> loops = LOOPS;
      long commitIntervalMillis = 100; // Kafka Streams' commit.interval.ms under exactly-once
      for (int a = 0; a < args.length; a++) {
        String name = args[a];
        if (a + 1 >= args.length) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        String value = args[++a].replace("_", "").replace(",", "");
        switch (name) {
          case "--records" -> records = Long.parseLong(value);
          case "--keys" -> keys = Integer.parseInt(value);
          case "--partitions" -> partitions = Integer.parseInt(value);
          case "--warmup" -> warmup = Integer.parseInt(value);
          case "--rounds" -> rounds = Integer.parseInt(value);
          case "--loops" -> loops = List.of(args[a].split(","));
          case "--commit-interval" -> commitIntervalMillis = Long.parseLong(value);
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + name
                      + " (--records, --keys, --partitions, --warmup, --rounds, --loops,"
                      + " --commit-interval)");
        }
      }
      if (loops.isEmpty() || loops.size() != new HashSet<>(loops).size()) {
        throw new IllegalArgumentException("--loops must name distinct loops: " + loops);
      }
      if (records < partitions || keys < 1 || partitions < 1 || warmup < 0 || rounds < 1) {
        throw new IllegalArgumentException(
            "need records >= partitions >= 1, keys >= 1, warmup >= 0, rounds >= 1: "
                + records
                + ", "
                + partitions
                + ", "
                + keys
                + ", "
                + warmup
                + ", "
                + rounds);
      }
      if (commitIntervalMillis < 0) {
        throw new IllegalArgumentException(
            "--commit-interval must be >= 0: " + commitIntervalMillis);
      }
      return new Options(
          records,
          keys,
          partitions,
          warmup,
          rounds,
          loops.stream().map(Loop::named).toList(),
          commitIntervalMillis);
    }

    /** The event time that one partition's records span. */
    long spanMillis() {
      return records / partitions * GAP_MILLIS;
    }
  }

  /** What was produced: the records and the sum of their values. */
  record Produced(long records, long sum) {}

  /**
   * One timed pass: {@code nanos} is timed; {@code setupNanos} (from the pass's start to the
   * timer's start) and {@code teardownNanos} (from the timer's stop to the pass's end) are not.
   * {@code late} counts the records that no result holds: Lowwater's late records, Kafka Streams'
   * dropped records.
   */
  record Pass(
      int round,
      Loop loop,
      long records,
      long nanos,
      long setupNanos,
      long teardownNanos,
      long youngCount,
      long youngMillis,
      long otherCount,
      long otherMillis,
      long checksum,
      long late) {
    double recordsPerSecond() {
      return records * 1e9 / nanos;
    }

    /** Whether the results sum to what was produced: "ok", "MISMATCH" or why it is not checked. */
    String check(Produced produced) {
      if (loop.engine() == Engine.COUNT) {
        return "n/a";
      }
      if (late > 0) {
        return String.format(Locale.ROOT, "not checked (%,d late)", late);
      }
      if (loop.shape() == Shape.SLIDING) {
        return "sum " + checksum; // the sliding passes must agree with each other
      }
      return checksum == produced.sum() * loop.shape().resultsPerRecord() ? "ok" : "MISMATCH";
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    long begin = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "EndToEnd: %,d records, %,d keys, %d partitions, %d warm-up + %d rounds of %s; %s %s,"
            + " heap max %,d MB, %s%n%n",
        o.records(),
        o.keys(),
        o.partitions(),
        o.warmup(),
        o.rounds(),
        o.loops().stream().map(Loop::name).toList(),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    if (o.loops().stream().anyMatch(l -> l.engine().streams())) {
      System.out.println(streamsSettings());
      System.out.println();
    }
    try (InProcessBroker broker = InProcessBroker.start()) {
      broker.createTopic(TOPIC, o.partitions());
      long t0 = System.nanoTime();
      Produced produced = produce(broker.bootstrapServers(), o);
      long produceNanos = System.nanoTime() - t0;
      System.out.printf(
          Locale.ROOT,
          "Produced %,d records (values summing to %,d) in %.1f s (%,.0f records/s), broker started"
              + " and topic created in %.1f s%n%n",
          produced.records(),
          produced.sum(),
          produceNanos / 1e9,
          produced.records() * 1e9 / produceNanos,
          (t0 - begin) / 1e9);

      List<Pass> passes = new ArrayList<>();
      System.out.println(
          "| round | loop | records | seconds | records/s | young GCs | young GC ms | other GCs |"
              + " other GC ms | setup s | teardown s | sum check |");
      System.out.println(
          "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
      for (int round = 1 - o.warmup(); round <= o.rounds(); round++) {
        for (Loop loop : o.loops()) {
          Pass p = pass(broker, o, round, loop);
          if (round > 0) {
            passes.add(p);
          }
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %,d | %.2f | %,.0f | %d | %d | %d | %d | %.2f | %.2f | %s |%n",
              round > 0 ? Integer.toString(round) : "warm-up",
              loop.name(),
              p.records(),
              p.nanos() / 1e9,
              p.recordsPerSecond(),
              p.youngCount(),
              p.youngMillis(),
              p.otherCount(),
              p.otherMillis(),
              p.setupNanos() / 1e9,
              p.teardownNanos() / 1e9,
              p.check(produced));
        }
      }
      summarize(passes, o, produced);
    }
    System.out.printf(
        Locale.ROOT,
        "%nTotal: %.1f s, broker start and production included.%n",
        (System.nanoTime() - begin) / 1e9);
  }

  // ---------------------------------------------------------------------------------------------
  // Production

  /** Produces the records, partition by partition. */
  static Produced produce(String bootstrap, Options o) throws Exception {
    long[] count = partitionSizes(o.records(), o.partitions());
    long spanMillis = o.spanMillis();
    String[] keys = Feed.keyStrings(o.keys());
    AtomicReference<Exception> failure = new AtomicReference<>();
    SplittableRandom random = new SplittableRandom(0xE2E_5EEDL);
    long sent = 0;
    long sum = 0;
    try (KafkaProducer<String, Long> producer = producer(bootstrap)) {
      for (int p = 0; p < o.partitions(); p++) {
        long c = count[p];
        for (long n = 0; n < c; n++) {
          long t = n * spanMillis / c;
          if (random.nextInt(8) == 0) {
            t = Math.max(0, t - 1 - random.nextLong(MAX_DISORDER_MILLIS));
          }
          String key = keys[random.nextInt(o.keys())];
          long value = 1 + random.nextInt(100);
          producer.send(
              new ProducerRecord<>(TOPIC, p, Feed.BASE_MILLIS + t, key, value),
              (metadata, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                }
              });
          sent++;
          sum += value;
        }
        if (failure.get() != null) {
          break;
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("production failed", failure.get());
    }
    return new Produced(sent, sum);
  }

  static KafkaProducer<String, Long> producer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, LongSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    return new KafkaProducer<>(props);
  }

  /** Skewed partition sizes summing to {@code records}: log-normal weights, at least one each. */
  static long[] partitionSizes(long records, int partitions) {
    SplittableRandom random = new SplittableRandom(0x51_2E5L);
    double[] weight = new double[partitions];
    double total = 0;
    for (int p = 0; p < partitions; p++) {
      weight[p] = Math.exp(0.75 * Feed.gaussian(random)); // as the catch-up feed's
      total += weight[p];
    }
    long[] count = new long[partitions];
    long assigned = 0;
    for (int p = 0; p < partitions; p++) {
      count[p] = 1 + (long) ((records - partitions) * (weight[p] / total));
      assigned += count[p];
    }
    for (int p = 0; assigned < records; p = (p + 1) % partitions) {
      count[p]++;
      assigned++;
    }
    return count;
  }

  // ---------------------------------------------------------------------------------------------
  // Passes

  /** One pass of {@code loop} over the whole topic. */
  static Pass pass(InProcessBroker broker, Options o, int round, Loop loop) throws Exception {
    if (loop.engine() == Engine.LOWWATER_COMMIT_SYNC
        || loop.engine() == Engine.LOWWATER_TRANSACTIONAL) {
      broker.createTopic(outputTopic(loop, round), o.partitions()); // before the clock starts
    }
    return loop.engine().streams()
        ? streamsPass(broker, o, round, loop)
        : consumerPass(broker.bootstrapServers(), o, round, loop);
  }

  static KafkaConsumer<String, Long> consumer(String bootstrap, String clientId) {
    return consumer(bootstrap, clientId, 500);
  }

  /** As {@link #consumer(String, String)}, with another {@code max.poll.records}. */
  static KafkaConsumer<String, Long> consumer(
      String bootstrap, String clientId, int maxPollRecords) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    // A group of its own per pass, never committed to: KafkaWindows reads the (absent) committed
    // checkpoints at assignment and the group watermark every 10 s, as in a real consumer.
    props.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
    return new KafkaConsumer<>(props);
  }

  /** One pass of a consumer loop with a fresh consumer. */
  static Pass consumerPass(String bootstrap, Options o, int round, Loop loop) {
    long begin = System.nanoTime();
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < o.partitions(); p++) {
      partitions.add(new TopicPartition(TOPIC, p));
    }
    long start;
    long end;
    long[] gcBefore;
    long[] gcAfter;
    long[] result;
    try (KafkaConsumer<String, Long> consumer = consumer(bootstrap, loop.name() + "-" + round)) {
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      for (TopicPartition tp : partitions) {
        consumer.position(tp); // resolves the positions before the clock starts
      }
      System.gc();
      gcBefore = gcCounts();
      start = System.nanoTime();
      result =
          switch (loop.engine()) {
            case COUNT -> countLoop(consumer, o.records());
            case HASHMAP -> hashMapLoop(consumer, o.records());
            case LOWWATER -> windowsLoop(lowwater(loop.shape(), consumer), consumer, o.records());
            case LOWWATER_COMMIT_SYNC, LOWWATER_TRANSACTIONAL ->
                outputLoop(loop, round, bootstrap, consumer, o);
            default -> throw new IllegalArgumentException(loop.toString());
          };
      end = System.nanoTime();
      gcAfter = gcCounts();
    }
    return new Pass(
        round,
        loop,
        result[0],
        end - start,
        start - begin,
        System.nanoTime() - end,
        gcAfter[0] - gcBefore[0],
        gcAfter[1] - gcBefore[1],
        gcAfter[2] - gcBefore[2],
        gcAfter[3] - gcBefore[3],
        result[1],
        result[2]);
  }

  /** (i) Counts the records one by one; returns {records, 0, 0}. */
  static long[] countLoop(KafkaConsumer<String, Long> consumer, long total) {
    long records = 0;
    while (records < total) {
      ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
      for (ConsumerRecord<String, Long> r : polled) {
        records++;
      }
    }
    return new long[] {records, 0, 0};
  }

  /** (ii) Sums the values per key into one map; returns {records, sum of all sums, 0}. */
  static long[] hashMapLoop(KafkaConsumer<String, Long> consumer, long total) {
    HashMap<String, long[]> sums = new HashMap<>();
    long records = 0;
    while (records < total) {
      ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
      for (ConsumerRecord<String, Long> r : polled) {
        long[] cell = sums.get(r.key());
        if (cell == null) {
          cell = new long[1];
          sums.put(r.key(), cell);
        }
        cell[0] += r.value();
        records++;
      }
    }
    long checksum = 0;
    for (long[] cell : sums.values()) {
      checksum += cell[0];
    }
    return new long[] {records, checksum, 0};
  }

  /**
   * The Lowwater driver of a windowed loop: {@code PER_PARTITION}, the allowed lateness, {@link
   * Aggregators#sumLong()}, on {@code consumer}.
   */
  static KafkaWindows<String, Long, Long> lowwater(Shape shape, KafkaConsumer<?, ?> consumer) {
    KafkaWindows.Builder<Long, Long> builder =
        switch (shape) {
          case TUMBLING -> KafkaWindows.builder(WINDOW_SIZE, Aggregators.sumLong());
          case HOPPING ->
              KafkaWindows.<Long, Long>builder(WINDOW_SIZE, Aggregators.sumLong())
                  .hopping(HOP_ADVANCE);
          // Kafka Streams' inclusive gap g is our strict gap g + 1 ms, and it closes a session
          // one millisecond before our watermark reaches its end: the same sessions at the same
          // time with one millisecond less of lateness (docs/semantics.md, rule 45).
          case SESSIONS ->
              KafkaWindows.<Long, Long>sessions(SESSION_GAP.plusMillis(1), Aggregators.sumLong());
          // Kafka Streams' time difference d: its [start, end] is our [start, end + 1).
          case SLIDING -> KafkaWindows.<Long, Long>sliding(WINDOW_SIZE, Aggregators.sumLong());
          default -> throw new IllegalArgumentException("no Lowwater loop of " + shape);
        };
    return builder
        .allowedLateness(
            shape == Shape.SESSIONS ? ALLOWED_LATENESS.minusMillis(1) : ALLOWED_LATENESS)
        .resultScope(ResultScope.PER_PARTITION)
        .consumer(consumer)
        .build();
  }

  /**
   * (iii) Feeds {@link KafkaWindows} and drains its results each poll; returns {records, sum of the
   * window results, late records}.
   */
  static long[] windowsLoop(
      KafkaWindows<String, Long, Long> windows, KafkaConsumer<String, Long> consumer, long total) {
    long records = 0;
    Checksum checksum = new Checksum();
    while (records < total) {
      ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
      windows.onPoll(polled, ConsumerRecord::key, ConsumerRecord::value);
      records += polled.count();
      windows.drainFinalized(checksum);
    }
    windows.finishAll();
    windows.drainFinalized(checksum);
    WindowStats stats = windows.stats();
    return new long[] {records, checksum.sum, stats.late()};
  }

  static String outputTopic(Loop loop, int round) {
    return "out-" + loop.name() + "-" + (round <= 0 ? "warmup" + (-round) : round);
  }

  /**
   * (iv) The loops that write their rows to an output topic and commit, once per commit interval
   * (and at the end): {@code windows-commitsync} sends the rows of {@code pollFinalized()} with a
   * plain idempotent producer, as the same records ({@link RowRecords}), flushes and calls {@code
   * commitSync(committableOffsets())} (at least once); {@code windows-transactional} calls {@code
   * emit} with a {@link TransactionalSink} (exactly once). Returns {records, sum of the rows
   * written, late records}.
   */
  static long[] outputLoop(
      Loop loop, int round, String bootstrap, KafkaConsumer<String, Long> consumer, Options o) {
    KafkaWindows<String, Long, Long> windows = lowwater(Shape.TUMBLING, consumer);
    String out = outputTopic(loop, round);
    long intervalNanos = o.commitIntervalMillis() * 1_000_000;
    long[] sum = {0};
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrap);
    config.put("linger.ms", "5");
    config.put("enable.idempotence", "true");
    config.put("acks", "all");
    boolean transactional = loop.engine() == Engine.LOWWATER_TRANSACTIONAL;
    if (transactional) {
      config.put("transactional.id", out);
    }
    LongSerializer values = new LongSerializer();
    StringSerializer keys = new StringSerializer();
    RowRecords<String, Long> format = RowRecords.of(windows, out, keys, values);
    List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> plain =
            transactional
                ? null
                : new KafkaProducer<>(
                    config, new ByteArraySerializer(), new ByteArraySerializer());
        TransactionalSink<String, Long> sink =
            transactional
                ? TransactionalSink.builder(windows, out, config)
                    .keySerializer(keys)
                    .valueSerializer(values)
                    .build()
                : null) {
      ResultSink<String, Long> counted =
          transactional
              ? new ResultSink<>() {
                @Override
                public void write(List<WindowResult<String, Long>> rows) {
                  sink.write(rows);
                  for (WindowResult<String, Long> r : rows) {
                    sum[0] += r.value();
                  }
                }

                @Override
                public void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
                  sink.commit(offsets);
                }
              }
              : null;
      long records = 0;
      long lastCommit = System.nanoTime();
      boolean done = false;
      while (!done) {
        ConsumerRecords<String, Long> polled = consumer.poll(POLL_TIMEOUT);
        windows.onPoll(polled, ConsumerRecord::key, ConsumerRecord::value);
        records += polled.count();
        done = records >= o.records();
        if (done) {
          windows.finishAll();
        }
        if (!done && System.nanoTime() - lastCommit < intervalNanos) {
          continue;
        }
        lastCommit = System.nanoTime();
        if (transactional) {
          windows.emit(counted);
        } else {
          for (WindowResult<String, Long> r : windows.pollFinalized()) {
            format.add(r, batch); // the records TransactionalSink sends
            sum[0] += r.value();
          }
          for (ProducerRecord<byte[], byte[]> r : batch) {
            plain.send(r);
          }
          batch.clear();
          plain.flush();
          consumer.commitSync(windows.committableOffsets());
        }
      }
      return new long[] {records, sum[0], windows.stats().late()};
    }
  }

  /** Adds every window result to a sum, as a primitive: the sink of the windows loops. */
  static final class Checksum implements PartitionResultVisitor<String, Long> {
    long sum;

    @Override
    public void visit(TopicPartition partition, long start, long end, String key, Long value) {
      sum += value;
    }

    @Override
    public void visitLong(TopicPartition partition, long start, long end, String key, long value) {
      sum += value;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Kafka Streams

  /**
   * The Kafka Streams settings of every pass: one stream thread and a state directory of its own;
   * the rest (processing guarantee, commit interval, cache, consumer) are Kafka Streams' defaults.
   */
  static Properties streamsConfig(String bootstrap, String applicationId, Path stateDir) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    return props;
  }

  /** The effective values of the settings the docs name, read back from {@link StreamsConfig}. */
  static String streamsSettings() {
    StreamsConfig config =
        new StreamsConfig(streamsConfig("127.0.0.1:9092", "settings", Path.of("state")));
    Map<String, Object> consumer = config.getMainConsumerConfigs("settings", "settings-c", 0);
    return String.format(
        Locale.ROOT,
        "Kafka Streams: %s=%s, %s=%d, %s=%d, %s=%d, consumer %s=%s, %s=%s; tumbling and hopping"
            + " %d s windows (hopping advance %d s), sessions gap %d s, grace %d s, suppress"
            + " untilWindowCloses(unbounded())",
        StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
        config.getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG),
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
        config.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG),
        StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG,
        config.getLong(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG),
        StreamsConfig.NUM_STREAM_THREADS_CONFIG,
        config.getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG),
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        consumer.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG),
        StreamsConfig.MAX_TASK_IDLE_MS_CONFIG,
        config.getLong(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG),
        WINDOW_SIZE.toSeconds(),
        HOP_ADVANCE.toSeconds(),
        SESSION_GAP.toSeconds(),
        ALLOWED_LATENESS.toSeconds());
  }

  /**
   * One pass of a Kafka Streams loop: a new application (its own {@code application.id}, so it
   * reads the topic from the beginning; its own state directory), timed from the moment it is
   * running (or its first record, if earlier) to its last record of the topic. Then, untimed, one
   * end record per partition on a topic of the pass's own, far in event time, which closes every
   * window, and the close, which flushes the cache so that the suppression emits them; then the
   * state directory and the application's topics are deleted.
   */
  static Pass streamsPass(InProcessBroker broker, Options o, int round, Loop loop)
      throws Exception {
    long begin = System.nanoTime();
    String applicationId = loop.name() + "-" + round;
    String endTopic = applicationId + "-end";
    broker.createTopic(endTopic, o.partitions());
    Path stateDir = Files.createTempDirectory("lowwater-streams-");
    StreamsProbe probe = new StreamsProbe(o.records(), o.partitions());
    KafkaStreams streams =
        new KafkaStreams(
            topology(loop, endTopic, probe),
            streamsConfig(broker.bootstrapServers(), applicationId, stateDir));
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
      await(probe.allRecords, probe, streams, "the topic's last record");
      try (KafkaProducer<String, Long> producer = producer(broker.bootstrapServers())) {
        long endMillis = Feed.BASE_MILLIS + o.spanMillis() + END_AFTER_MILLIS;
        for (int p = 0; p < o.partitions(); p++) {
          producer.send(new ProducerRecord<>(endTopic, p, endMillis, END_KEY, 0L)).get();
        }
      }
      await(probe.allEnds, probe, streams, "the end records");
      dropped = droppedRecords(streams);
    } finally {
      if (!streams.close(Duration.ofMinutes(2))) {
        throw new IllegalStateException(applicationId + " did not close within 2 minutes");
      }
      streams.cleanUp();
      deleteRecursively(stateDir);
      broker.deleteTopicsStartingWith(applicationId + "-");
    }
    if (probe.failure.get() != null) {
      throw new IllegalStateException(applicationId + " failed", probe.failure.get());
    }
    long end = System.nanoTime();
    long[] gcBefore = probe.gcAtStart;
    long[] gcAfter = probe.gcAtLastRecord;
    return new Pass(
        round,
        loop,
        probe.records,
        probe.lastRecordNanos - probe.startNanos,
        probe.startNanos - begin,
        end - probe.lastRecordNanos,
        gcAfter[0] - gcBefore[0],
        gcAfter[1] - gcBefore[1],
        gcAfter[2] - gcBefore[2],
        gcAfter[3] - gcBefore[3],
        probe.sum, // read after close, which joined the stream thread
        dropped);
  }

  /**
   * The job a user would write: the topic (and the pass's end topic, merged into it) grouped by
   * key, windowed, {@code reduce(Long::sum)} into the engine's store, final results only ({@code
   * suppress(untilWindowCloses(unbounded()))}), every result's value added to the probe's sum. A
   * {@code peek} before the grouping counts the records.
   */
  static Topology topology(Loop loop, String endTopic, StreamsProbe probe) {
    StreamsBuilder builder = new StreamsBuilder();
    Consumed<String, Long> consumed = Consumed.with(Serdes.String(), Serdes.Long());
    KStream<String, Long> records = builder.stream(TOPIC, consumed).peek((k, v) -> probe.record());
    KStream<String, Long> ends = builder.stream(endTopic, consumed).peek((k, v) -> probe.end());
    KGroupedStream<String, Long> grouped =
        records.merge(ends).groupByKey(Grouped.with(Serdes.String(), Serdes.Long()));
    boolean memory = loop.engine() == Engine.STREAMS_MEMORY;
    Duration retention = WINDOW_SIZE.plus(ALLOWED_LATENESS); // the least Kafka Streams accepts
    KTable<Windowed<String>, Long> sums =
        switch (loop.shape()) {
          case TUMBLING, HOPPING -> {
            TimeWindows windows = TimeWindows.ofSizeAndGrace(WINDOW_SIZE, ALLOWED_LATENESS);
            TimeWindowedKStream<String, Long> windowed =
                grouped.windowedBy(
                    loop.shape() == Shape.HOPPING ? windows.advanceBy(HOP_ADVANCE) : windows);
            yield memory
                ? windowed.reduce(
                    Long::sum,
                    Materialized.<String, Long>as(
                            Stores.inMemoryWindowStore("sums", retention, WINDOW_SIZE, false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                : windowed.reduce(Long::sum);
          }
          case SESSIONS -> {
            SessionWindowedKStream<String, Long> windowed =
                grouped.windowedBy(
                    SessionWindows.ofInactivityGapAndGrace(SESSION_GAP, ALLOWED_LATENESS));
            yield memory
                ? windowed.reduce(
                    Long::sum,
                    Materialized.<String, Long>as(
                            Stores.inMemorySessionStore("sums", SESSION_GAP.plus(ALLOWED_LATENESS)))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                : windowed.reduce(Long::sum);
          }
          case SLIDING -> {
            TimeWindowedKStream<String, Long> windowed =
                grouped.windowedBy(
                    SlidingWindows.ofTimeDifferenceAndGrace(WINDOW_SIZE, ALLOWED_LATENESS));
            // The least retention it accepts: 2d + grace (rule 77's mapping needs more only for
            // records behind their own window, which this feed's disorder never makes).
            Duration slidingRetention = WINDOW_SIZE.multipliedBy(2).plus(ALLOWED_LATENESS);
            yield memory
                ? windowed.reduce(
                    Long::sum,
                    Materialized.<String, Long>as(
                            Stores.inMemoryWindowStore(
                                "sums", slidingRetention, WINDOW_SIZE, false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                : windowed.reduce(Long::sum);
          }
          default -> throw new IllegalArgumentException("no Kafka Streams job of " + loop);
        };
    sums.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
        .toStream()
        .foreach((window, sum) -> probe.result(sum));
    return builder.build();
  }

  /**
   * What a Kafka Streams pass sees. The counters are written by its one stream thread only and read
   * by the main thread after a latch or after the close; the timestamps are volatile.
   */
  static final class StreamsProbe {
    final long records;
    final CountDownLatch allRecords = new CountDownLatch(1);
    final CountDownLatch allEnds;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile long startNanos;
    volatile long[] gcAtStart;
    volatile long lastRecordNanos;
    volatile long[] gcAtLastRecord;
    volatile long seen;
    volatile long endsSeen;
    long sum;

    StreamsProbe(long records, int partitions) {
      this.records = records;
      this.allEnds = new CountDownLatch(partitions);
    }

    /** Starts the timer, once: when the application is running or at its first record. */
    synchronized void started() {
      if (gcAtStart == null) {
        gcAtStart = gcCounts();
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
        gcAtLastRecord = gcCounts();
        allRecords.countDown();
      }
    }

    void end() {
      endsSeen = endsSeen + 1; // one writer
      allEnds.countDown();
    }

    void result(Long value) {
      if (value != null) { // a merged-away session's tombstone, if one reaches the sink
        sum += value;
      }
    }
  }

  /**
   * Waits for {@code latch}, failing on the application's failure or after {@link #STREAMS_STALL}
   * without a new record.
   */
  static void await(CountDownLatch latch, StreamsProbe probe, KafkaStreams streams, String what)
      throws InterruptedException {
    long seen = -1;
    long progressNanos = System.nanoTime();
    while (!latch.await(100, TimeUnit.MILLISECONDS)) { // polling with a deadline
      KafkaStreams.State state = streams.state();
      if (probe.failure.get() != null || state.hasStartedOrFinishedShuttingDown()) {
        throw new IllegalStateException(
            "Kafka Streams stopped (" + state + ") before " + what, probe.failure.get());
      }
      long now = probe.seen + probe.endsSeen;
      if (now != seen) {
        seen = now;
        progressNanos = System.nanoTime();
      } else if (System.nanoTime() - progressNanos > STREAMS_STALL.toNanos()) {
        throw new IllegalStateException(
            what + " not seen: no new record for " + STREAMS_STALL + " after " + seen);
      }
    }
  }

  /** The records Kafka Streams dropped (late for their window, among others), over its tasks. */
  static long droppedRecords(KafkaStreams streams) {
    double dropped = 0;
    for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
      if (e.getKey().name().equals("dropped-records-total")
          && e.getValue().metricValue() instanceof Number n) {
        dropped += n.doubleValue();
      }
    }
    return (long) dropped;
  }

  static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Garbage collection

  /** {young count, young ms, other count, other ms} over every collector of this JVM. */
  static long[] gcCounts() {
    long[] c = new long[4];
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      int at = isYoung(gc.getName()) ? 0 : 2;
      c[at] += Math.max(0, gc.getCollectionCount());
      c[at + 1] += Math.max(0, gc.getCollectionTime());
    }
    return c;
  }

  /** The young-generation collectors of HotSpot's collectors, by their bean names. */
  static boolean isYoung(String name) {
    return name.contains("Young")
        || name.equals("Copy")
        || name.equals("PS Scavenge")
        || name.equals("ParNew")
        || name.contains("Minor");
  }

  // ---------------------------------------------------------------------------------------------
  // Summary

  static void summarize(List<Pass> passes, Options o, Produced produced) {
    Map<String, List<Pass>> byLoop = new LinkedHashMap<>();
    for (Pass p : passes) {
      byLoop.computeIfAbsent(p.loop().name(), k -> new ArrayList<>()).add(p);
    }
    for (Pass p : passes) {
      if (p.records() != o.records()) { // never: a pass reads until it has seen them all
        throw new IllegalStateException("a pass read " + p.records() + " records: " + p);
      }
    }
    System.out.println();
    System.out.println(
        "| loop | median records/s | median seconds | young GCs (median) | young GC ms (median) |"
            + " young GC share of the pass (median) | sum checks |");
    System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    Map<String, Double> median = new LinkedHashMap<>();
    List<Pass> mismatches = new ArrayList<>();
    for (Map.Entry<String, List<Pass>> e : byLoop.entrySet()) {
      List<Pass> ps = e.getValue();
      double rate = median(ps.stream().mapToDouble(Pass::recordsPerSecond).toArray());
      median.put(e.getKey(), rate);
      Map<String, Integer> checks = new TreeMap<>();
      for (Pass p : ps) {
        checks.merge(p.check(produced), 1, Integer::sum);
        if (p.check(produced).equals("MISMATCH")) {
          mismatches.add(p);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %.2f | %.0f | %.0f | %.1f%% | %s |%n",
          e.getKey(),
          rate,
          median(ps.stream().mapToDouble(p -> p.nanos() / 1e9).toArray()),
          median(ps.stream().mapToDouble(Pass::youngCount).toArray()),
          median(ps.stream().mapToDouble(Pass::youngMillis).toArray()),
          median(ps.stream().mapToDouble(p -> p.youngMillis() * 1e6 / p.nanos()).toArray()) * 100,
          checks.entrySet().stream()
              .map(c -> c.getValue() + " x " + c.getKey())
              .collect(Collectors.joining(", ")));
    }
    System.out.println();
    System.out.println(
        "Ratios of the medians: "
            + ratio(median, "windows", "hashmap")
            + ", "
            + ratio(median, "windows", "count")
            + ", "
            + ratio(median, "hashmap", "count"));
    List<String> against = new ArrayList<>();
    if (median.containsKey("windows-hopping") && median.containsKey("windows")) {
      against.add(ratio(median, "windows-hopping", "windows"));
    }
    if (median.containsKey("windows-transactional") && median.containsKey("windows-commitsync")) {
      against.add(ratio(median, "windows-transactional", "windows-commitsync"));
    }
    for (Loop a : ALL_LOOPS) {
      for (Loop b : ALL_LOOPS) {
        boolean lowwaterOverStreams =
            a.engine() == Engine.LOWWATER && b.engine().streams() && a.shape() == b.shape();
        boolean memoryOverRocksDb =
            a.engine() == Engine.STREAMS_MEMORY
                && b.engine() == Engine.STREAMS_ROCKSDB
                && a.shape() == b.shape();
        if ((lowwaterOverStreams || memoryOverRocksDb)
            && median.containsKey(a.name())
            && median.containsKey(b.name())) {
          against.add(ratio(median, a.name(), b.name()));
        }
      }
    }
    if (!against.isEmpty()) {
      System.out.println("Ratios of the medians, same windows: " + String.join(", ", against));
    }
    System.out.printf(
        Locale.ROOT,
        "Sums: every result of a checked pass sums to the produced %,d times the results a record"
            + " is in (1; hopping %d); a pass with late or dropped records is not checked.%n",
        produced.sum(),
        Shape.HOPPING.resultsPerRecord());
    Set<Long> slidingSums = new TreeSet<>();
    for (Pass p : passes) {
      if (p.loop().shape() == Shape.SLIDING && p.late() == 0) {
        slidingSums.add(p.checksum());
      }
    }
    if (slidingSums.size() > 1) {
      throw new IllegalStateException("the sliding passes' sums differ: " + slidingSums);
    }
    if (!slidingSums.isEmpty()) {
      System.out.println("Sliding sums: every sliding pass sums to " + slidingSums);
    }
    if (!mismatches.isEmpty()) {
      throw new IllegalStateException("sums that differ from the produced sum: " + mismatches);
    }
  }

  static String ratio(Map<String, Double> median, String a, String b) {
    return median.containsKey(a) && median.containsKey(b)
        ? String.format(Locale.ROOT, "%s / %s = %.2f", a, b, median.get(a) / median.get(b))
        : a + " / " + b + " = n/a";
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
