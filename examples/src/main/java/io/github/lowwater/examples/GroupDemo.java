package io.github.lowwater.examples;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo's consumer-group mode ({@code --instances N}): N instances ({@link GroupMember} threads,
 * each with its own consumer and {@link KafkaWindows} in the default per-partition scope) in one
 * consumer group over a six-partition topic, writing into one shared {@link UpsertSink}. Not
 * thread-safe; one run at a time, about 15 s once the broker is up.
 *
 * <p>Once the group has formed, a one-hour backlog is produced, then five live minutes, one every
 * two seconds; within a partition records arrive up to a minute out of event-time order (less than
 * the allowed lateness, so nothing is late). In the catch-up one instance is killed after writing
 * windows past its last commit; its partitions move to the others after the session timeout. At the
 * end of the input the survivors call {@code finishAll()}, write, commit and close, and the sink is
 * compared with the truth computed from what was produced: summed over partitions, row by row, and,
 * whenever the group watermark moved during the run, for every window ending at or before it.
 *
 * <p>Runs on the system clock: the feed ends at least two minutes before the run starts, so no
 * event is in the future, and the run is far too short for the quiet-period advance (90 s) to close
 * anything.
 */
final class GroupDemo {

  static final int PARTITIONS = 6;
  static final Duration WINDOW = Duration.ofMinutes(5);
  static final Duration LATENESS = Duration.ofMinutes(2);

  private static final Duration BACKLOG = Duration.ofMinutes(60);
  private static final int LIVE_MINUTES = 5;
  private static final Duration LIVE_MINUTE_EVERY = Duration.ofSeconds(2);
  private static final long INTERVAL_MILLIS = 250;

  /** How far out of event-time order a partition's records arrive: less than the lateness. */
  private static final long MAX_DELAY_MILLIS = 60_000;

  /** The bound on each wait of the run: the end of the input, the hand-over, the finish. */
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final DateTimeFormatter HH_MM =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HH_MM_SS =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private GroupDemo() {}

  /**
   * Runs the group demo.
   *
   * @param bootstrapServers a cluster to use, or {@code null} for an in-process broker
   * @param instances the number of instances, from 2 to {@link #PARTITIONS}
   * @param out where the report goes
   * @throws Exception if the broker cannot be started or reached, or an instance fails
   */
  static void run(String bootstrapServers, int instances, PrintStream out) throws Exception {
    OnBroker.run(
        bootstrapServers,
        out,
        (bootstrap, started) -> new Run(bootstrap, instances, out, started).run());
  }

  /** The progress group of the demo's consumer group (docs/operations.md). */
  static String progressGroup(String consumerGroup) {
    return consumerGroup + ".progress";
  }

  /** One run: the topic, the producer, the instances and the checks. */
  private static final class Run {
    private final String bootstrap;
    private final int instances;
    private final PrintStream out;
    private final String topic = "lowwater-group-" + System.currentTimeMillis();
    private final Control control;
    private final UpsertSink sink = new UpsertSink();
    private final List<List<Event>> produced = new ArrayList<>();
    private final List<GroupMember> members = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private boolean movedLogged;
    private long checkedGroupWatermark = WatermarkTracker.NO_WATERMARK;
    private int groupWatermarkChecks;
    private final List<String> groupWatermarkFailures = new ArrayList<>();

    Run(String bootstrap, int instances, PrintStream out, long startedNanos) {
      this.bootstrap = bootstrap;
      this.instances = instances;
      this.out = out;
      this.control = new Control(out, startedNanos, instances - 1);
      for (int p = 0; p < PARTITIONS; p++) {
        produced.add(new ArrayList<>());
      }
    }

    void run() throws Exception {
      try {
        run0();
      } finally {
        control.abort(); // stops the instances if the run failed; a no-op once they are done
      }
      report();
    }

