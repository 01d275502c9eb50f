package io.github.lowwater.examples;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.testing.GlobalMaxWindows;
import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import io.github.lowwater.tuning.Advisor;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import io.github.lowwater.window.Aggregators;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo on a real broker (in-process by default): a six-partition feed with a 40-minute backlog
 * (the catch-up after a restart), ten live minutes during which partitions 3-5 go quiet for the
 * night, then an all-quiet lull. One consumer feeds every record to a global-max watermark and to
 * Lowwater ({@link KafkaWindows}) side by side.
 *
 * <p>The library runs on a simulated clock ({@link ManualClock}: 200 ms per catch-up poll, real
 * minutes compressed during the live phase and the lull) so that the overnight lull takes seconds;
 * the broker, the records and the consumer are real.
 */
final class BrokerDemo {

  static final int PARTITIONS = 6;
  static final Duration BACKLOG = Duration.ofMinutes(40);
  static final int LIVE_MINUTES = 10;
  static final Duration WINDOW = Duration.ofMinutes(5);
  static final Duration LATENESS = Duration.ofMinutes(2);
  static final Duration QUIET = Duration.ofSeconds(90);
  static final Duration POLL = Duration.ofMillis(100);

  private BrokerDemo() {}

  static void run(String bootstrapServers, Path svg, PrintStream out) throws Exception {
    OnBroker.run(bootstrapServers, out, (bootstrap, started) -> run0(bootstrap, svg, out));
  }

