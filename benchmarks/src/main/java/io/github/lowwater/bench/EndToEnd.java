package io.github.lowwater.bench;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.PartitionResultVisitor;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowStats;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * End-to-end throughput of a consumer loop on a real broker: the same topic read by three loops,
 * interleaved, each pass with a fresh consumer. Not JMH: a plain main that times whole passes.
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
 *       records, taken from one partition's fetched batch after another).
 *   <li>Then {@code --warmup} rounds (default 1, printed but left out of the summary: the JIT
 *       compiles the consumer and the loops in them) and {@code --rounds} rounds (default 3), each
 *       of three passes in this order ({@code --loops}, default {@code count,hashmap,windows}),
 *       each pass with a new {@code KafkaConsumer} (no group: {@code assign} every partition,
 *       {@code seekToBeginning}, {@code max.poll.records} 500, {@code StringDeserializer} and
 *       {@code LongDeserializer}) that polls until it has read every record:
 *       <ol type="i">
 *         <li>{@code count}: counts the records of each poll, one by one;
 *         <li>{@code hashmap}: sums the values per key into one {@code HashMap<String, long[]>}, no
 *             windows;
 *         <li>{@code windows}: feeds {@link KafkaWindows} ({@link ResultScope#PER_PARTITION},
 *             5-minute windows, 2 minutes of allowed lateness, {@link Aggregators#sumLong()}, the
 *             record timestamp as event time) with {@code onPoll(records, ConsumerRecord::key,
 *             ConsumerRecord::value)}, then {@code drainFinalized(visitor)}, which adds every
 *             result's value to a checksum; at the end of the topic {@code finishAll()} and a last
 *             {@code drainFinalized}. The driver is built without {@code consumer(...)}: no
 *             checkpoint read, no group watermark, and none of the loops commits offsets.
 *       </ol>
 *   <li>Checks that the three loops agree (records; the sum of the values; the sum of the window
 *       results plus the late records' count) and prints a table of the passes and a summary.
 * </ol>
 *
 * <p>A pass is timed from its first {@code poll} to its last record processed (for {@code windows},
 * to the last {@code drainFinalized} after {@code finishAll()}); creating, assigning and closing
 * the consumer are outside. {@code System.gc()} runs before each pass, so that each starts with an
 * empty young generation; the garbage-collector counts and times per pass are the differences of
 * the {@link GarbageCollectorMXBean}s, and include what the in-process broker allocates while it
 * serves the fetches (the same for every loop).
 *
 * <h2>Command</h2>
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.EndToEnd --records 10000000 --keys 100000
 * </pre>
 *
 * <p>Options: {@code --records N} (default 10,000,000), {@code --keys N} (100,000), {@code
 * --partitions N} (6), {@code --warmup N} (1), {@code --rounds N} (3), {@code --loops L,L}
 * (count,hashmap,windows). The heap is the JVM's ({@code -Xms2g -Xmx2g}, as the JMH benchmarks; the
 * collector is the default, G1 on this machine). The broker's log lives in a temporary directory
 * (about 33 bytes per record on disk, 330 MB at 10M records) that is deleted at the end. A 10M run
 * takes about 65 s on the 2-vCPU development machine (production 12 s).
 *
 * <h2>Output</h2>
 *
 * <p>Markdown on standard output: the settings, the production time, a table with one row per pass
 * ({@code round | loop | records | seconds | records/s | young GCs | young GC ms | other GCs |
 * other GC ms}; "young" are the collectors named {@code G1 Young Generation}, {@code Copy}, {@code
 * PS Scavenge} and the like, "other" the rest, for example {@code G1 Old Generation}), then per
 * loop the medians over the measured rounds (records/s, seconds, young GCs, young GC ms, the young
 * GC share of the pass), the ratios of the medians {@code windows / hashmap}, {@code windows /
 * count} and {@code hashmap / count}, and the total time.
 */
public final class EndToEnd {

  static final String TOPIC = "events";

  /** Mean event time between two records of one partition. */
  static final long GAP_MILLIS = 100;

  /** The largest step back of a record moved back (one in eight). */
  static final long MAX_DISORDER_MILLIS = 15_000;

  static final Duration WINDOW_SIZE = Duration.ofMinutes(5);
  static final Duration ALLOWED_LATENESS = Duration.ofMinutes(2);
  static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /** The loops of a round, in their order. */
  static final List<String> LOOPS = List.of("count", "hashmap", "windows");

  private EndToEnd() {}

  /** The command-line options. */
  record Options(
      long records, int keys, int partitions, int warmup, int rounds, List<String> loops) {
    static Options parse(String[] args) {
      long records = 10_000_000;
      int keys = 100_000;
      int partitions = 6;
      int warmup = 1;
      int rounds = 3;
      List<String> loops = LOOPS;
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
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + name
                      + " (--records, --keys, --partitions, --warmup, --rounds, --loops)");
        }
      }
      if (!LOOPS.containsAll(loops) || loops.isEmpty()) {
        throw new IllegalArgumentException("--loops must name some of " + LOOPS + ": " + loops);
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
      return new Options(records, keys, partitions, warmup, rounds, loops);
    }
  }

  /** One timed pass. */
  record Pass(
      int round,
      String loop,
      long records,
      long nanos,
      long youngCount,
      long youngMillis,
      long otherCount,
      long otherMillis,
      long checksum,
      long late) {
    double recordsPerSecond() {
      return records * 1e9 / nanos;
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
        o.loops(),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    try (InProcessBroker broker = InProcessBroker.start()) {
      broker.createTopic(TOPIC, o.partitions());
      long t0 = System.nanoTime();
      long produced = produce(broker.bootstrapServers(), o);
      long produceNanos = System.nanoTime() - t0;
      System.out.printf(
          Locale.ROOT,
          "Produced %,d records in %.1f s (%,.0f records/s), broker started and topic created in"
              + " %.1f s%n%n",
          produced,
          produceNanos / 1e9,
          produced * 1e9 / produceNanos,
          (t0 - begin) / 1e9);

      List<Pass> passes = new ArrayList<>();
      System.out.println(
          "| round | loop | records | seconds | records/s | young GCs | young GC ms | other GCs |"
              + " other GC ms |");
      System.out.println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
      for (int round = 1 - o.warmup(); round <= o.rounds(); round++) {
        for (String loop : o.loops()) {
          Pass p = pass(broker.bootstrapServers(), o, round, loop);
          if (round > 0) {
            passes.add(p);
          }
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %,d | %.2f | %,.0f | %d | %d | %d | %d |%n",
              round > 0 ? Integer.toString(round) : "warm-up",
              p.loop(),
              p.records(),
              p.nanos() / 1e9,
              p.recordsPerSecond(),
              p.youngCount(),
              p.youngMillis(),
              p.otherCount(),
              p.otherMillis());
        }
      }
      summarize(passes, o);
    }
    System.out.printf(
        Locale.ROOT,
        "%nTotal: %.1f s, broker start and production included.%n",
        (System.nanoTime() - begin) / 1e9);
  }

  // ---------------------------------------------------------------------------------------------
  // Production

  /** Produces the records, partition by partition; returns how many. */
  static long produce(String bootstrap, Options o) throws Exception {
    long[] count = partitionSizes(o.records(), o.partitions());
    long meanPerPartition = o.records() / o.partitions();
    long spanMillis = meanPerPartition * GAP_MILLIS;
    String[] keys = Feed.keyStrings(o.keys());
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, LongSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    AtomicReference<Exception> failure = new AtomicReference<>();
    SplittableRandom random = new SplittableRandom(0xE2E_5EEDL);
    long sent = 0;
    try (KafkaProducer<String, Long> producer = new KafkaProducer<>(props)) {
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
    return sent;
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
  // Consumption

  static KafkaConsumer<String, Long> consumer(String bootstrap, String clientId) {
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
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    return new KafkaConsumer<>(props);
  }

  /** One pass of {@code loop} over the whole topic with a fresh consumer. */
  static Pass pass(String bootstrap, Options o, int round, String loop) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < o.partitions(); p++) {
      partitions.add(new TopicPartition(TOPIC, p));
    }
    try (KafkaConsumer<String, Long> consumer = consumer(bootstrap, loop + "-" + round)) {
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      for (TopicPartition tp : partitions) {
        consumer.position(tp); // resolves the positions before the clock starts
      }
      System.gc();
      long[] gcBefore = gcCounts();
      long start = System.nanoTime();
      long[] result =
          switch (loop) {
            case "count" -> countLoop(consumer, o.records());
            case "hashmap" -> hashMapLoop(consumer, o.records());
            case "windows" -> windowsLoop(consumer, o.records());
            default -> throw new IllegalArgumentException(loop);
          };
      long nanos = System.nanoTime() - start;
      long[] gcAfter = gcCounts();
      return new Pass(
          round,
          loop,
          result[0],
          nanos,
          gcAfter[0] - gcBefore[0],
          gcAfter[1] - gcBefore[1],
          gcAfter[2] - gcBefore[2],
          gcAfter[3] - gcBefore[3],
          result[1],
          result[2]);
    }
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
   * (iii) Feeds {@link KafkaWindows} and drains its results each poll; returns {records, sum of the
   * window results, late records}.
   */
  static long[] windowsLoop(KafkaConsumer<String, Long> consumer, long total) {
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(WINDOW_SIZE, Aggregators.sumLong())
            .allowedLateness(ALLOWED_LATENESS)
            .resultScope(ResultScope.PER_PARTITION)
            .consumer(consumer)
            .build();
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

  /** Adds every window result to a sum, as a primitive: the sink of the windows loop. */
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

  static void summarize(List<Pass> passes, Options o) {
    Map<String, List<Pass>> byLoop = new LinkedHashMap<>();
    for (Pass p : passes) {
      byLoop.computeIfAbsent(p.loop(), k -> new ArrayList<>()).add(p);
    }
    for (Pass p : passes) {
      if (p.records() != o.records()) { // never: a pass polls until it has read them all
        throw new IllegalStateException("a pass read " + p.records() + " records: " + p);
      }
    }
    long late = byLoop.containsKey("windows") ? byLoop.get("windows").get(0).late() : 0;
    if (byLoop.containsKey("hashmap") && byLoop.containsKey("windows")) {
      long mapSum = byLoop.get("hashmap").get(0).checksum();
      for (Pass p : byLoop.get("windows")) {
        // A late record is counted, not summed: the sums agree when there is none.
        if (p.late() == 0 && p.checksum() != mapSum) {
          throw new IllegalStateException(
              "windows summed " + p.checksum() + " but the map summed " + mapSum + ": " + p);
        }
      }
    }
    System.out.println();
    System.out.println(
        "| loop | median records/s | median seconds | young GCs (median) | young GC ms (median) |"
            + " young GC share of the pass (median) |");
    System.out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
    Map<String, Double> median = new LinkedHashMap<>();
    for (Map.Entry<String, List<Pass>> e : byLoop.entrySet()) {
      List<Pass> ps = e.getValue();
      double rate = median(ps.stream().mapToDouble(Pass::recordsPerSecond).toArray());
      median.put(e.getKey(), rate);
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %.2f | %.0f | %.0f | %.1f%% |%n",
          e.getKey(),
          rate,
          median(ps.stream().mapToDouble(p -> p.nanos() / 1e9).toArray()),
          median(ps.stream().mapToDouble(Pass::youngCount).toArray()),
          median(ps.stream().mapToDouble(Pass::youngMillis).toArray()),
          median(ps.stream().mapToDouble(p -> p.youngMillis() * 1e6 / p.nanos()).toArray()) * 100);
    }
    System.out.println();
    System.out.println(
        "Ratios of the medians: "
            + ratio(median, "windows", "hashmap")
            + ", "
            + ratio(median, "windows", "count")
            + ", "
            + ratio(median, "hashmap", "count")
            + String.format(
                Locale.ROOT,
                " (late records in the windows pass: %,d; window sums equal the map's: %s)",
                late,
                late == 0 && byLoop.containsKey("hashmap") && byLoop.containsKey("windows")
                    ? "yes"
                    : "not checked"));
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