    private void run0() throws Exception {
      Properties ap = new Properties();
      ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      try (Admin admin = Admin.create(ap);
          KafkaProducer<String, String> producer = producer()) {
        createTopic(admin);
        long liveMillis = LIVE_MINUTES * 60_000L;
        long now = System.currentTimeMillis();
        long windowMillis = WINDOW.toMillis();
        long start =
            Math.floorDiv(now - BACKLOG.toMillis() - liveMillis - LATENESS.toMillis(), windowMillis)
                * windowMillis;
        List<List<Event>> backlog =
            SyntheticFeed.generate(PARTITIONS, start, BACKLOG.toMillis(), INTERVAL_MILLIS, 42);
        long backlogRecords = backlog.stream().mapToLong(List::size).sum();
        out.printf(
            "topic and consumer group %s: %d partitions; %d instances (classic protocol,"
                + " CooperativeStickyAssignor, session timeout 6 s),%n"
                + "each running KafkaWindows (PER_PARTITION, %d-min windows, allowed lateness %d"
                + " min) into one sink upserting on (window start, partition, key)%n",
            topic, PARTITIONS, instances, WINDOW.toMinutes(), LATENESS.toMinutes());

        // The victim stops committing once it has read about a third of its share of the backlog,
        // so it dies in the catch-up and its partitions move during the live minutes.
        for (int i = 1; i <= instances; i++) {
          long killAfter = i == 1 ? backlogRecords / instances / 3 : -1;
          members.add(
              new GroupMember("instance-" + i, bootstrap, topic, sink, control, killAfter, admin));
        }
        control.register(members);
        for (GroupMember m : members) {
          Thread t = new Thread(m, m.name);
          t.setDaemon(true); // a failed run must not hang on them
          threads.add(t);
          t.start();
        }
        // The backlog is produced once the group has formed, so that the catch-up, and the kill
        // in it, do not race the joins (which take a couple of seconds with the classic protocol).
        await(control::groupFormed, WAIT, "the group to form");
        control.log(
            "group formed: %s%ninstance-1 will be killed in the catch-up, after writing windows"
                + " past its last commit",
            members.stream()
                .map(m -> m.name + " " + list(m.owned()))
                .collect(Collectors.joining(", ")));
        control.log(
            "producing a backlog of %,d records, event time %s-%s UTC (now %s), up to %d s out of"
                + " order within a partition",
            backlogRecords,
            hhmm(start),
            hhmm(start + BACKLOG.toMillis()),
            hhmm(now),
            MAX_DELAY_MILLIS / 1000);
        send(producer, backlog, 42);
        control.log("backlog produced");

        long next = System.nanoTime();
        for (int m = 0; m < LIVE_MINUTES; m++) {
          next += LIVE_MINUTE_EVERY.toNanos();
          long deadline = next;
          await(() -> System.nanoTime() >= deadline, WAIT, "the next live minute");
          long from = start + BACKLOG.toMillis() + m * 60_000L;
          int n =
              send(
                  producer,
                  SyntheticFeed.generate(PARTITIONS, from, 60_000, INTERVAL_MILLIS, 1000 + m),
                  1000 + m);
          control.log(
              "live minute %d/%d: produced %,d records (event time %s)",
              m + 1, LIVE_MINUTES, n, hhmm(from));
        }

        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
          latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        for (Map.Entry<TopicPartition, ListOffsetsResultInfo> e :
            admin.listOffsets(latest).all().get().entrySet()) {
          ends.put(e.getKey(), e.getValue().offset());
        }
        control.endOfInput(ends);
        control.log(
            "end of input (%,d records); the survivors finish once every partition is owned by one"
                + " of them and read to its end",
            producedCount());

        await(this::finishable, WAIT, "every partition owned by a survivor and read to its end");
        reportLags(admin, ends);
        control.requestFinish();
        control.log("finishAll(), write, commit, then a plain close()");
        await(this::survivorsFinished, WAIT, "the survivors to finish");
        for (Thread t : threads) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
    }

    /**
     * The lag {@code kafka-consumer-groups --describe} shows for the consumer group (its commits
     * trail by the open windows, by design) beside the lag it shows for the progress group (the
     * processed positions): every record is read, so the second is the true one, zero.
     */
    private void reportLags(Admin admin, Map<TopicPartition, Long> ends) throws Exception {
      String progress = progressGroup(topic);
      await(
          () -> lag(admin, progress, ends) == 0, WAIT, "the progress group to reach the log ends");
      long committedLag = lag(admin, topic, ends);
      control.log(
          "every record read: kafka-consumer-groups shows a lag of %,d records for the consumer"
              + " group %s (its commits wait for the open windows, by design) and of %,d for the"
              + " progress group %s, the true lag",
          committedLag, topic, lag(admin, progress, ends), progress);
    }

    /** The summed lag of a group's committed offsets, as {@code kafka-consumer-groups} has it. */
    private long lag(Admin admin, String group, Map<TopicPartition, Long> ends) {
      try {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
          OffsetAndMetadata om = committed.get(e.getKey());
          lag += e.getValue() - (om == null ? 0 : om.offset());
        }
        return lag;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("could not read the offsets of " + group, e);
      }
    }