  private static void run0(String bootstrap, Path svg, PrintStream out) throws Exception {
    String topic = "lowwater-demo-" + System.currentTimeMillis();
    createTopic(bootstrap, topic);
    long base = SyntheticFeed.BASE_MILLIS;
    List<List<Event>> backlog =
        SyntheticFeed.generate(PARTITIONS, base, BACKLOG.toMillis(), 250, 42);
    List<Event> produced = new ArrayList<>();
    backlog.forEach(produced::addAll);
    produce(bootstrap, topic, produced);
    out.printf(
        "produced a backlog of %,d records (%d partitions x %d min) to topic %s%n",
        produced.size(), PARTITIONS, BACKLOG.toMinutes(), topic);

    ManualClock clock = new ManualClock(Instant.ofEpochMilli(base).plus(BACKLOG));
    GlobalMaxWindows globalMax = new GlobalMaxWindows(WINDOW.toMillis(), LATENESS.toMillis());
    TreeMap<Long, TreeMap<String, Long>> lowwaterResults = new TreeMap<>();
    DemoChart chart = new DemoChart();
    long[] frontiers = new long[PARTITIONS];
    java.util.Arrays.fill(frontiers, Long.MIN_VALUE);
    long[] maxLag = new long[2]; // global max, Lowwater: behind the newest event seen
    long lastRecordWall = clock.wallMillis();
    // The disorder each partition showed, for the advisor's recommendation at the end.
    DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
    SourceDisorder[] recorded = new SourceDisorder[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      recorded[p] = recorder.source(p);
    }
    Recording rec = new Recording(recorder, recorded);
    long lateLowwater;

    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, topic)) {
      KafkaWindows<String, Long, Long> windows =
          KafkaWindows.builder(WINDOW, Aggregators.sumLong())
              .allowedLateness(LATENESS)
              .idleTimeout(Duration.ofMinutes(2))
              .quietAdvanceAfter(QUIET)
              .consumer(consumer)
              .clock(clock)
              .build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());

      // 1. The catch-up: drain the backlog, 200 ms of simulated processing time per poll. The
      //    consumer's own fetch order drains the partitions unevenly, as after a real restart:
      //    the chart shows the frontiers climbing one after another.
      out.println("catch-up:");
      Set<Integer> delivered = new HashSet<>();
      long consumed = 0;
      int polls = 0;
      chart.sample(
          consumed, clock.wallMillis(), frontiers, windows.watermark(), globalMax.watermark());
      while (consumed < produced.size()) {
        clock.advanceMillis(200);
        ConsumerRecords<String, String> records = consumer.poll(POLL);
        consumed +=
            feed(records, consumed, windows, globalMax, chart, frontiers, delivered, clock, rec);
        if (!records.isEmpty()) {
          lastRecordWall = clock.wallMillis();
        }
        InMemoryDemo.collect(windows.pollFinalized(), lowwaterResults);
        trackLag(frontiers, globalMax.watermark(), windows.watermark(), maxLag);
        chart.sample(
            consumed, clock.wallMillis(), frontiers, windows.watermark(), globalMax.watermark());
        if (++polls % 8 == 0 || consumed == produced.size()) {
          progress(out, consumed, produced.size(), globalMax, windows);
        }
      }

      chart.endCatchUp();

      // 2. Live: ten minutes; partitions 3-5 fall silent after five (their lines stop at night).
      out.println("live, then partitions 3-5 go quiet for the night:");
      for (int m = 0; m < LIVE_MINUTES; m++) {
        long from = base + BACKLOG.toMillis() + m * 60_000L;
        int[] live =
            m < LIVE_MINUTES / 2 ? IntStream.range(0, PARTITIONS).toArray() : new int[] {0, 1, 2};
        List<Event> minute = new ArrayList<>();
        List<List<Event>> all = SyntheticFeed.generate(PARTITIONS, from, 60_000, 250, 1000 + m);
        for (int p : live) {
          minute.addAll(all.get(p));
        }
        produce(bootstrap, topic, minute);
        produced.addAll(minute);
        clock.advance(Duration.ofMinutes(1));
        if (m == LIVE_MINUTES / 2) {
          chart.mark(consumed, clock.wallMillis(), "3-5 go quiet");
        }
        while (consumed < produced.size()) {
          ConsumerRecords<String, String> records = consumer.poll(POLL);
          consumed +=
              feed(records, consumed, windows, globalMax, chart, frontiers, delivered, clock, rec);
          lastRecordWall = clock.wallMillis();
          InMemoryDemo.collect(windows.pollFinalized(), lowwaterResults);
          trackLag(frontiers, globalMax.watermark(), windows.watermark(), maxLag);
          chart.sample(
              consumed, clock.wallMillis(), frontiers, windows.watermark(), globalMax.watermark());
        }
      }
      progress(out, consumed, produced.size(), globalMax, windows);

      // 3. The lull: nothing arrives; the quiet-period advance closes the last windows.
      out.println("all quiet:");
      long lullStart = clock.wallMillis();
      chart.mark(consumed, lullStart, "all quiet");
      while (windows.stats().openWindows() > 0
          && clock.wallMillis() - lullStart < Duration.ofMinutes(20).toMillis()) {
        clock.advance(Duration.ofSeconds(10));
        windows.onPoll(consumer.poll(Duration.ofMillis(10)), ConsumerRecord::key, r -> 1L);
        if (clock.wallMillis() - lastRecordWall >= QUIET.toMillis()) {
          globalMax.advanceTo(clock.wallMillis()); // the original loop's quiet advance
        }
        InMemoryDemo.collect(windows.pollFinalized(), lowwaterResults);
        chart.sample(
            consumed, clock.wallMillis(), frontiers, windows.watermark(), globalMax.watermark());
      }
      out.printf(
          "  last window closed by the quiet-period advance %.1f min into the lull%n",
          (clock.wallMillis() - lullStart) / 60_000.0);

      out.println();
      Report.sideBySide(
          out,
          SyntheticFeed.truth(List.of(produced), WINDOW.toMillis()),
          new Report.Column(
              "global-max watermark", globalMax.late(), globalMax.windows(), minutes(maxLag[0])),
          new Report.Column(
              "Lowwater", windows.stats().late(), lowwaterResults, minutes(maxLag[1])));
      lateLowwater = windows.stats().late();
    }
    chart.write(
        svg,
        String.format(
            "%,d of %,d events late under a global-max watermark, %,d under Lowwater",
            globalMax.late(), produced.size(), lateLowwater));
    out.println();
    out.println("chart: " + svg.toAbsolutePath());
    out.println();
    out.println("the advisor, from the disorder each partition showed (docs/tuning.md):");
    out.println("  " + Advisor.defaults().advise(recorder.snapshot()).recommendation());
  }

  private static long feed(
      ConsumerRecords<String, String> records,
      long consumedBefore,
      KafkaWindows<String, Long, Long> windows,
      GlobalMaxWindows globalMax,
      DemoChart chart,
      long[] frontiers,
      Set<Integer> delivered,
      ManualClock clock,
      Recording rec) {
    long read = consumedBefore;
    for (ConsumerRecord<String, String> r : records) {
      read++;
      rec.recorder().record(rec.sources()[r.partition()], r.timestamp());
      if (!globalMax.add(r.timestamp(), r.key())) {
        chart.late(read, clock.wallMillis(), r.timestamp());
      }
      frontiers[r.partition()] = Math.max(frontiers[r.partition()], r.timestamp());
      delivered.add(r.partition());
    }
    windows.onPoll(records, ConsumerRecord::key, r -> 1L);
    return records.count();
  }

  /** The recorder the consumed records are fed to, and its handle per partition. */
  private record Recording(DisorderRecorder recorder, SourceDisorder[] sources) {}

  private static void trackLag(long[] frontiers, long globalMax, long lowwater, long[] maxLag) {
    long newest = Long.MIN_VALUE;
    for (long f : frontiers) {
      newest = Math.max(newest, f);
    }
    if (newest == Long.MIN_VALUE) {
      return;
    }
    if (globalMax != Long.MIN_VALUE) {
      maxLag[0] = Math.max(maxLag[0], newest - globalMax);
    }
    if (lowwater != Long.MIN_VALUE) {
      maxLag[1] = Math.max(maxLag[1], newest - lowwater);
    }
  }

  private static void progress(
      PrintStream out,
      long consumed,
      long produced,
      GlobalMaxWindows globalMax,
      KafkaWindows<String, Long, Long> windows) {
    out.printf(
        "  %,7d/%,d records | late: global max %,6d, Lowwater %,d | open windows (Lowwater) %d"
            + " | paused %s%n",
        consumed,
        produced,
        globalMax.late(),
        windows.stats().late(),
        windows.stats().openWindows(),
        windows.pausedPartitions().isEmpty() ? "-" : windows.pausedPartitions());
  }

  private static String minutes(long millis) {
    return String.format("%.1f min", millis / 60_000.0);
  }

  private static void createTopic(String bootstrap, String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.of(PARTITIONS), Optional.empty())))
          .all()
          .get();
    }
  }

  private static void produce(String bootstrap, String topic, List<Event> events) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (Event e : events) {
        producer.send(
            new ProducerRecord<>(topic, e.partition(), e.eventTimeMillis(), e.key(), "1"));
      }
      producer.flush();
    }
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, topic);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536");
    return new KafkaConsumer<>(p);
  }
}
