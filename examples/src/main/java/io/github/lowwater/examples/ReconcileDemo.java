package io.github.lowwater.examples;

import io.github.lowwater.join.Reconciled;
import io.github.lowwater.join.Reconciliation;
import io.github.lowwater.join.Sided;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo's reconciliation ({@code --reconcile}): a ledger's change stream (the source) against
 * its replica's (the target), one-minute windows, partition {@code i} of both topics one task
 * ({@link ResultScope#CO_PARTITIONED}). The replica lags: the source is read first, the target
 * arrives afterwards, catching up; it drops a few records and delays others by up to 90 seconds of
 * event time. Lowwater waits for the target, so it reports exactly the dropped records and none of
 * the delayed ones; a reconciler on "newest event time seen minus allowed lateness" over both
 * topics (the textbook watermark) has the source run ahead, and reports the replica's catch-up as
 * missing. Exits with status 1 if Lowwater's report is not exactly the dropped records. About 10 s
 * once the broker is up.
 */
final class ReconcileDemo {

  static final int PARTITIONS = 4;
  static final int ACCOUNTS = 40;
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final Duration LATENESS = Duration.ofMinutes(2);

  private ReconcileDemo() {}

  static void run(String bootstrapServers, PrintStream out) throws Exception {
    OnBroker.run(bootstrapServers, out, (bootstrap, started) -> demo(bootstrap, out));
  }

  /** One change: its account, event time and amount, and what the replica did with it. */
  record Change(
      String account, int partition, long time, long amount, boolean dropped, boolean delayed) {}

  private static void demo(String bootstrap, PrintStream out) throws Exception {
    String run = "lowwater-reconcile-" + System.currentTimeMillis();
    String source = run + "-source";
    String target = run + "-target";
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(source, PARTITIONS, (short) 1),
                  new NewTopic(target, PARTITIONS, (short) 1)))
          .all()
          .get();
    }
    // Thirty minutes of changes, ending ten minutes before now.
    long base = Instant.now().minus(Duration.ofMinutes(40)).toEpochMilli();
    base -= Math.floorMod(base, WINDOW.toMillis());
    List<Change> changes = changes(base);
    long dropped = changes.stream().filter(Change::dropped).count();
    long delayed = changes.stream().filter(Change::delayed).count();

    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, run);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    Map<String, Reconciled<Long, Long>> report = new TreeMap<>();
    Map<String, Reconciled<Long, Long>> naiveReport = new TreeMap<>();
    long[] naiveLate = new long[2]; // by side: the source's, the replica's
    TumblingWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> naive =
        TumblingWindows.builder(WINDOW, sums())
            .allowedLateness(LATENESS)
            .lateEventHandler((s, t, end, w, key, v) -> naiveLate[v.side().ordinal()]++)
            .build();
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
        KafkaProducer<String, String> producer = producer(bootstrap)) {
      KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
          KafkaWindows.builder(WINDOW, sums())
              .allowedLateness(LATENESS)
              .resultScope(ResultScope.CO_PARTITIONED)
              .consumer(consumer)
              .build();
      consumer.subscribe(List.of(source, target), windows.rebalanceListener());
      send(producer, source, changes, false);
      out.printf(
          "produced %,d changes to %s (%d partitions, 30 minutes, %d accounts)%n",
          changes.size(), source, PARTITIONS, ACCOUNTS);
      long read =
          readUntil(consumer, windows, naive, source, 0, changes.size(), report, naiveReport);
      out.printf("read the source (%,d records); the replica has sent nothing yet%n", read);
      int sent = send(producer, target, changes, true);
      out.printf(
          "the replica catches up: %,d changes to %s, %d dropped, %d delayed by up to 90 s%n",
          sent, target, dropped, delayed);
      readUntil(consumer, windows, naive, source, read, changes.size() + sent, report, naiveReport);
      windows.finishAll(); // the end of this bounded run
      naive.finish();
      collect(windows.pollFinalized(), report);
      collectNaive(naive.pollFinalized(), naiveReport);
      consumer.commitSync(windows.committableOffsets());
    }

    // The truth: each (window, account) with a dropped change; each with a delayed one only.
    TreeSet<String> droppedRows = new TreeSet<>();
    TreeSet<String> delayedRows = new TreeSet<>();
    for (Change ch : changes) {
      String row = row(ch.time(), ch.account());
      if (ch.dropped()) {
        droppedRows.add(row);
      } else if (ch.delayed()) {
        delayedRows.add(row);
      }
    }
    delayedRows.removeAll(droppedRows);
    TreeSet<String> reported = new TreeSet<>();
    report.forEach(
        (row, r) -> {
          if (r.status() != Reconciled.Status.MATCHED) {
            reported.add(row);
          }
        });
    TreeSet<String> naiveReported = new TreeSet<>();
    naiveReport.forEach(
        (row, r) -> {
          if (r.status() != Reconciled.Status.MATCHED) {
            naiveReported.add(row);
          }
        });
    out.println();
    out.println("Lowwater, CO_PARTITIONED: the rows that do not match");
    out.println("window start (UTC)     account   source        replica       status");
    for (String row : reported) {
      Reconciled<Long, Long> r = report.get(row);
      out.printf(
          "%s  %-12s %s x%d  %s x%d  %s%n",
          row.substring(0, 20),
          row.substring(21),
          pad(r.left()),
          r.leftCount(),
          pad(r.right()),
          r.rightCount(),
          r.status());
    }
    long delayedFlagged = delayedRows.stream().filter(reported::contains).count();
    long naiveDelayedFlagged = delayedRows.stream().filter(naiveReported::contains).count();
    out.printf(
        "%d rows reported, the %d (window, account) rows with a dropped change: %s; rows with a"
            + " delayed change reported: %d of %d%n",
        reported.size(),
        droppedRows.size(),
        reported.equals(droppedRows) ? "exactly these" : "NOT these",
        delayedFlagged,
        delayedRows.size());
    out.printf(
        "newest-seen-minus-lateness over both topics: %d rows reported (%d false alarms), %d of"
            + " the %d delayed rows among them; %,d source records late (its partitions are read"
            + " unevenly) and %,d of the replica's%n",
        naiveReported.size(),
        naiveReported.stream().filter(r -> !droppedRows.contains(r)).count(),
        naiveDelayedFlagged,
        delayedRows.size(),
        naiveLate[0],
        naiveLate[1]);
    if (!reported.equals(droppedRows) || delayedFlagged != 0) {
      System.exit(1);
    }
  }

  private static io.github.lowwater.window.Aggregator<Sided<Long, Long>, ?, Reconciled<Long, Long>>
      sums() {
    return Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals);
  }

  /** Changes every 3 s, accounts in turn; the replica drops one in 150, delays one in 25. */
  static List<Change> changes(long base) {
    List<Change> changes = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      int account = (i * 7) % ACCOUNTS;
      long time = base + i * 3_000L;
      boolean dropped = i % 150 == 77;
      boolean delayed = !dropped && i % 25 == 11;
      changes.add(
          new Change(
              String.format("acct-%02d", account),
              account % PARTITIONS,
              time,
              10 + (i * 37) % 90,
              dropped,
              delayed));
    }
    return changes;
  }

  /** The source in order; the replica without its dropped changes, the delayed ones 30 later. */
  private static int send(
      KafkaProducer<String, String> producer, String topic, List<Change> changes, boolean replica)
      throws Exception {
    List<Change> order = new ArrayList<>();
    List<Change> held = new ArrayList<>();
    Map<Change, Integer> due = new HashMap<>();
    for (int i = 0; i < changes.size(); i++) {
      Change ch = changes.get(i);
      if (replica && ch.dropped()) {
        continue;
      }
      if (replica && ch.delayed()) {
        held.add(ch);
        due.put(ch, i + 30); // 30 changes later: 90 s of event time
        continue;
      }
      order.add(ch);
      for (var it = held.iterator(); it.hasNext(); ) {
        Change h = it.next();
        if (due.get(h) <= i) {
          order.add(h);
          it.remove();
        }
      }
    }
    order.addAll(held);
    for (Change ch : order) {
      producer.send(
          new ProducerRecord<>(
              topic, ch.partition(), ch.time(), ch.account(), Long.toString(ch.amount())));
    }
    producer.flush();
    return order.size();
  }

  private static long readUntil(
      KafkaConsumer<String, String> consumer,
      KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows,
      TumblingWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> naive,
      String source,
      long read,
      long total,
      Map<String, Reconciled<Long, Long>> report,
      Map<String, Reconciled<Long, Long>> naiveReport) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (read < total && System.nanoTime() < deadline) {
      ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
      windows.onPoll(records, ConsumerRecord::key, r -> sided(r, source));
      for (ConsumerRecord<String, String> r : records) {
        naive.add(r.timestamp(), r.key(), sided(r, source)); // one watermark for everything
      }
      read += records.count();
      collect(windows.pollFinalized(), report);
      collectNaive(naive.pollFinalized(), naiveReport);
      consumer.commitSync(windows.committableOffsets());
    }
    return read;
  }

  private static Sided<Long, Long> sided(ConsumerRecord<String, String> r, String source) {
    long amount = Long.parseLong(r.value());
    return r.topic().equals(source) ? Sided.left(amount) : Sided.right(amount);
  }

  private static void collect(
      List<WindowResult<String, Reconciled<Long, Long>>> rows,
      Map<String, Reconciled<Long, Long>> into) {
    for (WindowResult<String, Reconciled<Long, Long>> w : rows) {
      into.put(row(w.start(), w.key()), w.value()); // an account lives in one task: (start, key)
    }
  }

  private static void collectNaive(
      List<WindowResult<String, Reconciled<Long, Long>>> rows,
      Map<String, Reconciled<Long, Long>> into) {
    for (WindowResult<String, Reconciled<Long, Long>> w : rows) {
      into.put(row(w.start(), w.key()), w.value());
    }
  }

  private static String row(long time, String account) {
    long start = time - Math.floorMod(time, WINDOW.toMillis());
    return Instant.ofEpochMilli(start).toString().substring(0, 19) + "Z " + account;
  }

  private static String pad(Long sum) {
    return String.format("%6s", sum == null ? "-" : sum.toString());
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }
}