    private boolean finishable() {
      if (!members.get(0).killed()) {
        return false;
      }
      Set<Integer> covered = new TreeSet<>();
      for (GroupMember m : members) {
        if (!m.killed()) {
          if (!m.caughtUp()) {
            return false;
          }
          covered.addAll(m.owned());
        }
      }
      return covered.size() == PARTITIONS;
    }

    private boolean survivorsFinished() {
      for (GroupMember m : members) {
        if (!m.killed() && !m.finished()) {
          return false;
        }
      }
      return true;
    }

    /**
     * Waits for a condition, watching the instances meanwhile; polls with a deadline.
     *
     * @throws IllegalStateException if an instance failed or the deadline passed
     */
    private void await(BooleanSupplier condition, Duration timeout, String what)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        watch();
        if (condition.getAsBoolean()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("gave up after " + timeout + " waiting for " + what);
        }
        Thread.sleep(20); // polling with a deadline
      }
    }

    /** Fails on a failed instance, logs the hand-over, checks the group watermark's promise. */
    private void watch() {
      for (GroupMember m : members) {
        if (m.failure() != null) {
          throw new IllegalStateException(m.name + " failed", m.failure());
        }
      }
      if (members.isEmpty()) {
        return;
      }
      GroupMember victim = members.get(0);
      if (victim.killed() && !movedLogged && !control.victimPartitions().isEmpty()) {
        StringJoiner to = new StringJoiner(", ");
        Set<Integer> moved = new TreeSet<>();
        for (GroupMember m : members.subList(1, members.size())) {
          Set<Integer> got = new TreeSet<>(m.owned());
          got.retainAll(control.victimPartitions());
          if (!got.isEmpty()) {
            to.add(m.name + " " + got);
            moved.addAll(got);
          }
        }
        if (moved.equals(control.victimPartitions())) {
          movedLogged = true;
          control.log(
              "the dead instance's partitions %s moved (%s), %.1f s after the kill",
              list(moved), to, (System.nanoTime() - victim.killedAtNanos()) / 1e9);
        }
      }
      checkGroupWatermark();
    }

    /**
     * The group watermark's promise: every window ending at or before it is complete, so the sink
     * summed over partitions equals the truth for each of them. Checked whenever it moves.
     */
    private void checkGroupWatermark() {
      long gw = WatermarkTracker.NO_WATERMARK;
      for (GroupMember m : members) {
        gw = Math.max(gw, m.groupWatermark());
      }
      if (gw <= checkedGroupWatermark) {
        return;
      }
      checkedGroupWatermark = gw;
      groupWatermarkChecks++;
      TreeMap<Long, TreeMap<String, Long>> truth = SyntheticFeed.truth(produced, WINDOW.toMillis());
      TreeMap<Long, TreeMap<String, Long>> sunk = sink.summedOverPartitions();
      for (Map.Entry<Long, TreeMap<String, Long>> e : truth.entrySet()) {
        if (e.getKey() + WINDOW.toMillis() <= gw
            && !e.getValue().equals(sunk.get(e.getKey()))
            && groupWatermarkFailures.size() < 5) {
          groupWatermarkFailures.add(
              "window "
                  + hhmm(e.getKey())
                  + " incomplete at group watermark "
                  + HH_MM_SS.format(Instant.ofEpochMilli(gw))
                  + ": sink "
                  + sunk.get(e.getKey())
                  + ", truth "
                  + e.getValue());
        }
      }
    }

    private void report() {
      out.println();
      out.printf(
          "%-12s %-12s %12s %12s %6s %12s %8s %9s  %s%n",
          "",
          "partitions",
          "records read",
          "redelivered",
          "late",
          "rows written",
          "commits",
          "refused*",
          "end");
      long late = 0;
      for (GroupMember m : members) {
        late += m.late();
        out.printf(
            "%-12s %-12s %12s %12s %6s %12s %8s %9s  %s%n",
            m.name,
            m.owned().stream().map(String::valueOf).collect(Collectors.joining(",")),
            Report.fmt(m.recordsRead()),
            Report.fmt(m.redelivered()),
            Report.fmt(m.late()),
            Report.fmt(m.rowsWritten()),
            Report.fmt(m.commits()),
            Report.fmt(m.commitsRefused()),
            m.killed()
                ? String.format("killed at %.1f s", control.secondsAt(m.killedAtNanos()))
                : "finished");
      }
      out.printf(
          "(partitions: owned at the end; records produced: %s; *commits refused during a"
              + " rebalance, left to the next commit)%n",
          Report.fmt(producedCount()));
      out.println();
      out.println("the sink, rows summed over partitions, against the truth (what was produced):");
      Report.againstTruth(
          out,
          SyntheticFeed.truth(produced, WINDOW.toMillis()),
          new Report.Column("sink", late, sink.summedOverPartitions()));
      out.println();
      out.printf(
          "sink: %,d rows from %,d upserts; rows rewritten with the same value: %,d%n",
          sink.size(), sink.upserts(), sink.rewrittenWithSameValue());
      out.printf(
          "rows overwritten with a different value: %,d%n", sink.overwrittenWithDifferentValue());
      for (String c : sink.conflicts()) {
        out.println("  " + c);
      }
      Map<UpsertSink.Row, Long> truthRows = truthRows();
      Map<UpsertSink.Row, Long> rows = sink.rows();
      long rowsEqual =
          truthRows.entrySet().stream()
              .filter(e -> e.getValue().equals(rows.get(e.getKey())))
              .count();
      out.printf(
          "sink rows equal to the truth per (window, partition, key): %,d/%,d (%,d rows in the"
              + " sink)%n",
          rowsEqual, truthRows.size(), rows.size());
      if (groupWatermarkChecks == 0) {
        out.println("group watermark: never read");
      } else {
        out.printf(
            "group watermark, checked %d times as it moved (last %s UTC): windows ending at or"
                + " before it incomplete in the sink: %d%n",
            groupWatermarkChecks,
            HH_MM_SS.format(Instant.ofEpochMilli(checkedGroupWatermark)),
            groupWatermarkFailures.size());
      }
      for (String f : groupWatermarkFailures) {
        out.println("  " + f);
      }
    }

    /** The truth per row: the count of each (window start, partition, key) produced. */
    private Map<UpsertSink.Row, Long> truthRows() {
      Map<UpsertSink.Row, Long> truth = new HashMap<>();
      long windowMillis = WINDOW.toMillis();
      for (List<Event> partition : produced) {
        for (Event e : partition) {
          long start = Math.floorDiv(e.eventTimeMillis(), windowMillis) * windowMillis;
          truth.merge(new UpsertSink.Row(start, e.partition(), e.key()), 1L, Long::sum);
        }
      }
      return truth;
    }

    private long producedCount() {
      long n = 0;
      for (List<Event> p : produced) {
        n += p.size();
      }
      return n;
    }

    /**
     * Sends each partition's events in arrival order, the partitions interleaved as if the records
     * had accumulated side by side, and waits until the broker has them all; returns how many.
     *
     * @throws IllegalStateException if a record could not be produced
     */
    private int send(KafkaProducer<String, String> producer, List<List<Event>> feed, long seed) {
      List<List<Event>> arrivals = new ArrayList<>();
      int longest = 0;
      for (int p = 0; p < feed.size(); p++) {
        arrivals.add(SyntheticFeed.arrivalOrder(feed.get(p), MAX_DELAY_MILLIS, seed + p));
        longest = Math.max(longest, feed.get(p).size());
      }
      AtomicReference<Exception> failed = new AtomicReference<>();
      int n = 0;
      for (int i = 0; i < longest; i++) {
        for (List<Event> partition : arrivals) {
          if (i >= partition.size()) {
            continue;
          }
          Event e = partition.get(i);
          producer.send(
              new ProducerRecord<>(topic, e.partition(), e.eventTimeMillis(), e.key(), "1"),
              (metadata, exception) -> {
                if (exception != null) {
                  failed.compareAndSet(null, exception);
                }
              });
          produced.get(e.partition()).add(e);
          n++;
        }
      }
      producer.flush();
      if (failed.get() != null) {
        throw new IllegalStateException("could not produce the feed", failed.get());
      }
      return n;
    }

    /**
     * Creates the topic and waits until every partition has a leader: an idempotent producer that
     * starts earlier meets NOT_LEADER_OR_FOLLOWER, and its retries can fail on sequence numbers.
     */
    private void createTopic(Admin admin) throws Exception {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.of(PARTITIONS), Optional.empty())))
          .all()
          .get();
      await(
          () -> {
            try {
              return admin
                  .describeTopics(List.of(topic))
                  .allTopicNames()
                  .get()
                  .get(topic)
                  .partitions()
                  .stream()
                  .allMatch(p -> p.leader() != null && p.leader().id() >= 0);
            } catch (ExecutionException e) {
              return false; // not known yet
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
          },
          WAIT,
          "a leader for every partition of " + topic);
    }

    private KafkaProducer<String, String> producer() {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
      return new KafkaProducer<>(p);
    }
  }

  /**
   * What the instances share with the run: the log, the end of the input, the finish signal and the
   * victim's death. Thread-safe.
   */
  static final class Control {
    private final PrintStream out;
    private final long startedNanos;
    private final CountDownLatch survivorsFinished;
    private final List<GroupMember> members = new CopyOnWriteArrayList<>();
    private volatile Map<TopicPartition, Long> endOffsets;
    private volatile boolean finish;
    private volatile boolean aborted;
    private volatile Set<Integer> victimPartitions = Set.of();

    Control(PrintStream out, long startedNanos, int survivors) {
      this.out = out;
      this.startedNanos = startedNanos;
      this.survivorsFinished = new CountDownLatch(survivors);
    }

    /**
     * Prints one entry of the timeline, stamped with the seconds since the start; a {@code %n} in
     * the format starts an indented continuation line.
     */
    void log(String format, Object... args) {
      String line = String.format(format, args);
      synchronized (out) {
        out.printf(
            "[%5.1f s] %s%n",
            secondsAt(System.nanoTime()),
            line.replace(System.lineSeparator(), System.lineSeparator() + " ".repeat(10)));
      }
    }

    double secondsAt(long nanos) {
      return (nanos - startedNanos) / 1e9;
    }

    /** Whether every live instance owns partitions and together they own every partition. */
    boolean groupFormed() {
      Set<Integer> covered = new TreeSet<>();
      for (GroupMember m : members) {
        if (!m.killed()) {
          if (m.owned().isEmpty()) {
            return false;
          }
          covered.addAll(m.owned());
        }
      }
      return covered.size() == PARTITIONS;
    }

    void endOfInput(Map<TopicPartition, Long> ends) {
      endOffsets = Map.copyOf(ends);
    }

    /** The end offsets of the input, or {@code null} while it goes on. */
    Map<TopicPartition, Long> endOffsets() {
      return endOffsets;
    }

    void requestFinish() {
      finish = true;
    }

    boolean finishRequested() {
      return finish;
    }

    void register(Collection<GroupMember> all) {
      members.addAll(all);
    }

    void abort() {
      aborted = true;
    }

    /** Whether the run failed and the instances should stop where they are. */
    boolean aborted() {
      return aborted;
    }

    void killed(Set<Integer> partitions) {
      victimPartitions = Set.copyOf(partitions);
    }

    Set<Integer> victimPartitions() {
      return victimPartitions;
    }

    /**
     * A survivor has committed its last windows: it waits for the others before closing, since a
     * member leaving would move its partitions to instances that are finishing.
     */
    void finishedAndAwaitOthers() throws InterruptedException {
      survivorsFinished.countDown();
      if (!survivorsFinished.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the other survivors did not finish within " + WAIT);
      }
    }
  }

  static String list(Collection<Integer> partitions) {
    return new TreeSet<>(partitions).toString();
  }

  static String times(Collection<Long> startsMillis) {
    StringJoiner j = new StringJoiner(", ");
    for (long s : new TreeSet<>(startsMillis)) {
      j.add(hhmm(s));
    }
    return j.toString();
  }

  private static String hhmm(long millis) {
    return HH_MM.format(Instant.ofEpochMilli(millis));
  }
}
