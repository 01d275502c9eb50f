package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.testing.GlobalMaxWindows;
import io.github.lowwater.testing.SyntheticFeed.Event;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kafka integration against a real in-process broker (KRaft, started once for this class): the
 * five scenarios of the integration issue, each checked against the ground truth of what was
 * produced.
 */
class KafkaWindowsBrokerTest {

  static final long WINDOW = Duration.ofMinutes(5).toMillis();
  static final Duration LATENESS = Duration.ofMinutes(2);
  static final long LATENESS_MILLIS = LATENESS.toMillis();
  static final int PARTITIONS = 6;
  static final int[] ALL = {0, 1, 2, 3, 4, 5};
  static final Duration POLL = Duration.ofMillis(100);
  static final Duration DEADLINE = Duration.ofSeconds(60);

  /**
   * Fetches of about 900 records per partition, so that a poll of 2000 mixes partitions (with the
   * default 1 MB a single fetch brings a whole partition of these feeds).
   */
  static final Map<String, String> SMALL_FETCHES = Map.of("max.partition.fetch.bytes", "65536");

  static LowwaterBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = LowwaterBroker.shared();
  }

  /** A backlog in the recent past (the system clock drives these scenarios). */
  static long backlogStart() {
    long twoHoursAgo = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
    return Math.floorDiv(twoHoursAgo, WINDOW) * WINDOW;
  }

  static List<TopicPartition> partitions(String topic, int... ids) {
    return IntStream.of(ids).mapToObj(p -> new TopicPartition(topic, p)).toList();
  }

  static KafkaWindows.Builder<Long, Long> windowsBuilder() {
    return KafkaWindows.builder(Duration.ofMillis(WINDOW), Aggregators.sumLong())
        .allowedLateness(LATENESS)
        .idleTimeout(Duration.ofMinutes(2));
  }

  /** One result per (window, key) over the instance's partitions, closed on their minimum. */
  static KafkaWindows.Builder<Long, Long> mergedBuilder() {
    return windowsBuilder().resultScope(ResultScope.MERGED);
  }

  static long onPoll(KafkaWindows<String, Long, Long> w, ConsumerRecords<String, String> records) {
    w.onPoll(records, ConsumerRecord::key, r -> Long.parseLong(r.value()));
    return records.count();
  }

  static void collect(
      List<WindowResult<String, Long>> results, TreeMap<Long, TreeMap<String, Long>> into) {
    for (WindowResult<String, Long> r : results) {
      into.computeIfAbsent(r.start(), s -> new TreeMap<>()).merge(r.key(), r.value(), Long::sum);
    }
  }

  static boolean deadlinePassed(long startNanos) {
    return System.nanoTime() - startNanos > DEADLINE.toNanos();
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The bug this library exists for, on a real broker: six partitions with 40 minutes each already
   * in the topic, a consumer that starts behind and drains them unevenly (partitions 3-5 held back
   * while 0-2 are drained), {@code max.poll.records} 2000.
   */
  @Test
  void catchUpWithUnevenDrainDeclaresNoEventLateWhileAGlobalMaxDeclaresThousands() {
    String topic = "catch-up";
    broker.createTopic(topic, PARTITIONS);
    long base = backlogStart();
    Feed feed = new Feed().append(ALL, base, base + Duration.ofMinutes(40).toMillis(), 250, 1);
    List<Event> acked = Feed.produce(broker.bootstrapServers(), topic, feed.events());
    int total = acked.size();

    TreeMap<Long, TreeMap<String, Long>> results = new TreeMap<>();
    GlobalMaxWindows globalMax = new GlobalMaxWindows(WINDOW, LATENESS_MILLIS);
    long maxSkew = 0;
    try (KafkaConsumer<String, String> consumer =
        Feed.consumer(broker.bootstrapServers(), "catch-up", SMALL_FETCHES)) {
      KafkaWindows<String, Long, Long> windows = mergedBuilder().consumer(consumer).build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());
      List<TopicPartition> slow = partitions(topic, 3, 4, 5);
      List<TopicPartition> fast = partitions(topic, 0, 1, 2);
      Set<Integer> delivered = new HashSet<>();
      boolean heldBack = false;
      boolean released = false;
      long consumed = 0;
      long start = System.nanoTime();
      while (consumed < total) {
        assertThat(deadlinePassed(start)).as("consumed %d of %d", consumed, total).isFalse();
        ConsumerRecords<String, String> records = consumer.poll(POLL);
        for (ConsumerRecord<String, String> r : records) {
          globalMax.add(r.timestamp(), r.key());
          delivered.add(r.partition());
        }
        consumed += onPoll(windows, records);
        collect(windows.pollFinalized(), results);
        if (!heldBack && delivered.size() == PARTITIONS) {
          consumer.pause(slow); // force the skew: drain 0-2 while 3-5 wait
          heldBack = true;
        } else if (heldBack && !released && drained(consumer, fast)) {
          consumer.resume(slow);
          released = true;
        }
        maxSkew = Math.max(maxSkew, skew(windows, partitions(topic, ALL)));
      }
      windows.finishAll();
      collect(windows.pollFinalized(), results);
      assertThat(windows.stats().late()).isZero();
      assertThat(windows.stats().accepted()).isEqualTo(total);
    }
    assertThat(maxSkew).as("frontier skew").isGreaterThan(Duration.ofMinutes(15).toMillis());
    assertThat(globalMax.late()).as("global-max late events").isGreaterThan(1000);
    assertThat(results).isEqualTo(Feed.truth(acked, WINDOW));
  }

  /**
   * Two instances in one group (the incremental protocol), fed live, per-partition results; one
   * leaves mid-stream with a plain {@code close()}, nothing called before it. Its partitions move
   * to the other instance, which starts from the last commit and the checkpoint in its metadata: no
   * record is late at either instance, no (window, partition, key) row is ever rewritten with a
   * different value, and the rows summed over partitions equal the truth.
   *
   * <p>Regression: a plain close used to commit the consumed positions from the listener, and the
   * records in the closing instance's open windows were lost (31 of 40 written, 40 committed).
   */
  @Test
  void plainCloseHandsPartitionsOverWithoutLossLateEventsOrDoubleCounting() {
    String topic = "rebalance";
    broker.createTopic(topic, PARTITIONS);
    long base = backlogStart();
    long tick = Duration.ofSeconds(30).toMillis();
    int ticks = 30;
    Map<String, String> protocol = Map.of("group.protocol", "consumer");
    List<Event> produced = new ArrayList<>();
    Map<String, Long> rows = new HashMap<>();
    Set<TopicPartition> movedToA = new HashSet<>();
    KafkaConsumer<String, String> b = Feed.consumer(broker.bootstrapServers(), "rb", protocol);
    try (KafkaConsumer<String, String> a =
        Feed.consumer(broker.bootstrapServers(), "rb", protocol)) {
      KafkaWindows<String, Long, Long> wa = windowsBuilder().consumer(a).build();
      KafkaWindows<String, Long, Long> wb = windowsBuilder().consumer(b).build();
      a.subscribe(List.of(topic), wa.rebalanceListener());
      b.subscribe(List.of(topic), wb.rebalanceListener());
      long start = System.nanoTime();
      // The windows learn an assignment from the rebalance callback. The 4.1 client's KIP-848
      // consumer shows new partitions in assignment() one poll before it runs that callback, so
      // wait for both views (docs/testing.md, "Client versions").
      while (a.assignment().size() + b.assignment().size() != PARTITIONS
          || a.assignment().isEmpty()
          || b.assignment().isEmpty()
          || !wa.assignedPartitions().equals(a.assignment())
          || !wb.assignedPartitions().equals(b.assignment())) {
        assertThat(deadlinePassed(start)).as("initial assignment").isFalse();
        onPoll(wa, a.poll(POLL));
        onPoll(wb, b.poll(POLL));
      }
      assertThat(wa.assignedPartitions()).isEqualTo(a.assignment());
      assertThat(wb.assignedPartitions()).isEqualTo(b.assignment());

      long consumed = 0;
      boolean bOpen = true;
      for (int i = 0; i < ticks; i++) {
        List<Event> batch =
            new Feed().append(ALL, base + i * tick, base + (i + 1) * tick, 250, 100 + i).events();
        produced.addAll(Feed.produce(broker.bootstrapServers(), topic, batch));
        start = System.nanoTime();
        while (bOpen ? consumed < produced.size() : !drained(a, partitions(topic, ALL))) {
          assertThat(deadlinePassed(start)).as("tick %d", i).isFalse();
          consumed += onPoll(wa, a.poll(POLL));
          upsert(wa.pollFinalized(), rows);
          commit(a, wa);
          if (bOpen) {
            consumed += onPoll(wb, b.poll(POLL));
            upsert(wb.pollFinalized(), rows);
            commit(b, wb);
          }
        }
        if (i == ticks / 2) {
          // B leaves for good, as a deploy would stop it: a plain close, nothing before it.
          Set<TopicPartition> moving = wb.assignedPartitions();
          assertThat(wb.stats().openWindows()).as("B holds open windows").isPositive();
          b.close();
          bOpen = false;
          assertThat(wb.assignedPartitions()).isEmpty();
          start = System.nanoTime();
          while (a.assignment().size() != PARTITIONS
              || !wa.assignedPartitions().equals(a.assignment())) {
            assertThat(deadlinePassed(start)).as("reassignment").isFalse();
            onPoll(wa, a.poll(POLL));
            upsert(wa.pollFinalized(), rows);
            commit(a, wa);
          }
          assertThat(wa.assignedPartitions()).containsAll(moving);
          movedToA.addAll(moving);
        }
      }
      wa.finishAll(); // the end of this bounded input
      upsert(wa.pollFinalized(), rows);
      assertThat(wa.stats().late()).as("late at A").isZero();
      assertThat(wb.stats().late()).as("late at B").isZero();
    } finally {
      b.close(CloseOptions.timeout(Duration.ZERO));
    }
    assertThat(movedToA).isNotEmpty();
    TreeMap<Long, TreeMap<String, Long>> summed = new TreeMap<>();
    rows.forEach(
        (row, value) -> {
          String[] f = row.split("/");
          summed
              .computeIfAbsent(Long.parseLong(f[0]), k -> new TreeMap<>())
              .merge(f[2], value, Long::sum);
        });
    assertThat(summed).isEqualTo(Feed.truth(produced, WINDOW));
  }

  /**
   * A sink that fails part-way, again and again (issue 19, semantics rule 57), on the real broker:
   * one consumer, one-minute windows per partition, fed live; half the drains write only some of
   * their rows and then throw, and the loop calls {@code rewindToLastCommit(consumer.assignment())}
   * instead of committing. The real consumer's {@code committed} and {@code seek} bring the records
   * back; no row is ever rewritten with another value, nothing is late, and the rows summed over
   * partitions equal the truth.
   */
  @Test
  void aSinkThatFailsPartWayRewindsToTheLastCommitAndEndsWithExactlyTheTruth() {
    String topic = "rewind";
    broker.createTopic(topic, PARTITIONS);
    long base = backlogStart();
    long tick = Duration.ofSeconds(30).toMillis();
    Random random = new Random(19);
    List<Event> produced = new ArrayList<>();
    Map<String, Long> rows = new HashMap<>();
    int rewinds = 0;
    int rowsLost = 0;
    try (KafkaConsumer<String, String> consumer =
        Feed.consumer(broker.bootstrapServers(), "rewind", Map.of())) {
      KafkaWindows<String, Long, Long> windows =
          KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
              .allowedLateness(Duration.ofSeconds(30))
              .idleTimeout(Duration.ofMinutes(2))
              .consumer(consumer)
              .build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());
      for (int i = 0; i < 16; i++) {
        List<Event> batch =
            new Feed().append(ALL, base + i * tick, base + (i + 1) * tick, 250, 300 + i).events();
        produced.addAll(Feed.produce(broker.bootstrapServers(), topic, batch));
        long start = System.nanoTime();
        do {
          assertThat(deadlinePassed(start)).as("tick %d", i).isFalse();
          onPoll(windows, consumer.poll(POLL));
          List<WindowResult<String, Long>> results = windows.pollFinalized();
          if (!results.isEmpty() && random.nextBoolean()) {
            int written = random.nextInt(results.size()); // then the sink throws
            upsert(results.subList(0, written), rows);
            rowsLost += results.size() - written;
            windows.rewindToLastCommit(consumer.assignment());
            rewinds++;
            continue;
          }
          upsert(results, rows);
          commit(consumer, windows);
        } while (consumer.assignment().size() != PARTITIONS
            || !drained(consumer, partitions(topic, ALL)));
      }
      windows.finishAll(); // the end of this bounded input
      upsert(windows.pollFinalized(), rows);
      assertThat(windows.stats().late()).as("late").isZero();
    }
    System.out.printf(
        "rewind: %d records, %d rewinds, %d rows a failed write did not write%n",
        produced.size(), rewinds, rowsLost);
    assertThat(rewinds).as("rewinds").isGreaterThan(3);
    assertThat(rowsLost).as("rows a failed write did not write").isPositive();
    TreeMap<Long, TreeMap<String, Long>> summed = new TreeMap<>();
    rows.forEach(
        (row, value) -> {
          String[] f = row.split("/");
          summed
              .computeIfAbsent(Long.parseLong(f[0]), k -> new TreeMap<>())
              .merge(f[2], value, Long::sum);
        });
    assertThat(summed).isEqualTo(Feed.truth(produced, Duration.ofMinutes(1).toMillis()));
  }

  /**
   * Upserts per-partition results on (window start, partition, key); a row may be written again (by
   * a partition's next owner) but never with a different value.
   */
  static void upsert(List<WindowResult<String, Long>> results, Map<String, Long> rows) {
    for (WindowResult<String, Long> r : results) {
      TopicPartition tp = (TopicPartition) r.source();
      String row = r.start() + "/" + tp.partition() + "/" + r.key();
      Long previous = rows.put(row, r.value());
      assertThat(previous == null || previous.equals(r.value()))
          .as("row %s rewritten: %s then %s", row, previous, r.value())
          .isTrue();
    }
  }

  /** Adds merged results to the sink; one instance never writes a (window, key) twice. */
  static void write(
      String instance,
      List<WindowResult<String, Long>> results,
      TreeMap<Long, TreeMap<String, Long>> sink,
      Set<String> written) {
    for (WindowResult<String, Long> r : results) {
      assertThat(written.add(instance + "/" + r.start() + "/" + r.key()))
          .as("%s wrote window %d key %s twice", instance, r.start(), r.key())
          .isTrue();
      sink.computeIfAbsent(r.start(), s -> new TreeMap<>()).merge(r.key(), r.value(), Long::sum);
    }
  }

  /**
   * Overnight, with a {@link ManualClock} driving the library while the broker is real: partitions
   * 3-5 go silent (they stop holding windows back once idle), then everything is quiet and the last
   * window closes through the quiet-period advance, not before {@code end + allowedLateness}.
   */
  @Test
  void overnightSilentPartitionsStopHoldingAndTheLastWindowClosesThroughTheQuietAdvance() {
    String topic = "overnight";
    broker.createTopic(topic, PARTITIONS);
    Instant start = Instant.parse("2026-03-02T22:00:00Z");
    long base = start.toEpochMilli();
    ManualClock clock = new ManualClock(start);
    List<Event> produced = new ArrayList<>();
    TreeMap<Long, TreeMap<String, Long>> results = new TreeMap<>();
    Map<Long, Long> closedAtWall = new HashMap<>();
    long minute = Duration.ofMinutes(1).toMillis();
    try (KafkaConsumer<String, String> consumer =
        Feed.consumer(broker.bootstrapServers(), "overnight", Map.of())) {
      KafkaWindows<String, Long, Long> windows =
          mergedBuilder()
              .consumer(consumer)
              .clock(clock)
              .quietAdvanceAfter(Duration.ofSeconds(90))
              .build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());
      long consumed = 0;
      // 20 minutes live: all six partitions for 10, then only 0-2 (3-5 go silent for the night).
      for (int m = 0; m < 20; m++) {
        int[] live = m < 10 ? ALL : new int[] {0, 1, 2};
        List<Event> batch =
            new Feed().append(live, base + m * minute, base + (m + 1) * minute, 500, m).events();
        produced.addAll(Feed.produce(broker.bootstrapServers(), topic, batch));
        clock.advance(Duration.ofMinutes(1));
        long t0 = System.nanoTime();
        while (consumed < produced.size()) {
          assertThat(deadlinePassed(t0)).as("minute %d", m).isFalse();
          consumed += onPoll(windows, consumer.poll(POLL));
          collectClosed(windows.pollFinalized(), results, closedAtWall, clock);
        }
      }
      long lastEnd = base + 20 * minute;
      assertThat(closedAtWall)
          .as("windows after 3-5 went silent were closed while 0-2 still delivered")
          .containsKey(base + 10 * minute);
      assertThat(closedAtWall).doesNotContainKey(base + 15 * minute); // the last window
      assertThat(windows.quietAdvances()).isZero();
      // Everything is quiet: the clock runs on, the consumer keeps polling empty.
      long t0 = System.nanoTime();
      while (!closedAtWall.containsKey(base + 15 * minute)) {
        assertThat(deadlinePassed(t0)).isFalse();
        assertThat(clock.wallMillis()).isLessThan(lastEnd + Duration.ofMinutes(10).toMillis());
        clock.advance(Duration.ofSeconds(10));
        onPoll(windows, consumer.poll(Duration.ofMillis(20)));
        collectClosed(windows.pollFinalized(), results, closedAtWall, clock);
      }
      assertThat(windows.quietAdvances()).isPositive();
      assertThat(closedAtWall.get(base + 15 * minute))
          .as("the last window closes at end + allowedLateness, not before")
          .isGreaterThanOrEqualTo(lastEnd + LATENESS_MILLIS)
          .isLessThan(lastEnd + LATENESS_MILLIS + Duration.ofSeconds(20).toMillis());
      assertThat(windows.stats().late()).isZero();
    }
    assertThat(results).isEqualTo(Feed.truth(produced, WINDOW));
  }

  static void collectClosed(
      List<WindowResult<String, Long>> closed,
      TreeMap<Long, TreeMap<String, Long>> into,
      Map<Long, Long> closedAtWall,
      ManualClock clock) {
    for (WindowResult<String, Long> r : closed) {
      closedAtWall.putIfAbsent(r.start(), clock.wallMillis());
    }
    collect(closed, into);
  }

  /**
   * A consumer writes finalized windows to a sink and commits, then crashes (no clean close, after
   * writing but before committing); a new one seeds from the sink and continues. Redelivered
   * records of written windows are late, no written window is overwritten, the sink ends equal to
   * the truth.
   */
  @Test
  void restartSeedsFromTheSinkSoRedeliveredRecordsOfWrittenWindowsAreLate() {
    String topic = "restart";
    broker.createTopic(topic, PARTITIONS);
    long base = backlogStart();
    Feed feed = new Feed().append(ALL, base, base + Duration.ofMinutes(40).toMillis(), 250, 7);
    List<Event> acked = Feed.produce(broker.bootstrapServers(), topic, feed.events());
    int total = acked.size();
    List<TopicPartition> all = partitions(topic, ALL);
    TreeMap<Long, TreeMap<String, Long>> sink = new TreeMap<>();
    Set<String> written = new HashSet<>();

    KafkaConsumer<String, String> first =
        Feed.consumer(broker.bootstrapServers(), "restart", SMALL_FETCHES);
    KafkaWindows<String, Long, Long> w1 = mergedBuilder().consumer(first).build();
    first.assign(all);
    w1.rebalanceListener().onPartitionsAssigned(all); // assign(): tell the driver ourselves
    long consumed = 0;
    long start = System.nanoTime();
    while (true) {
      assertThat(deadlinePassed(start)).isFalse();
      consumed += onPoll(w1, first.poll(POLL));
      List<WindowResult<String, Long>> results = w1.pollFinalized();
      write("job", results, sink, written);
      if (consumed > total / 2 && !results.isEmpty()) {
        break; // crash: written, not committed, no close
      }
      first.commitSync(w1.committableOffsets());
    }
    assertThat(consumed).isLessThan(total);
    long newestWrittenEnd = sink.lastKey() + WINDOW;

    List<Long> lateWindowEnds = new ArrayList<>();
    TreeMap<Long, TreeMap<String, Long>> continued = new TreeMap<>();
    try (KafkaConsumer<String, String> second =
        Feed.consumer(broker.bootstrapServers(), "restart", Map.of())) {
      KafkaWindows<String, Long, Long> w2 =
          mergedBuilder()
              .consumer(second)
              .lateRecordHandler(
                  (record, reason, t, end, wm) -> {
                    if (reason == LateRecordHandler.Reason.LATE) {
                      lateWindowEnds.add(end);
                    }
                  })
              .build();
      second.assign(all);
      w2.rebalanceListener().onPartitionsAssigned(all);
      assertThat(w2.seedWatermark(newestWrittenEnd)).isEqualTo(newestWrittenEnd);
      Map<TopicPartition, Long> endOffsets = second.endOffsets(all);
      start = System.nanoTime();
      while (!atEnd(second, endOffsets)) {
        assertThat(deadlinePassed(start)).isFalse();
        onPoll(w2, second.poll(POLL));
        List<WindowResult<String, Long>> results = w2.pollFinalized();
        write("job", results, sink, written); // fails if a written window is written again
        collect(results, continued);
        second.commitSync(w2.committableOffsets());
      }
      w2.finishAll();
      List<WindowResult<String, Long>> results = w2.pollFinalized();
      write("job", results, sink, written);
      collect(results, continued);
      assertThat(w2.stats().late()).as("redelivered records of written windows").isPositive();
      assertThat(lateWindowEnds)
          .allSatisfy(end -> assertThat(end).isLessThanOrEqualTo(newestWrittenEnd));
      assertThat(continued.firstKey()).isGreaterThanOrEqualTo(newestWrittenEnd);
    } finally {
      first.close(CloseOptions.timeout(Duration.ZERO));
    }
    assertThat(sink).isEqualTo(Feed.truth(acked, WINDOW));
  }

  /**
   * Alignment with {@code maxDrift}: the fast partitions are paused and resumed, peak open windows
   * stay well below the same run without alignment, and no partition is left paused.
   */
  @Test
  void alignmentPausesFastPartitionsBoundsOpenWindowsAndLeavesNonePaused() {
    String topic = "alignment";
    broker.createTopic(topic, PARTITIONS);
    long base = backlogStart();
    Feed feed = new Feed().append(ALL, base, base + Duration.ofMinutes(40).toMillis(), 250, 3);
    List<Event> acked = Feed.produce(broker.bootstrapServers(), topic, feed.events());
    TreeMap<Long, TreeMap<String, Long>> truth = Feed.truth(acked, WINDOW);

    Run unaligned = runSkewed(topic, "unaligned", null, acked.size());
    Run aligned = runSkewed(topic, "aligned", Duration.ofMinutes(5), acked.size());
    String alignedPeakAt = peakAt;

    assertThat(unaligned.pauses).isZero();
    assertThat(aligned.pauses).isPositive();
    assertThat(aligned.resumes).isEqualTo(aligned.pauses);
    assertThat(aligned.leftPaused).isEmpty();
    assertThat(aligned.peakOpenWindows)
        .as(
            "peak open windows, aligned (at %s) vs unaligned %d",
            alignedPeakAt, unaligned.peakOpenWindows)
        .isLessThan(unaligned.peakOpenWindows);
    assertThat(aligned.late).isZero();
    assertThat(unaligned.late).isZero();
    assertThat(aligned.results).isEqualTo(truth);
    assertThat(unaligned.results).isEqualTo(truth);
  }

  static String peakAt = "";

  record Run(
      long peakOpenWindows,
      long pauses,
      long resumes,
      long late,
      Set<TopicPartition> leftPaused,
      TreeMap<Long, TreeMap<String, Long>> results) {}

  /**
   * Drains the backlog, holding partitions 3-5 back for 25 polls once all six have delivered. The
   * peak of open windows is taken from the poll on which every partition has delivered.
   */
  static Run runSkewed(String topic, String group, Duration maxDrift, int total) {
    TreeMap<Long, TreeMap<String, Long>> results = new TreeMap<>();
    try (KafkaConsumer<String, String> consumer =
        Feed.consumer(
            broker.bootstrapServers(), group, Map.of("max.partition.fetch.bytes", "16384"))) {
      KafkaWindows.Builder<Long, Long> builder = mergedBuilder().consumer(consumer);
      if (maxDrift != null) {
        builder.maxDrift(maxDrift);
      }
      KafkaWindows<String, Long, Long> windows = builder.build();
      consumer.subscribe(List.of(topic), windows.rebalanceListener());
      List<TopicPartition> slow = partitions(topic, 3, 4, 5);
      Set<Integer> delivered = new HashSet<>();
      int heldPolls = -1;
      long peak = 0;
      int polls = 0;
      long consumed = 0;
      long start = System.nanoTime();
      while (consumed < total) {
        assertThat(deadlinePassed(start)).as("%s consumed %d", group, consumed).isFalse();
        ConsumerRecords<String, String> records = consumer.poll(POLL);
        for (ConsumerRecord<String, String> r : records) {
          delivered.add(r.partition());
        }
        consumed += onPoll(windows, records);
        // Counted once every partition has delivered: before that, a partition whose fetches come
        // first can run through the whole backlog alone, with nothing to align it against.
        if (delivered.size() == PARTITIONS && windows.stats().openWindows() > peak) {
          peak = windows.stats().openWindows();
          peakAt =
              group + " poll " + polls + " delivered " + delivered + " paused " + consumer.paused();
        }
        polls++;
        collect(windows.pollFinalized(), results);
        if (heldPolls < 0 && delivered.size() < PARTITIONS) {
          // Start even: a partition that has delivered waits until all six have, so that no
          // partition runs through the backlog alone before the others are seen.
          consumer.pause(delivered.stream().map(p -> new TopicPartition(topic, p)).toList());
        } else if (heldPolls < 0) {
          consumer.resume(partitions(topic, 0, 1, 2));
          heldPolls = 0;
        } else if (heldPolls >= 0 && heldPolls < 25 && ++heldPolls == 25) {
          consumer.resume(slow);
        }
      }
      Set<TopicPartition> leftPaused = consumer.paused();
      windows.finishAll();
      collect(windows.pollFinalized(), results);
      return new Run(
          peak, windows.pauses(), windows.resumes(), windows.stats().late(), leftPaused, results);
    }
  }

  /**
   * Commits as the README's loop does: a commit refused because the group is rebalancing (the
   * kafka-clients 4.1 consumer-protocol member reports a stale member epoch as {@code
   * CommitFailedException}) is harmless, since the next commit, or the partition's next owner,
   * starts from the last one.
   */
  private static void commit(
      KafkaConsumer<String, String> consumer, KafkaWindows<?, ?, ?> windows) {
    try {
      consumer.commitSync(windows.committableOffsets());
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // the next commit carries at least the same offsets
    }
  }

  static boolean drained(KafkaConsumer<String, String> consumer, List<TopicPartition> tps) {
    return atEnd(consumer, consumer.endOffsets(tps));
  }

  static boolean atEnd(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
    return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  static long skew(KafkaWindows<String, Long, Long> windows, List<TopicPartition> tps) {
    List<Long> frontiers = tps.stream().map(windows::frontier).collect(Collectors.toList());
    if (frontiers.contains(Long.MIN_VALUE)) {
      return 0;
    }
    return frontiers.stream().mapToLong(Long::longValue).max().orElse(0)
        - frontiers.stream().mapToLong(Long::longValue).min().orElse(0);
  }
}
