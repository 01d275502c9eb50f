package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.test.LowwaterBroker;
import io.github.lowwater.test.OutputTopicReader;
import io.github.lowwater.testing.SyntheticFeed.Event;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@link KafkaWindows} in {@link ResultScope#PER_PARTITION} stays exact while its consumer group
 * changes, on the real in-process broker: tumbling, hopping and session windows, and tumbling and
 * hopping windows with early results and a grace period, each with the classic protocol
 * (cooperative sticky assignor) and with the consumer protocol of KIP-848 (see {@link Protocol}).
 *
 * <p>A 12-partition topic holds a skewed backlog (partitions 0-3 hold 90 min of history, 4-7 30
 * min, 8-11 8 min, all ending a minute ago; a quarter of the records up to a minute out of order)
 * and gets live traffic at the wall clock while the instances of one group (threads of this JVM,
 * each with its own consumer and {@code KafkaWindows}, running the README loop) go through: scale 1
 * to 3; a rolling restart of every instance (plain {@code close()}); an abandoned instance, which
 * writes windows and dies before committing, without leaving the group (see {@link Crash}), while a
 * replacement starts at once; scale 3 to 1; a full restart of the group; and a drain to the end of
 * the input, where the last instance calls {@link KafkaWindows#finishAll()}. Every instance upserts
 * its results into a real SQL database (in-memory H2, {@link H2Sink}) on (window start, partition,
 * key). Proven:
 *
 * <ol>
 *   <li>the rows summed over partitions equal the truth computed from the records in the topic;
 *   <li>no row was ever overwritten with a different value;
 *   <li>no record was late at any instance, dead ones included (every record is at most a minute
 *       behind its partition's newest, under the two minutes of allowed lateness);
 *   <li>records were redelivered (skipped as already written) after hand-overs, and the crash made
 *       the next owners write again, with the same values, windows the dead instance had written
 *       after its last commit;
 *   <li>{@link KafkaWindows#groupWatermark()} of the running instances, sampled every 200 ms, never
 *       exceeded the true bound: the minimum over the partitions of the largest event time below
 *       the committed checkpoint's read-through offset {@code n}, minus the allowed lateness (no
 *       window can be complete beyond what its owner had read; the group watermark is sampled
 *       first, then the committed checkpoints, whose {@code n} only grows); and it was a real
 *       watermark once every partition had committed;
 *   <li>on every instance, after every poll, the partition gauges added up to the assignment.
 * </ol>
 *
 * <p>The pane runs ({@link #panesRun}: early results every minute, a minute of grace, 30 s of
 * allowed lateness, so that records up to a minute behind give late updates and none is beyond the
 * grace period) write to a {@link PaneSink} instead, the conditional upsert on (generation, index)
 * of docs/kafka.md, "Sinks for early and late rows", with {@code
 * consumer.groupMetadata().generationId()} as each instance writes. The checks above hold (2.: no
 * row of a (window, partition, key, index) was written again with another pane), and against the
 * reference of {@link PaneRun}, one consumer reading the whole topic uninterrupted with the same
 * options:
 *
 * <ol start="7">
 *   <li>every row any instance wrote, dead ones included, is the reference's row of its (window,
 *       partition, key, index), and every row of the reference was written;
 *   <li>the rows the next owners wrote for the dead instance's partitions after they moved are
 *       exactly the reference's rows of those partitions' windows that end after the dead
 *       instance's last committed checkpoint ({@code e}, retired through);
 *   <li>EARLY and LATE rows were written, and EARLY and ON_TIME rows after the move.
 * </ol>
 *
 * <p>Semantics rule 54 promises 2., 7. and 8. only where no wall-clock rule acted: a quiet-period
 * advance (an instance's {@link KafkaWindows#quietAdvances()}, charged to every partition it ever
 * owned) or a seed clamped to the wall clock (a partition's watermark below its checkpoint's right
 * after the assignment). Neither should act here (the quiet period is an hour, and a checkpoint's
 * watermark is at most the newest event time minus the lateness, the events being produced at or
 * before the wall clock), but a partition where one did is printed with the rule and left out of
 * those three checks; at least one of the dead instance's partitions must remain.
 *
 * <p>Pacing: a fetch waits {@code fetch.max.wait.ms} (500 ms) for a {@code fetch.min.bytes} that
 * the small {@code max.partition.fetch.bytes} (2 KB) never lets it reach, and the records are
 * produced in small batches, so a partition delivers about 100 records per fetch whichever instance
 * owns it. The catch-up of partitions 0-3 so outlasts the scaling, the rolling restart and the
 * crash, which all happen while windows are being finalized; the group of the full restart is not
 * paced and drains the rest at full speed. A commit refused because the group is rebalancing is
 * counted and the loop goes on (the next commit covers at least as much).
 *
 * <p>The eight runs execute side by side ({@code @Execution(CONCURRENT)}, enabled by {@code
 * junit-platform.properties}, where every other test stays sequential): they mostly wait on the
 * broker, and each has its own topic and group (named after the run), H2 database, producer, live
 * traffic and instance threads; the only state they share is the broker.
 */
class KafkaWindowsGroupTest {

  static final Duration WINDOW = Duration.ofMinutes(5);
  static final long WINDOW_MILLIS = WINDOW.toMillis();
  static final Duration LATENESS = Duration.ofMinutes(2);
  static final int PARTITIONS = 12;

  /**
   * How far a record may be behind the newest record before it in its partition: under LATENESS.
   */
  static final long MAX_DISORDER_MILLIS = Duration.ofMinutes(1).toMillis();

  /** The mean gap between two records of a partition, in event time. */
  static final long SPACING_MILLIS = 2_400;

  /** The backlog's history per partition: 90 min for 0-3, 30 min for 4-7, 8 min for 8-11. */
  static final Duration[] HISTORY = {
    Duration.ofMinutes(90), Duration.ofMinutes(30), Duration.ofMinutes(8)
  };

  /** The pane runs: early results every minute, in five-minute windows. */
  static final Duration EARLY_RESULTS = Duration.ofMinutes(1);

  /** The pane runs: a window takes late updates for a minute after its end. */
  static final Duration GRACE = Duration.ofMinutes(1);

  /** The pane runs: under MAX_DISORDER_MILLIS, so that some records come after the on-time row. */
  static final Duration PANE_LATENESS = Duration.ofSeconds(30);

  static final Duration POLL = Duration.ofMillis(100);
  static final Duration STAGE_DEADLINE = Duration.ofSeconds(40);
  static final long SAMPLE_EVERY_NANOS = Duration.ofMillis(200).toNanos();

  static LowwaterBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = LowwaterBroker.shared();
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicCooperativeGroupWritesExactlyTheTruthThroughScalingRestartsAndACrash()
      throws Exception {
    new GroupRun("group-classic", Protocol.CLASSIC).runAndVerify();
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848GroupWritesExactlyTheTruthThroughScalingRestartsAndACrash() throws Exception {
    new GroupRun("group-kip848", Protocol.KIP848).runAndVerify();
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void hoppingWindowsInAGroupWriteExactlyTheTruthThroughScalingRestartsAndACrash()
      throws Exception {
    hoppingRun(Protocol.KIP848);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicHoppingWindowsInAGroupWriteExactlyTheTruthThroughScalingRestartsAndACrash()
      throws Exception {
    hoppingRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void sessionWindowsInAGroupWriteExactlyTheTruthThroughScalingRestartsAndACrash()
      throws Exception {
    sessionRun(Protocol.KIP848);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicSessionWindowsInAGroupWriteExactlyTheTruthThroughScalingRestartsAndACrash()
      throws Exception {
    sessionRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    panesRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848GroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    panesRun(Protocol.KIP848);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicHoppingGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    hoppingPanesRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848HoppingGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    hoppingPanesRun(Protocol.KIP848);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicSessionGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    sessionPanesRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848SessionGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    sessionPanesRun(Protocol.KIP848);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicSlidingGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    slidingPanesRun(Protocol.CLASSIC);
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848SlidingGroupWritesTheEarlyAndLateRowsOfOneReadingThroughScalingRestartsAndACrash()
      throws Exception {
    slidingPanesRun(Protocol.KIP848);
  }

  /**
   * Sliding windows of 2 minutes with the panes of {@link #panesRun} (semantics rule 79): a record
   * is in a window ending at it and in the windows of its neighbours within 2 minutes; one up to a
   * minute behind its partition's newest joins, and makes, windows past their on-time row (LATE
   * rows), and is never late ({@code t + 1 + grace} is above the newest, above the watermark).
   */
  static void slidingPanesRun(Protocol protocol) throws Exception {
    new GroupRun("group-sliding-panes-" + protocol.id, protocol)
        .sliding(Duration.ofMinutes(2))
        .panes(EARLY_RESULTS, GRACE, PANE_LATENESS)
        .runAndVerify();
  }

  /** The event times of each (partition, key), in the order they came. */
  static Map<List<Object>, List<Long>> timesByPartitionAndKey(List<Event> events) {
    Map<List<Object>, List<Long>> times = new HashMap<>();
    for (Event e : events) {
      times
          .computeIfAbsent(List.of(e.partition(), e.key()), k -> new ArrayList<>())
          .add(e.eventTimeMillis());
    }
    return times;
  }

  /**
   * Rule 77, from its text, for one key's record times: the window ending at {@code e} exists iff a
   * record lies at {@code e - 1}, or one at {@code e - d - 2} and one in {@code [e - d - 1, e)}.
   * Returns the count of records of each window, by start.
   */
  static TreeMap<Long, Long> slidingCounts(Collection<Long> times, long d) {
    Set<Long> at = new HashSet<>(times);
    java.util.TreeSet<Long> ends = new java.util.TreeSet<>();
    for (long t : times) {
      ends.add(t + 1);
      ends.add(t + d + 2);
    }
    TreeMap<Long, Long> counts = new TreeMap<>();
    for (long e : ends) {
      long start = e - d - 1;
      long in = times.stream().filter(t -> t >= start && t < e).count();
      if (at.contains(e - 1) || (at.contains(start - 1) && in > 0)) {
        counts.put(start, in);
      }
    }
    return counts;
  }

  /**
   * The truth of sliding windows (rule 77, from its text): per partition and key, the window ending
   * at {@code e} exists iff a record lies at {@code e - 1}, or one at {@code e - d - 2} and one in
   * {@code [e - d - 1, e)}; it counts the records in it. Summed over partitions by (start, key).
   */
  static TreeMap<Long, TreeMap<String, Long>> slidingTruth(List<Event> events, long d) {
    Map<List<Object>, List<Long>> times = timesByPartitionAndKey(events);
    TreeMap<Long, TreeMap<String, Long>> truth = new TreeMap<>();
    times.forEach(
        (partitionAndKey, ts) -> {
          String key = (String) partitionAndKey.get(1);
          slidingCounts(ts, d)
              .forEach(
                  (start, in) ->
                      truth.computeIfAbsent(start, k -> new TreeMap<>()).merge(key, in, Long::sum));
        });
    return truth;
  }

  /**
   * The sessions of {@link #sessionRun} with the panes of {@link #panesRun}, early results every 5
   * s (a session of a key is seldom a minute long) (semantics rule 56): sessions grow and merge
   * over rows already written, which the sink deletes when the next row replaces them; no record is
   * late (one up to a minute behind its partition's newest has {@code t + gap + grace} above the
   * watermark, the newest less 30 s).
   */
  static void sessionPanesRun(Protocol protocol) throws Exception {
    new GroupRun("group-session-panes-" + protocol.id, protocol)
        .sessions(Duration.ofSeconds(8), Duration.ofMinutes(5))
        .panes(Duration.ofSeconds(5), GRACE, PANE_LATENESS)
        .runAndVerify();
  }

  /**
   * Five-minute windows every minute with the panes of {@link #panesRun}: a record up to a minute
   * behind its partition's newest falls into five windows, none retired (the first one ends above
   * the record, so above the newest minus a minute; it retires at the newest minus 90 s), and late
   * updates come in those of its windows past their on-time row.
   */
  static void hoppingPanesRun(Protocol protocol) throws Exception {
    new GroupRun("group-hopping-panes-" + protocol.id, protocol)
        .hopping(Duration.ofMinutes(1))
        .panes(EARLY_RESULTS, GRACE, PANE_LATENESS)
        .runAndVerify();
  }

  /**
   * Tumbling windows with early results every minute and a minute of grace, under 30 s of allowed
   * lateness: a record up to a minute behind its partition's newest lands after its window's
   * on-time row whenever the window ended more than 30 s before that newest (a LATE row), and never
   * at or past {@code end + grace} (its window's end is above the record, at least the newest minus
   * a minute, so {@code end + grace} is above the newest, itself above the watermark).
   */
  static void panesRun(Protocol protocol) throws Exception {
    new GroupRun("group-panes-" + protocol.id, protocol)
        .panes(EARLY_RESULTS, GRACE, PANE_LATENESS)
        .runAndVerify();
  }

  /** Five-minute windows every minute: each record in five rows, panes of one minute. */
  static void hoppingRun(Protocol protocol) throws Exception {
    new GroupRun("group-hopping-" + protocol.id, protocol)
        .hopping(Duration.ofMinutes(1))
        .runAndVerify();
  }

  /**
   * A key's records of a partition come about every 7 s, up to a minute out of order: with an 8 s
   * gap, sessions merge often and end now and then; the live traffic never stops, so the 5-minute
   * span cuts them too.
   */
  static void sessionRun(Protocol protocol) throws Exception {
    new GroupRun("group-sessions-" + protocol.id, protocol)
        .sessions(Duration.ofSeconds(8), Duration.ofMinutes(5))
        .runAndVerify();
  }

  /**
   * The truth of session windows: per partition and key, the events sorted by time and split where
   * two consecutive ones are a gap or more apart or lie in two cells of the span; each session
   * counted at its first event time. Exact here because no record is late and none can join a
   * closed session (each is at most a minute behind its partition's newest, under the lateness).
   */
  static TreeMap<Long, TreeMap<String, Long>> sessionTruth(
      List<Event> events, long gapMillis, long spanMillis) {
    Map<List<Object>, List<Long>> times = timesByPartitionAndKey(events);
    TreeMap<Long, TreeMap<String, Long>> truth = new TreeMap<>();
    times.forEach(
        (partitionAndKey, ts) -> {
          String key = (String) partitionAndKey.get(1);
          ts.sort(null);
          long first = ts.get(0);
          long previous = first;
          long count = 0;
          for (long t : ts) {
            boolean cut = Math.floorDiv(t, spanMillis) != Math.floorDiv(first, spanMillis);
            if (t - previous >= gapMillis || cut) {
              truth.computeIfAbsent(first, f -> new TreeMap<>()).merge(key, count, Long::sum);
              first = t;
              count = 0;
            }
            previous = t;
            count++;
          }
          truth.computeIfAbsent(first, f -> new TreeMap<>()).merge(key, count, Long::sum);
        });
    return truth;
  }

  /** The truth of hopping windows: each event counted in every window that holds it. */
  static TreeMap<Long, TreeMap<String, Long>> hoppingTruth(
      List<Event> events, long sizeMillis, long advanceMillis) {
    TreeMap<Long, TreeMap<String, Long>> truth = new TreeMap<>();
    for (Event e : events) {
      long t = e.eventTimeMillis();
      for (long start = t - Math.floorMod(t, advanceMillis); start > t - sizeMillis; ) {
        truth.computeIfAbsent(start, s -> new TreeMap<>()).merge(e.key(), 1L, Long::sum);
        start -= advanceMillis;
      }
    }
    return truth;
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * A group protocol with the client settings, the crash and the drain of its runs. Each protocol
   * takes its results through its own drain, so that both drains meet every kind of window.
   */
  enum Protocol {
    /** The classic protocol with the cooperative sticky assignor; the notes' session timeouts. */
    CLASSIC(
        "classic",
        Map.of(
            "group.protocol", "classic",
            "partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
            "session.timeout.ms", "6000",
            "heartbeat.interval.ms", "1000"),
        Crash.CLOSE_REMAINING_IN_GROUP,
        Drain.POLL_FINALIZED),
    /**
     * KIP-848: the session timeout (6 s) and the heartbeat interval are broker settings for this
     * protocol. The dead instance is frozen rather than closed (see {@link Crash#FREEZE}), and the
     * poll timer that then takes it out of the group is 6 s, as the session timeout.
     */
    KIP848(
        "kip848",
        Map.of("group.protocol", "consumer", "max.poll.interval.ms", "6000"),
        Crash.FREEZE,
        Drain.DRAIN_FINALIZED);

    /** In the names of the topic and the group. */
    final String id;

    final Map<String, String> clientConfig;
    final Crash crash;
    final Drain drain;

    Protocol(String id, Map<String, String> clientConfig, Crash crash, Drain drain) {
      this.id = id;
      this.clientConfig = clientConfig;
      this.crash = crash;
      this.drain = drain;
    }
  }

  /** How an instance takes its results: each run uses one of the two drains. */
  enum Drain {
    /** {@link KafkaWindows#pollFinalized()}: a list of results. */
    POLL_FINALIZED,
    /** {@link KafkaWindows#drainFinalized}: a visitor, the allocation-free path. */
    DRAIN_FINALIZED
  }

  /** What an instance thread is told to do next. */
  enum Command {
    RUN,
    /** Leave the loop after the current iteration, then a plain {@code close()}. */
    STOP,
    /**
     * Die right after the next poll that wrote results, before its commit, if no other instance
     * died first.
     */
    CRASH,
    /** Once every partition is assigned and read to the end offsets: finishAll, write, commit. */
    FINISH
  }

  /** How an abandoned instance dies, in this JVM. */
  enum Crash {
    /**
     * The notes' recipe: {@code close} with {@code REMAIN_IN_GROUP} and a zero timeout. No commit,
     * no callback, no LeaveGroup: the member stays until the session timeout. Works for the classic
     * protocol only: with {@code group.protocol=consumer}, kafka-clients 4.4.0 keeps only a static
     * member in the group ({@code ConsumerMembershipManager.leaveGroupEpoch()} is -1, leave, for a
     * dynamic member whatever the operation): the member left at once and its partitions moved
     * within a second.
     */
    CLOSE_REMAINING_IN_GROUP,
    /**
     * The application thread stops dead after its write: no poll, no commit, no callback (its
     * listener is detached), nothing closed. The client's background thread heartbeats on until
     * {@code max.poll.interval.ms}, then takes the member out of the group; only then do its
     * partitions move. The closest to a killed process that a dynamic member of a KIP-848 group
     * allows in one JVM; the consumer is closed once its partitions have moved.
     */
    FREEZE
  }

  /** One read of the group watermarks of the running instances, then of the committed offsets. */
  record Sample(
      long elapsedMillis,
      List<String> instances,
      List<Long> groupWatermarks,
      Map<Integer, Long> committed,
      Map<Integer, Long> readThrough) {}

  /** One scenario on its own topic and group. */
  static final class GroupRun {
    final String topic;
    final String group;
    final Map<String, String> protocolConfig;
    final Crash crash;
    final long startNanos = System.nanoTime();
    final List<Instance> everyInstance = new ArrayList<>();
    final List<Instance> running = new ArrayList<>();
    final List<Sample> samples = new ArrayList<>();
    final long[] lastBaseMillis = new long[PARTITIONS];
    final SplittableRandom liveRandom = new SplittableRandom(99);
    final AtomicLong failedSends = new AtomicLong();

    /** Taken by the one instance that dies: the first told to crash that writes results. */
    final AtomicReference<Instance> crashToken = new AtomicReference<>();

    final Map<String, Long> stageMillis = new LinkedHashMap<>();
    GroupSink sink;
    Admin admin;
    KafkaProducer<String, String> producer;
    ScheduledExecutorService live;
    boolean sampling = true;
    long lastSampleNanos;
    long crashTakeoverMillis = -1;
    boolean deadMemberStayed;

    final Drain drain;

    /** Null for tumbling windows. */
    Duration advance;

    GroupRun hopping(Duration advance) {
      this.advance = advance;
      return this;
    }

    /** Null but for sliding windows. */
    Duration timeDifference;

    GroupRun sliding(Duration timeDifference) {
      this.timeDifference = timeDifference;
      return this;
    }

    /** The span of the run's windows: the size, or for sliding windows the difference plus 1. */
    long windowMillis() {
      return timeDifference != null ? timeDifference.toMillis() + 1 : WINDOW_MILLIS;
    }

    /** Null but for session windows. */
    Duration gap;

    Duration maxSessionSpan;

    GroupRun sessions(Duration gap, Duration maxSessionSpan) {
      this.gap = gap;
      this.maxSessionSpan = maxSessionSpan;
      return this;
    }

    Duration lateness = LATENESS;

    /** Null but for the pane runs, which write to a {@link PaneSink}. */
    Duration earlyResults;

    Duration grace;

    /** Null but for the pane runs. */
    PaneRun panes;

    /**
     * Null but for the transactional runs, whose instances emit through a {@link TransactionalSink}
     * to this topic (see {@link TransactionalSinkGroupTest}).
     */
    String outputTopic;

    /** The records the dead instance had sent in its open transaction when it died. */
    List<org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]>> deadInFlight = List.of();

    GroupRun transactional() {
      this.outputTopic = topic + "-out";
      return this;
    }

    GroupRun panes(Duration earlyResults, Duration grace, Duration lateness) {
      this.earlyResults = earlyResults;
      this.grace = grace;
      this.lateness = lateness;
      return this;
    }

    /** The windows of this run, their lateness and panes; no consumer yet. */
    KafkaWindows.Builder<Long, Long> options() {
      KafkaWindows.Builder<Long, Long> builder =
          (gap != null
                  ? KafkaWindows.sessions(gap, Aggregators.sumLong()).maxSessionSpan(maxSessionSpan)
                  : timeDifference != null
                      ? KafkaWindows.sliding(timeDifference, Aggregators.sumLong())
                      : KafkaWindows.builder(WINDOW, Aggregators.sumLong()))
              .allowedLateness(lateness);
      if (advance != null) {
        builder.hopping(advance);
      }
      if (earlyResults != null) {
        builder.earlyResults(earlyResults).grace(grace);
      }
      return builder;
    }

    GroupRun(String name, Protocol protocol) {
      this.topic = name;
      this.group = name;
      this.protocolConfig = protocol.clientConfig;
      this.crash = protocol.crash;
      this.drain = protocol.drain;
    }

    void runAndVerify() throws Exception {
      broker.createTopic(topic, PARTITIONS);
      if (outputTopic != null) {
        broker.createTopic(outputTopic, 4);
      }
      stage("topic");
      if (earlyResults != null && outputTopic == null) { // the output topic is checked by itself
        panes = new PaneRun();
      }
      try (GroupSink sink = panes != null ? panes.sink : new H2Sink();
          Admin admin = broker.admin();
          KafkaProducer<String, String> producer = producer()) {
        this.sink = sink;
        this.admin = admin;
        this.producer = producer;
        try {
          produceBacklog();
          stage("backlog");
          startLive();
          schedule();
        } finally {
          stopLive();
          for (Instance i : everyInstance) {
            i.command = Command.STOP;
          }
          for (Instance i : everyInstance) {
            i.thread.join(Duration.ofSeconds(10).toMillis());
            if (!i.thread.isAlive()) {
              i.closeIfFrozen();
              i.closeSink();
            }
          }
        }
        verify();
      }
    }

    // -------------------------------------------------------------------------------- schedule

    void schedule() throws Exception {
      Instance a = start("a");
      await(
          "a alone owns every partition and has consumed 1000 records",
          () -> stable() && a.consumed.get() >= 1000);
      stage("scale 1");

      Instance b = start("b");
      Instance c = start("c");
      await("scale 1 -> 3", () -> stable(b, c));
      stage("scale 1->3");

      for (Instance old : List.of(a, b, c)) {
        stop(old);
        Instance next = start(old.name + "2");
        await("rolling restart: " + next.name + " replaces " + old.name, () -> stable(next));
      }
      stage("rolling restart");

      // The crash: the first instance to write results dies right after, before its commit.
      for (Instance i : running) {
        i.command = Command.CRASH;
      }
      await(
          "an instance writes results and dies before committing",
          () -> crashToken.get() != null && !crashToken.get().thread.isAlive());
      Instance dead = crashToken.get();
      if (dead.dying != null) {
        deadInFlight = dead.dying.sentInTransaction();
      }
      for (Instance i : running) {
        if (i != dead) {
          i.command = Command.RUN;
        }
      }
      assertThat(dead.crashed).as("%s crashed", dead.name).isTrue();
      running.remove(dead);
      long crashNanos = System.nanoTime();
      deadMemberStayed = groupHasMember(dead.name);
      if (panes != null) {
        panes.died(dead.assignment, committedOffsetsAndMetadata());
      }
      Instance replacement = start("r");
      await(
          "the partitions of the dead " + dead.name + " move after the session timeout",
          () -> stable(replacement));
      crashTakeoverMillis = (System.nanoTime() - crashNanos) / 1_000_000;
      dead.closeIfFrozen();
      stage("crash");

      stop(running.get(0), running.get(1));
      await("scale 3 -> 1", this::stable);
      stage("scale 3->1");

      // The pacing has served (the chaos happened during the catch-up): the restarted group
      // drains the rest at full speed.
      stop(running.get(0));
      Instance g1 = start("g1", false);
      Instance g2 = start("g2", false);
      await("full restart", () -> stable(g1, g2));
      stage("full restart");

      stopLive();
      Map<TopicPartition, Long> ends = endOffsets();
      stop(g1);
      g2.endOffsets = ends;
      await("g2 owns every partition and has read them to the end", () -> g2.atEnd);
      sampling = false; // finishAll claims the open windows written: past the bound checked here
      g2.command = Command.FINISH;
      await("g2 finishes, writes and commits", () -> !g2.thread.isAlive());
      running.remove(g2);
      assertThat(g2.finished).as("g2 finished").isTrue();
      stage("drain");
      assertThat(committedOffsets())
          .as("after finishAll the committed offsets are the end offsets")
          .isEqualTo(toIds(ends));
    }

    Instance start(String name) {
      return start(name, true);
    }

    /**
     * Starts an instance; a paced one fetches at most 2 KB per partition per 500 ms (see the class
     * comment), an unpaced one with the defaults.
     */
    Instance start(String name, boolean paced) {
      Map<String, String> config = new HashMap<>(protocolConfig);
      config.put("client.id", group + "-" + name);
      config.put("max.poll.records", "200");
      if (outputTopic != null) {
        config.put("isolation.level", "read_committed"); // committed offsets fetched stable
      }
      if (paced) {
        config.put("max.partition.fetch.bytes", "2048");
        config.put("fetch.min.bytes", "1048576");
        config.put("fetch.max.wait.ms", "500");
      }
      KafkaConsumer<String, String> consumer =
          Feed.consumer(broker.bootstrapServers(), group, config);
      KafkaWindows<String, Long, Long> windows =
          options()
              .consumer(consumer)
              .groupWatermarkInterval(Duration.ofMillis(500))
              .quietAdvanceAfter(Duration.ofHours(1))
              .build();
      Instance i =
          new Instance(name, consumer, windows, topic, sink, crash, drain, crashToken, panes);
      if (outputTopic != null) {
        i.transactional(outputTopic, group + "-" + name);
      }
      everyInstance.add(i);
      running.add(i);
      i.thread.start();
      return i;
    }

    /** Tells the instances to stop (plain close) and waits until their threads have ended. */
    void stop(Instance... instances) throws Exception {
      for (Instance i : instances) {
        i.command = Command.STOP;
      }
      for (Instance i : instances) {
        await(i.name + " stops", () -> !i.thread.isAlive());
        running.remove(i);
      }
    }

    /**
     * Whether every running instance owns partitions, none owned twice, all of them owned, and the
     * given new instances have consumed records.
     */
    boolean stable(Instance... joined) {
      Set<TopicPartition> union = new HashSet<>();
      int total = 0;
      for (Instance i : running) {
        Set<TopicPartition> owned = i.assignment;
        if (owned.isEmpty()) {
          return false;
        }
        union.addAll(owned);
        total += owned.size();
      }
      for (Instance i : joined) {
        if (i.consumed.get() == 0) {
          return false;
        }
      }
      return union.size() == PARTITIONS && total == PARTITIONS;
    }

    /** Polls the condition with a deadline, sampling the group watermark meanwhile. */
    void await(String what, BooleanSupplier condition) throws Exception {
      long deadline = System.nanoTime() + STAGE_DEADLINE.toNanos();
      while (true) {
        for (Instance i : everyInstance) {
          if (i.failure != null) {
            throw new AssertionError(i.name + " failed during: " + what, i.failure);
          }
        }
        if (sampling && System.nanoTime() - lastSampleNanos >= SAMPLE_EVERY_NANOS) {
          sample();
        }
        if (condition.getAsBoolean()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          fail("not within %s: %s; %s", STAGE_DEADLINE, what, describe());
        }
        Thread.sleep(50); // polling with a deadline
      }
    }

    void stage(String name) {
      stageMillis.put(name, (System.nanoTime() - startNanos) / 1_000_000);
    }

    String describe() {
      return running.stream()
          .map(
              i ->
                  i.name
                      + " owns "
                      + i.assignment.stream().map(TopicPartition::partition).sorted().toList()
                      + ", consumed "
                      + i.consumed.get()
                      + ", "
                      + i.command)
          .collect(Collectors.joining("; ", "running: ", ""));
    }

    // ------------------------------------------------------------------------- group watermark

    /** The group watermarks of the running instances first, then the committed offsets. */
    void sample() throws Exception {
      lastSampleNanos = System.nanoTime();
      List<String> names = new ArrayList<>();
      List<Long> watermarks = new ArrayList<>();
      for (Instance i : running) {
        names.add(i.name);
        watermarks.add(i.windows.groupWatermark());
      }
      Map<TopicPartition, OffsetAndMetadata> offsets = committedOffsetsAndMetadata();
      samples.add(
          new Sample(
              (System.nanoTime() - startNanos) / 1_000_000,
              names,
              watermarks,
              byPartition(offsets, OffsetAndMetadata::offset),
              byPartition(offsets, om -> Checkpoint.parse(om.metadata()).readThroughOffset())));
    }

    Map<Integer, Long> committedOffsets() throws Exception {
      return byPartition(committedOffsetsAndMetadata(), OffsetAndMetadata::offset);
    }

    Map<TopicPartition, OffsetAndMetadata> committedOffsetsAndMetadata() throws Exception {
      return admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS);
    }

    Map<Integer, Long> byPartition(
        Map<TopicPartition, OffsetAndMetadata> offsets,
        java.util.function.ToLongFunction<OffsetAndMetadata> field) {
      Map<Integer, Long> values = new TreeMap<>();
      offsets.forEach(
          (tp, om) -> {
            if (om != null && tp.topic().equals(topic)) {
              values.put(tp.partition(), field.applyAsLong(om));
            }
          });
      return values;
    }

    boolean groupHasMember(String instance) throws Exception {
      return admin
          .describeConsumerGroups(List.of(group))
          .describedGroups()
          .get(group)
          .get(10, TimeUnit.SECONDS)
          .members()
          .stream()
          .anyMatch(m -> m.clientId().equals(group + "-" + instance));
    }

    // -------------------------------------------------------------------------------- the feed

    KafkaProducer<String, String> producer() {
      // Small batches: a fetch returns at least one whole batch, so large ones would defeat the
      // small max.partition.fetch.bytes of the consumers (see the class comment).
      return Feed.producer(
          broker.bootstrapServers(),
          Map.of(
              ProducerConfig.BATCH_SIZE_CONFIG, "512",
              ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
              ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000"));
    }

    /** An event time at most MAX_DISORDER_MILLIS behind the base; a quarter of them are behind. */
    static long eventTime(long baseMillis, SplittableRandom random) {
      return random.nextInt(4) == 0
          ? baseMillis - random.nextLong(MAX_DISORDER_MILLIS)
          : baseMillis;
    }

    void send(int partition, long eventTimeMillis, String key) {
      producer.send(
          new ProducerRecord<>(topic, partition, eventTimeMillis, key, "1"),
          (metadata, e) -> {
            if (e != null) {
              failedSends.incrementAndGet(); // not in the topic, so not in the truth
            }
          });
    }

    void produceBacklog() {
      long end = System.currentTimeMillis() - Duration.ofMinutes(1).toMillis();
      SplittableRandom random = new SplittableRandom(7);
      for (int p = 0; p < PARTITIONS; p++) {
        long base = end - HISTORY[p / 4].toMillis() + random.nextLong(SPACING_MILLIS);
        while (base < end) {
          send(p, eventTime(base, random), Feed.KEYS[random.nextInt(Feed.KEYS.length)]);
          lastBaseMillis[p] = base;
          base += SPACING_MILLIS / 2 + random.nextLong(SPACING_MILLIS);
        }
      }
      producer.flush();
    }

    /** Live traffic: every 100 ms a record per partition, at about the wall clock. */
    void startLive() {
      live = Executors.newSingleThreadScheduledExecutor();
      live.scheduleAtFixedRate(
          () -> {
            long now = System.currentTimeMillis();
            for (int p = 0; p < PARTITIONS; p++) {
              long base = Math.max(lastBaseMillis[p] + 1, now);
              lastBaseMillis[p] = base;
              send(p, eventTime(base, liveRandom), Feed.KEYS[liveRandom.nextInt(Feed.KEYS.length)]);
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
    }

    void stopLive() throws InterruptedException {
      if (live != null && !live.isShutdown()) {
        live.shutdown();
        assertThat(live.awaitTermination(10, TimeUnit.SECONDS)).as("live producer stops").isTrue();
        producer.flush();
      }
    }

    Map<TopicPartition, Long> endOffsets() throws Exception {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get(10, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      return ends;
    }

    static Map<Integer, Long> toIds(Map<TopicPartition, Long> offsets) {
      Map<Integer, Long> byId = new TreeMap<>();
      offsets.forEach((tp, o) -> byId.put(tp.partition(), o));
      return byId;
    }

    // -------------------------------------------------------------------------------- verify

    void verify() throws Exception {
      List<String> outputChecks = outputTopic != null ? readOutput() : List.of();
      Map<TopicPartition, Long> ends = endOffsets();
      List<Event> events = new ArrayList<>();
      long[][] timestamps = readTopic(ends, events);
      for (int p = 0; p < PARTITIONS; p++) {
        long newest = Long.MIN_VALUE;
        for (int o = 0; o < timestamps[p].length; o++) {
          long t = timestamps[p][o];
          if (newest != Long.MIN_VALUE) {
            assertThat(t)
                .as("premise: partition %d offset %d is at most a minute out of order", p, o)
                .isGreaterThanOrEqualTo(newest - MAX_DISORDER_MILLIS);
          }
          newest = Math.max(newest, t);
        }
      }

      long late = 0;
      long redelivered = 0;
      for (Instance i : everyInstance) {
        late += i.windows.stats().late();
        redelivered += i.windows.redeliveredRecords();
        if (panes != null) {
          panes.quietAdvances(i.name, i.windows.quietAdvances(), i.ownedEver);
        }
      }
      String summary =
          String.format(
              "%s: %d records (%d failed sends), %d rows, %d rewritten with the same value,"
                  + " %d redelivered, %d commit failures, crash takeover %d ms, %d samples;"
                  + " stages at %s ms",
              group,
              events.size(),
              failedSends.get(),
              sink.rows(),
              sink.rewrites(),
              redelivered,
              everyInstance.stream().mapToLong(i -> i.commitFailures).sum(),
              crashTakeoverMillis,
              samples.size(),
              stageMillis);
      if (panes != null) {
        summary += "; " + panes.summary();
      }
      System.out.println(summary);

      // The specific failures first: 2. no row was overwritten with a different value (pane runs:
      // no (window, partition, key, index), where no wall-clock rule acted); 3. nothing was late
      // (every record is within the allowed lateness of its partition, pane runs: within the grace
      // period of its window).
      assertThat(panes == null ? sink.violations() : panes.sink.violationsOutside(panes.exempt()))
          .as("rows overwritten with a different value; %s", summary)
          .isEmpty();
      assertThat(late).as("late records over every instance; %s", summary).isZero();
      // 1. The rows summed over partitions are the truth.
      assertThat(sink.sumOverPartitions(topic))
          .as("rows summed over partitions vs the truth from the topic; %s", summary)
          .isEqualTo(
              gap != null
                  ? sessionTruth(events, gap.toMillis(), maxSessionSpan.toMillis())
                  : timeDifference != null
                      ? slidingTruth(events, timeDifference.toMillis())
                      : advance == null
                          ? Feed.truth(events, WINDOW_MILLIS)
                          : hoppingTruth(events, WINDOW_MILLIS, advance.toMillis()));
      // 4. Hand-overs redelivered records of written windows (sessions: a re-read record is taken
      // again and its written session dropped when it closes, so only late re-read records count
      // as redelivered, and here none is late); the crash made windows written after the last
      // commit be written again, with the same values.
      if (gap == null) {
        assertThat(redelivered).as("redelivered records; %s", summary).isPositive();
      }
      if (outputTopic == null) {
        assertThat(sink.rewrites())
            .as("rows written again after the crash; %s", summary)
            .isPositive();
      } else {
        assertThat(outputChecks).as("the output topic; %s", summary).isEmpty();
        System.out.println(
            group
                + ": "
                + everyInstance.stream()
                    .map(i -> i.tx.toString())
                    .collect(Collectors.joining(", ")));
      }
      assertThat(deadMemberStayed)
          .as("the dead instance was still a member of the group right after its crash")
          .isTrue();
      // 5. The group watermark never exceeded the true bound, and was a real one.
      verifyGroupWatermark(timestamps, summary);
      // 6. On every instance, after every poll, the partition gauges added up to the assignment.
      for (Instance i : everyInstance) {
        assertThat(i.countMismatches)
            .as(
                "%s: polls whose partition counts disagreed (last: %s)",
                i.name, i.lastCountMismatch)
            .isZero();
      }
      assertThat(everyInstance.stream().mapToLong(i -> i.allActivePolls).sum())
          .as("polls after which every assigned partition counted as active")
          .isPositive();
      if (panes != null) {
        panes.verify(group, topic, PARTITIONS, windowMillis(), options(), summary);
      }
    }

    /**
     * Reads the output topic into the sink: every committed row once (read_committed); and checks
     * that the dead instance's rows, sent in its open transaction, are in the log (read_uncommitted
     * sees them) and were committed exactly once, by the next owners. Returns what failed.
     */
    /** Rows (panes) committed more than once: none. */
    long repeatedPanes;

    List<String> readOutput() {
      List<ConsumerRecord<byte[], byte[]>> committed =
          OutputTopicReader.read(
              broker.bootstrapServers(),
              outputTopic,
              IsolationLevel.READ_COMMITTED,
              STAGE_DEADLINE);
      List<ConsumerRecord<byte[], byte[]>> all =
          OutputTopicReader.read(
              broker.bootstrapServers(),
              outputTopic,
              IsolationLevel.READ_UNCOMMITTED,
              STAGE_DEADLINE);
      List<String> failures = new ArrayList<>();
      // A row is (RowKey, index): without panes every index is 0. The last pane of a RowKey, the
      // one of the highest index, holds the window's value.
      // With panes a new owner re-reads from the commit, which waits for a window's retirement,
      // and produces again the panes its predecessor had committed for the windows still open
      // there; the transactional sink's windows drop those (rule 59), so every pane is committed
      // once.
      Map<List<Object>, Integer> times = new HashMap<>();
      Map<List<Object>, Long> values = new HashMap<>();
      Map<RowKey, long[]> last = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : committed) {
        RowKey k = RowKey.parse(r.key());
        int index = OutputTopic.index(r.headers());
        long value = java.nio.ByteBuffer.wrap(r.value()).getLong();
        Long before = values.put(List.of(k, index), value);
        if (times.merge(List.of(k, index), 1, Integer::sum) > 1) {
          failures.add("committed twice: " + k + " index " + index + ": " + before + ", " + value);
          repeatedPanes++;
        }
        last.merge(k, new long[] {index, value}, (a, b) -> a[0] >= b[0] ? a : b);
      }
      last.forEach(
          (k, indexAndValue) ->
              sink.write(
                  "output",
                  0,
                  k.topic(),
                  k.partition(),
                  k.start(),
                  new String(k.key(), java.nio.charset.StandardCharsets.UTF_8),
                  indexAndValue[1],
                  Timing.ON_TIME,
                  0,
                  true));
      Map<List<Object>, Integer> seen = new HashMap<>();
      all.forEach(
          r ->
              seen.merge(
                  List.of(RowKey.parse(r.key()), OutputTopic.index(r.headers())), 1, Integer::sum));
      if (deadInFlight.isEmpty()) {
        failures.add("the dead instance had sent no row in its open transaction");
      }
      for (org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> r : deadInFlight) {
        List<Object> row = List.of(RowKey.parse(r.key()), OutputTopic.index(r.headers()));
        if (seen.getOrDefault(row, 0) < 2) {
          failures.add("read_uncommitted does not see the aborted row and its rewrite: " + row);
        }
        if (times.getOrDefault(row, 0) != 1) {
          failures.add("the dead instance's row is not committed exactly once: " + row);
        }
      }
      System.out.printf(
          "%s output: %d committed rows (%d committed twice), %d records read uncommitted, %d in"
              + " the dead transaction%n",
          group, committed.size(), repeatedPanes, all.size(), deadInFlight.size());
      return failures;
    }

    /** Every record of the topic: its timestamps by partition and offset, and its events. */
    long[][] readTopic(Map<TopicPartition, Long> ends, List<Event> events) {
      long[][] timestamps = new long[PARTITIONS][];
      for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
        timestamps[e.getKey().partition()] = new long[Math.toIntExact(e.getValue())];
      }
      try (KafkaConsumer<String, String> reader =
          Feed.consumer(broker.bootstrapServers(), group + "-reader", Map.of())) {
        reader.assign(ends.keySet());
        reader.seekToBeginning(ends.keySet());
        long deadline = System.nanoTime() + STAGE_DEADLINE.toNanos();
        while (ends.entrySet().stream().anyMatch(e -> reader.position(e.getKey()) < e.getValue())) {
          assertThat(System.nanoTime()).as("reading the topic back").isLessThan(deadline);
          for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
            timestamps[r.partition()][Math.toIntExact(r.offset())] = r.timestamp();
            events.add(new Event(r.partition(), r.timestamp(), r.key()));
            if (panes != null) {
              panes.topicRecords.add(r);
            }
            assertThat(r.value()).isEqualTo("1");
          }
        }
      }
      return timestamps;
    }

    void verifyGroupWatermark(long[][] timestamps, String summary) {
      // The largest event time below each offset, per partition.
      long[][] newestBelow = new long[PARTITIONS][];
      for (int p = 0; p < PARTITIONS; p++) {
        newestBelow[p] = new long[timestamps[p].length + 1];
        newestBelow[p][0] = Long.MIN_VALUE;
        for (int o = 0; o < timestamps[p].length; o++) {
          newestBelow[p][o + 1] = Math.max(newestBelow[p][o], timestamps[p][o]);
        }
      }
      List<String> exceeded = new ArrayList<>();
      List<String> backwards = new ArrayList<>();
      Map<Integer, Long> previous = Map.of();
      int real = 0;
      int afterEveryCommit = 0;
      for (Sample s : samples) {
        long bound = Long.MAX_VALUE;
        for (int p = 0; p < PARTITIONS; p++) {
          Long readThrough = s.readThrough().get(p);
          long newest =
              readThrough == null ? Long.MIN_VALUE : newestBelow[p][Math.toIntExact(readThrough)];
          bound =
              Math.min(
                  bound, newest == Long.MIN_VALUE ? Long.MIN_VALUE : newest - lateness.toMillis());
        }
        if (s.committed().size() == PARTITIONS) {
          afterEveryCommit++;
        }
        for (int k = 0; k < s.groupWatermarks().size(); k++) {
          long gw = s.groupWatermarks().get(k);
          if (gw > bound) {
            exceeded.add(
                String.format(
                    "at %d ms %s: groupWatermark %d > bound %d (committed %s)",
                    s.elapsedMillis(), s.instances().get(k), gw, bound, s.committed()));
          }
          if (gw != Long.MIN_VALUE) {
            real++;
          }
        }
        for (Map.Entry<Integer, Long> e : previous.entrySet()) {
          Long now = s.committed().get(e.getKey());
          if (now == null || now < e.getValue()) {
            backwards.add(
                String.format(
                    "at %d ms partition %d: %d -> %s",
                    s.elapsedMillis(), e.getKey(), e.getValue(), now));
          }
        }
        previous = s.committed();
      }
      assertThat(backwards).as("premise: committed offsets only grow").isEmpty();
      assertThat(exceeded).as("group watermark above the true bound; %s", summary).isEmpty();
      assertThat(afterEveryCommit).as("samples once every partition had committed").isPositive();
      assertThat(real).as("samples with a real group watermark; %s", summary).isPositive();
      Sample last = samples.get(samples.size() - 1);
      assertThat(last.groupWatermarks())
          .as(
              "the group watermarks of the last sample, long after every partition committed: %s",
              last)
          .isNotEmpty()
          .doesNotContain(Long.MIN_VALUE);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Forwards to {@link KafkaWindows#rebalanceListener()} until detached when its instance dies: a
   * dead process runs no callback (the first step of the crash recipe in the testing notes). After
   * an assignment it calls {@code afterAssigned}.
   */
  static final class Detachable implements ConsumerRebalanceListener {
    final ConsumerRebalanceListener delegate;
    final java.util.function.Consumer<Collection<TopicPartition>> afterAssigned;
    volatile boolean detached;

    Detachable(
        ConsumerRebalanceListener delegate,
        java.util.function.Consumer<Collection<TopicPartition>> afterAssigned) {
      this.delegate = delegate;
      this.afterAssigned = afterAssigned;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (!detached) {
        delegate.onPartitionsAssigned(partitions);
        afterAssigned.accept(partitions);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (!detached) {
        delegate.onPartitionsRevoked(partitions);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      if (!detached) {
        delegate.onPartitionsLost(partitions);
      }
    }
  }

  /** One instance of the group: a thread running the README loop on its own consumer. */
  static final class Instance implements Runnable {
    final String name;
    final KafkaConsumer<String, String> consumer;
    final KafkaWindows<String, Long, Long> windows;
    final String topic;
    final GroupSink sink;
    final Crash crash;
    final Drain drain;
    final AtomicReference<Instance> crashToken;
    final Detachable listener;

    /** Where a clamped seed is noted; null but in the pane runs. */
    final PaneRun panes;

    /** Every partition this instance has had, as seen after its polls. */
    final Set<TopicPartition> ownedEver = ConcurrentHashMap.newKeySet();

    /** Polls after which the partition counts disagreed with the assignment, and the last one. */
    volatile long countMismatches;

    volatile String lastCountMismatch;

    /** Polls after which every assigned partition (at least one) counted as active. */
    volatile long allActivePolls;

    /** Null but in the transactional runs: the sink and its producer, which can die. */
    TransactionalSink<String, Long> tx;

    DyingProducer dying;

    final Thread thread;
    final AtomicLong consumed = new AtomicLong();
    volatile Command command = Command.RUN;
    volatile Set<TopicPartition> assignment = Set.of();
    volatile Map<TopicPartition, Long> endOffsets;
    volatile boolean atEnd;
    volatile boolean crashed;
    volatile boolean closed;
    volatile boolean finished;
    volatile long commitFailures;
    volatile Throwable failure;

    Instance(
        String name,
        KafkaConsumer<String, String> consumer,
        KafkaWindows<String, Long, Long> windows,
        String topic,
        GroupSink sink,
        Crash crash,
        Drain drain,
        AtomicReference<Instance> crashToken,
        PaneRun panes) {
      this.name = name;
      this.consumer = consumer;
      this.windows = windows;
      this.topic = topic;
      this.sink = sink;
      this.crash = crash;
      this.drain = drain;
      this.crashToken = crashToken;
      this.panes = panes;
      this.listener =
          new Detachable(windows.rebalanceListener(), panes == null ? tps -> {} : this::noteClamps);
      this.thread = new Thread(this, "instance-" + topic + "-" + name);
      this.thread.setDaemon(true);
    }

    @Override
    public void run() {
      try {
        consumer.subscribe(List.of(topic), listener);
        while (command != Command.STOP) {
          ConsumerRecords<String, String> records = consumer.poll(POLL);
          windows.onPoll(records, ConsumerRecord::key, r -> Long.parseLong(r.value()));
          consumed.addAndGet(records.count());
          ownedEver.addAll(windows.assignedPartitions());
          checkPartitionCounts();
          if (tx != null) {
            try {
              emit();
            } catch (DyingProducer.Death d) {
              die(); // sent and the offsets too, not committed
              return;
            }
          } else {
            int written = writeFinalized();
            if (command == Command.CRASH && written > 0 && crashToken.compareAndSet(null, this)) {
              die(); // written, not committed
              return;
            }
            commit();
          }
          assignment = Set.copyOf(consumer.assignment());
          Map<TopicPartition, Long> ends = endOffsets;
          if (ends != null) {
            atEnd = reachedEnd(ends);
            if (command == Command.FINISH && atEnd) {
              windows.finishAll(); // the end of this bounded input
              if (tx != null) {
                while (!emit()) {
                  // an abortable error: the same rows again
                }
              } else {
                writeFinalized();
                consumer.commitSync(windows.committableOffsets());
              }
              finished = true;
              break;
            }
          }
        }
        consumer.close(); // plain close: the next owner starts from the last commit
        closed = true;
      } catch (Throwable t) {
        failure = t;
        try {
          closed = true;
          consumer.close(CloseOptions.timeout(Duration.ZERO));
        } catch (RuntimeException ignored) {
          // the failure above is what is reported
        }
      }
    }

    /** A dead process runs no callback and sends no LeaveGroup. */
    void die() {
      assignment = Set.copyOf(consumer.assignment());
      listener.detached = true;
      if (crash == Crash.CLOSE_REMAINING_IN_GROUP) {
        closeRemainingInGroup();
      }
      crashed = true;
    }

    /**
     * Emits through the transactional sink; returns false after an abortable error (counted as a
     * commit failure: the next emit writes the same rows again). The first instance told to crash
     * that has sent rows in its transaction dies between sendOffsetsToTransaction and
     * commitTransaction.
     */
    boolean emit() {
      try {
        windows.emit(tx);
        return true;
      } catch (SinkException e) {
        if (tx.isClosed()) {
          throw e;
        }
        commitFailures++;
        return false;
      }
    }

    /** Builds this instance's sink, with a producer of its own ({@code transactional.id}). */
    void transactional(String outputTopic, String transactionalId) {
      Map<String, Object> config =
          Map.of(
              "bootstrap.servers",
              broker.bootstrapServers(),
              "transactional.id",
              transactionalId,
              "transaction.timeout.ms",
              "10000",
              "linger.ms",
              "5");
      dying =
          new DyingProducer(
              new org.apache.kafka.clients.producer.KafkaProducer<>(
                  config,
                  new org.apache.kafka.common.serialization.ByteArraySerializer(),
                  new org.apache.kafka.common.serialization.ByteArraySerializer()));
      dying.beforeCommit =
          () -> {
            if (command == Command.CRASH
                && !dying.sentInTransaction().isEmpty()
                && crashToken.compareAndSet(null, this)) {
              throw new DyingProducer.Death();
            }
          };
      tx =
          TransactionalSink.builder(windows, outputTopic) // the producer is given
              .keySerializer(new org.apache.kafka.common.serialization.StringSerializer())
              .valueSerializer(new org.apache.kafka.common.serialization.LongSerializer())
              .build(dying);
    }

    /** Closes the sink once the thread has ended; a dead instance's producer, without an abort. */
    void closeSink() {
      if (tx == null) {
        return;
      }
      if (crashed) {
        dying.close(Duration.ZERO);
      } else {
        tx.close();
      }
    }

    void closeRemainingInGroup() {
      closed = true;
      consumer.close(
          CloseOptions.groupMembershipOperation(
                  CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
              .withTimeout(Duration.ZERO));
    }

    /**
     * Closes the consumer of a frozen instance once its thread has ended and its partitions have
     * moved: it is out of the group by then, and its detached listener does nothing.
     */
    void closeIfFrozen() {
      if (!closed) {
        closed = true;
        consumer.close(
            CloseOptions.groupMembershipOperation(
                    CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                .withTimeout(Duration.ofSeconds(5)));
      }
    }

    /**
     * Writes the finalized results through this run's drain, with their panes and the group
     * generation as of this write (docs/kafka.md, "Sinks for early and late rows"); returns how
     * many.
     */
    int writeFinalized() {
      int generation = consumer.groupMetadata().generationId();
      if (drain == Drain.DRAIN_FINALIZED) {
        return windows.drainFinalized(
            new PartitionResultVisitor<String, Long>() {
              @Override
              public void visit(TopicPartition tp, long start, long end, String key, Long result) {
                throw new AssertionError("a sumLong row comes through visitLongPane");
              }

              @Override
              public void visitReplaced(TopicPartition tp, long start, String key) {
                sink.delete(name, generation, tp.topic(), tp.partition(), start, key);
              }

              @Override
              public void visitLongPane(
                  TopicPartition tp,
                  long start,
                  long end,
                  String key,
                  long value,
                  Timing timing,
                  int index,
                  boolean isFinal) {
                sink.write(
                    name,
                    generation,
                    tp.topic(),
                    tp.partition(),
                    start,
                    key,
                    value,
                    timing,
                    index,
                    isFinal);
              }
            });
      }
      List<WindowResult<String, Long>> results = windows.pollFinalized();
      for (WindowResult<String, Long> r : results) {
        sink.write(name, generation, r);
      }
      return results.size();
    }

    /**
     * After the windows' listener has seeded the new partitions from their checkpoints: a seed
     * clamped to the wall clock (semantics rule 54's second wall-clock rule) left a partition's
     * watermark below its checkpoint's. Reads the checkpoints again, as the listener did (no one
     * else commits these partitions meanwhile).
     */
    void noteClamps(Collection<TopicPartition> partitions) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          consumer.committed(new HashSet<>(partitions), Duration.ofSeconds(10));
      committed.forEach(
          (tp, om) -> {
            if (om == null) {
              return;
            }
            long checkpointed = Checkpoint.parse(om.metadata()).watermarkMillis();
            long seeded = windows.watermark(tp);
            if (checkpointed != WatermarkTracker.NO_WATERMARK && seeded < checkpointed) {
              panes.clamped(name, tp.partition(), checkpointed, seeded);
            }
          });
    }

    /**
     * After a poll: active and idle partitions add up to the assignment, none is paused (no
     * alignment here), and the active ones are counted whenever all of them are.
     */
    void checkPartitionCounts() {
      int assigned = windows.partitions().size();
      int active = windows.activePartitionCount();
      int idle = windows.idlePartitionCount();
      int paused = windows.pausedPartitionCount();
      if (active < 0 || active > assigned || active + idle != assigned || paused != 0) {
        countMismatches++;
        lastCountMismatch =
            "assigned " + assigned + ", active " + active + ", idle " + idle + ", paused " + paused;
      } else if (assigned > 0 && active == assigned) {
        allActivePolls++;
      }
    }

    /**
     * Commits; a commit refused because the group is rebalancing is harmless (the listener commits
     * nothing and the next commit covers at least as much) and only counted.
     */
    void commit() {
      try {
        consumer.commitSync(windows.committableOffsets());
      } catch (RebalanceInProgressException | CommitFailedException e) {
        commitFailures++;
      }
    }

    boolean reachedEnd(Map<TopicPartition, Long> ends) {
      if (!consumer.assignment().equals(ends.keySet())) {
        return false;
      }
      for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
        if (consumer.position(e.getKey()) < e.getValue()) {
          return false;
        }
      }
      return true;
    }
  }
}
