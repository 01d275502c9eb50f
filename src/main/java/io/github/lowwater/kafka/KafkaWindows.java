package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.EventTimeOptions;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.FutureEventPolicy;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.SlidingWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Tumbling ({@link #builder}), hopping ({@link Builder#hopping}), session ({@link #sessions}) or
 * sliding ({@link #sliding}) event-time windows driven from a plain Kafka consumer loop, exact in a
 * consumer group whose membership changes: the partition, not the instance, is the unit of
 * exactness, and what a partition's next owner needs travels in the metadata of its committed
 * offset.
 *
 * <p><b>Not thread-safe; confine every call to the polling thread</b>, the thread that owns the
 * {@link Consumer} (the rebalance listener runs there too, inside {@code poll}). The readings for a
 * metrics reporter may be read from any thread: {@link #watermark()}, {@link #groupWatermark()},
 * {@link #stats()}, {@link #partitions()}, {@link #frontier(TopicPartition)}, {@link
 * #watermark(TopicPartition)}, {@link #millisSinceLastPoll()} and every counter ({@link
 * #redeliveredRecords()}, {@link #skippedRecords()}, {@link #quietAdvances()}, {@link #pauses()},
 * {@link #resumes()}). {@link #onPoll} costs what {@link TumblingWindows#add} costs per record,
 * plus a little bookkeeping when a record opens a window of its partition, plus per poll one clock
 * read and O(assigned partitions); it allocates per record only what the mapper allocates. No
 * threads are started.
 *
 * <h2>Result scopes</h2>
 *
 * <p>{@link ResultScope#PER_PARTITION} (the default): each partition has windows of its own, closed
 * on its own watermark (its frontier minus the allowed lateness), and a result is one (window,
 * partition, key) row with {@link WindowResult#source()} the {@link TopicPartition}. Whichever
 * instance owns a partition computes the same rows from the same records, so a sink that upserts on
 * (window start, partition, key) and sums over partitions when read is exact through deploys,
 * scaling and crashes. {@link ResultScope#MERGED}: one result per (window, key) over the instance's
 * partitions, closed on their minimum; exact for a single consumer that owns every partition.
 *
 * <h2>What a poll does</h2>
 *
 * <ol>
 *   <li>The clock is read once ({@link CachedClock}).
 *   <li>Each record is mapped to (event time, key, value) and then, in this order: a record of a
 *       window already written for its partition (by a previous owner, as its checkpoint says) and
 *       read before is <em>redelivered</em>: it moves the watermark as it did the first time, and
 *       is otherwise skipped and counted ({@link #redeliveredRecords()}); a record behind the
 *       watermark is late ({@code stats().late()}); the rest go into their window. The {@link
 *       LateRecordHandler} sees both kinds of record that do not go into a window, before they
 *       change anything.
 *   <li>Every assigned partition that is paused (by the alignment or by the caller) gets a
 *       heartbeat: paused time never counts toward idleness or quiet (FLINK-35886).
 *   <li>Quiet-period advance: a partition ({@code PER_PARTITION}), or every partition of the
 *       instance ({@code MERGED}), without a record for {@code quietAdvanceAfter} since its last
 *       record or its assignment has its watermark advanced to the wall clock ({@link
 *       TumblingWindows#advanceTo}), which closes its last window at {@code end + allowedLateness};
 *       not when the watermark lags the wall clock by more than {@code quietAdvanceMaxLag} (a
 *       replay or a backfill; logged once at WARN).
 *   <li>Alignment, if {@code maxDrift} is set ({@code MERGED} only); see {@code docs/kafka.md}.
 *   <li>Each partition publishes its progress for other threads ({@link
 *       #processedLag(TopicPartition)}, {@link #resumeDistance(TopicPartition)}, the resume age);
 *       with a {@linkplain Builder#progressGroup progress group}, its positions are sent, at most
 *       once per interval, without waiting.
 *   <li>The {@linkplain #groupWatermark() group watermark} is read from the committed offsets, once
 *       per {@code groupWatermarkInterval}.
 * </ol>
 *
 * <h2>Commits and hand-over</h2>
 *
 * <p>{@link #committableOffsets()} gives, per assigned partition, the offset of its oldest record
 * in a window not yet returned by {@link #pollFinalized()} (or the next offset to read when there
 * is none), with a {@link Checkpoint} in the metadata: a time through which every window of the
 * partition has been returned (its watermark at the last {@code pollFinalized()}), its frontier and
 * watermark as of that offset, and how far this owner had read. Write the results of {@code
 * pollFinalized()}, then commit these offsets: the commit never passes a record whose window is not
 * written. Turn off {@code enable.auto.commit}. A checkpoint claims only what one owner's history
 * proves: until a new owner has read through the position its predecessor had read to, it commits
 * the predecessor's offset and checkpoint unchanged. The decisions taken from the wall clock
 * between the committed offset and that position (quiet-period advances, the future guard's
 * readings) ride in the checkpoint too, and the next owner replays them at the same records ({@code
 * PER_PARTITION}; semantics rule 61).
 *
 * <p>On revocation or loss the listener commits nothing and drops the partition's state ({@code
 * PER_PARTITION}: its open windows too). Its next owner, or this instance after a restart, starts
 * from the last commit: the listener reads the checkpoint on assignment (one {@code committed} call
 * per assignment), seeds the partition's watermark from it and skips the records of windows already
 * written as redelivered. So a plain {@code consumer.close()} after the loop is safe, and so is a
 * crash. A partition with unreadable metadata (another tool committed on the group) starts like one
 * without, logged once at WARN.
 *
 * <h2>Exceptions inside {@code onPoll}</h2>
 *
 * <p>A record is processed whole or not at all: its mapper, the late handler, then the windows. If
 * any of them throws, the exception propagates, the state stays consistent, and every partition of
 * the poll is rewound ({@code seek}) to its first record not processed, so the loop may carry on
 * (the next poll retries that record) or stop (the committed offsets never passed an unwritten
 * record). An event-time timer that throws after its record went into the windows counts that
 * record as processed.
 *
 * <h2>Example</h2>
 *
 * <pre>{@code
 * KafkaWindows<String, Long, Long> windows =
 *     KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
 *         .allowedLateness(Duration.ofMinutes(2))
 *         .consumer(consumer)
 *         .build();
 * consumer.subscribe(List.of("arrivals"), windows.rebalanceListener());
 * try {
 *   while (running) {
 *     windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
 *     try {
 *       for (WindowResult<String, Long> w : windows.pollFinalized()) {
 *         sink.upsert(w.start(), w.source(), w.key(), w.value());
 *       }
 *     } catch (SQLException e) { // the drained rows come again from the last commit
 *       windows.rewindToLastCommit(consumer.assignment());
 *       continue;
 *     }
 *     consumer.commitSync(windows.committableOffsets());
 *   }
 * } finally {
 *   consumer.close(); // safe: the next owner starts from the last commit
 * }
 * }</pre>
 *
 * @param <K> the window key type
 * @param <V> the value type folded by the aggregator
 * @param <R> the result type
 */
public final class KafkaWindows<K, V, R> {

  /** The default quiet period before the wall-clock advance: 90 seconds. */
  static final Duration DEFAULT_QUIET_ADVANCE_AFTER = Duration.ofSeconds(90);

  /** The default bound on the watermark lag under which the quiet-period advance happens: 1 h. */
  static final Duration DEFAULT_QUIET_ADVANCE_MAX_LAG = Duration.ofHours(1);

  /** The default interval between two reads of the group watermark: 10 seconds. */
  static final Duration DEFAULT_GROUP_WATERMARK_INTERVAL = Duration.ofSeconds(10);

  private final KafkaSettings<? super V, R> settings;
  private final CachedClock clock;

  /** When onPoll was last called, readable from any thread (a stall meter). */
  private final PollStamp pollStamp;

  private final Consumer<?, ?> consumer;

  /** The assigned partitions and the snapshot of them that other threads read. */
  private final PartitionTable<K, V, R> table = new PartitionTable<>();

  /** What the meters read, from any thread. */
  private final PartitionReadings readings = new PartitionReadings(table);

  /** What differs between the result scopes, chosen once. */
  private final WindowScope<K, V, R> scope;

  /** Assigns, finishes and drops partitions. */
  private final PartitionLifecycle<K, V, R> lifecycle;

  /** Decides each record: into the windows, late or redelivered. */
  private final RecordAdmission<K, V, R> admission;

  /** The alignment, or {@code null} without {@code maxDrift}. */
  private final Alignment alignment;

  /** The group watermark reader. */
  private final GroupWatermark groupWatermark;

  /** The progress group, or {@code null}. */
  private final ProgressGroup progress;

  /** Checks each partition's first records for records its reading lacks. */
  private final MissingRecords missing;

  /** The resume-distance limit. */
  private final ResumeLimit resumeLimit;

  /** Whether results are being handed out: see requireNotDraining. */
  private boolean draining;

  /** The rows of {@link #emit} waiting for a commit that succeeds. */
  private final TwoPhaseEmit<K, R> emits = new TwoPhaseEmit<>();

  /** Takes each poll's records partition by partition, then the poll's tick. */
  private final PollDriver<K, V, R> driver;

  private KafkaWindows(KafkaSettings<? super V, R> settings) {
    this.settings = settings;
    Clock live = settings.clock() != null ? settings.clock() : Clock.system();
    this.clock = new CachedClock(live);
    this.pollStamp = new PollStamp(live);
    this.consumer = settings.consumer();
    this.admission =
        new RecordAdmission<>(settings.lateRecordHandler(), settings.scope() == ResultScope.MERGED);
    long maxDriftMillis = settings.maxDriftMillis();
    this.alignment =
        maxDriftMillis != KafkaWindowsBuilder.NO_DRIFT
            ? new Alignment(consumer, maxDriftMillis)
            : null;
    this.scope = WindowScope.of(settings, clock, admission, alignment, clock.monotonicNanos());
    // maxDrift is MERGED only (checked by the builder): the scope's windows are the shared ones.
    if (alignment != null && maxDriftMillis < scope.windows().allowedLatenessMillis()) {
      throw new IllegalStateException(
          "maxDrift must be >= allowedLateness ("
              + Duration.ofMillis(scope.windows().allowedLatenessMillis())
              + "): "
              + Duration.ofMillis(maxDriftMillis));
    }
    this.groupWatermark = new GroupWatermark(consumer, settings.groupWatermarkIntervalNanos());
    this.progress =
        settings.progressGroup() == null ? null : new ProgressGroup(settings.progressGroup());
    this.missing = new MissingRecords(consumer, settings.missingRecordsPolicy());
    this.resumeLimit = new ResumeLimit(settings.resumeDistanceLimit());
    PollTick<K, V, R> tick =
        new PollTick<>(
            consumer,
            scope,
            groupWatermark,
            settings.quietAdvanceAfterNanos(),
            progress,
            missing,
            resumeLimit);
    this.lifecycle =
        new PartitionLifecycle<>(
            table, scope, new CheckpointReader(consumer), alignment, missing, consumer);
    this.driver =
        new PollDriver<>(clock, pollStamp, consumer, table, scope, lifecycle, admission, tick);
  }

  /**
   * Returns a builder for windows of the given size folded with the given aggregator.
   *
   * @param size the window size, at least one millisecond
   * @param aggregator folds the values of one key in one window
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code size} or {@code aggregator} is null
   * @throws IllegalArgumentException if {@code size} is shorter than one millisecond
   */
  public static <V, R> Builder<V, R> builder(
      Duration size, Aggregator<? super V, ?, R> aggregator) {
    TumblingWindows.builder(size, aggregator); // the core's rules for the size and the aggregator
    return new Builder<>(size, null, null, null, aggregator);
  }

  /**
   * Returns a builder for calendar windows: the days, weeks or months of a time zone ({@link
   * CalendarPeriod}; docs/semantics.md, rule 75), with every option of fixed-size tumbling windows,
   * in every result scope.
   *
   * @param period the calendar period, for example {@code CalendarPeriod.days(ZoneId.of(
   *     "Europe/Berlin"))}
   * @param aggregator folds the values of one key in one window
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   */
  public static <V, R> Builder<V, R> builder(
      CalendarPeriod period, Aggregator<? super V, ?, R> aggregator) {
    TumblingWindows.builder(period, aggregator); // the core's rules
    return new Builder<>(null, null, period, null, aggregator);
  }

  /**
   * Returns a builder for session windows of the given gap folded with the given aggregator: per
   * (partition, key) in {@link ResultScope#PER_PARTITION}, per key over the instance's partitions
   * in {@link ResultScope#MERGED}, a session is {@code [first, last + gap)} of events less than
   * {@code gap} apart ({@link SessionWindows}). The committed offset never passes the oldest record
   * of a session not yet returned; set {@link Builder#maxSessionSpan} when a key may never be
   * silent for a gap.
   *
   * @param gap the gap that ends a session, at least one millisecond
   * @param aggregator folds the values of one key, and {@linkplain Aggregator#merge merges} the
   *     sessions a record joins
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code gap} or {@code aggregator} is null
   * @throws IllegalArgumentException if {@code gap} is shorter than one millisecond
   */
  public static <V, R> Builder<V, R> sessions(
      Duration gap, Aggregator<? super V, ?, R> aggregator) {
    SessionWindows.builder(gap, aggregator); // the core's rules for the gap and the aggregator
    return new Builder<>(null, gap, null, null, aggregator);
  }

  /**
   * Returns a builder for sliding windows of the given time difference folded with the given
   * aggregator ({@link SlidingWindows}; docs/semantics.md, rules 77 to 79): per (partition, key),
   * the windows that end at each record and that start just after it, Kafka Streams' {@code
   * SlidingWindows}. The committed offset never passes a record whose windows, the one that starts
   * just after it included, are not all returned (with a grace period: retired). Every result
   * scope; early results and a grace period in {@code PER_PARTITION} and {@code MERGED}.
   *
   * @param timeDifference the largest difference between two records' times in one window, at least
   *     0
   * @param aggregator folds the values of one key in one window; it need not merge
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code timeDifference} is negative
   */
  public static <V, R> Builder<V, R> sliding(
      Duration timeDifference, Aggregator<? super V, ?, R> aggregator) {
    SlidingWindows.builder(timeDifference, aggregator); // the core's rules
    return new Builder<>(null, null, null, timeDifference, aggregator);
  }

  /**
   * Returns a rebalance listener to pass to {@code consumer.subscribe}: on assignment it reads the
   * partitions' checkpoints and registers them (an assigned partition that has not delivered yet
   * holds the watermark); on revocation and loss it drops their state at once and commits nothing.
   *
   * @return the listener
   */
  public ConsumerRebalanceListener rebalanceListener() {
    return new ChainedRebalanceListener(this::assign, this::forget, null);
  }

  /**
   * Returns a rebalance listener that does what {@link #rebalanceListener()} does and calls {@code
   * delegate} too: after registering on assignment, before dropping on revocation and loss (so that
   * the delegate still sees the partitions' state). An exception from the delegate propagates; on
   * revocation and loss the partitions are dropped all the same.
   *
   * @param delegate the listener the application already has
   * @return the listener
   * @throws NullPointerException if {@code delegate} is null
   */
  public ConsumerRebalanceListener rebalanceListener(ConsumerRebalanceListener delegate) {
    return new ChainedRebalanceListener(
        this::assign, this::forget, Objects.requireNonNull(delegate, "delegate"));
  }

  /**
   * Feeds a poll's records with the record timestamp as event time; see {@link #onPoll(
   * ConsumerRecords, RecordMapper)}.
   *
   * @param records the records returned by {@code poll}, possibly none
   * @param key the window key of a record; {@code null} skips the record
   * @param value the value of a record; {@code null} skips the record
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @throws NullPointerException if an argument is null
   */
  public <KR, VR> void onPoll(
      ConsumerRecords<KR, VR> records,
      Function<? super ConsumerRecord<KR, VR>, ? extends K> key,
      Function<? super ConsumerRecord<KR, VR>, ? extends V> value) {
    onPoll(records, ConsumerRecord::timestamp, key, value);
  }

  /**
   * Feeds a poll's records with three extractors; see {@link #onPoll(ConsumerRecords,
   * RecordMapper)}. The event time is extracted only for a record with a key and a value.
   *
   * @param records the records returned by {@code poll}, possibly none
   * @param eventTime the event time of a record in epoch milliseconds
   * @param key the window key of a record; {@code null} skips the record
   * @param value the value of a record; {@code null} skips the record
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @throws NullPointerException if an argument is null
   */
  public <KR, VR> void onPoll(
      ConsumerRecords<KR, VR> records,
      ToLongFunction<? super ConsumerRecord<KR, VR>> eventTime,
      Function<? super ConsumerRecord<KR, VR>, ? extends K> key,
      Function<? super ConsumerRecord<KR, VR>, ? extends V> value) {
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    onPoll(
        records,
        (ConsumerRecord<KR, VR> r, RecordMapper.Output<K, V> out) -> {
          K k = key.apply(r);
          V v = k == null ? null : value.apply(r);
          if (v != null) {
            out.emit(eventTime.applyAsLong(r), k, v);
          }
        });
  }

  /**
   * Feeds a poll's records, each mapped once to (event time, key, value), and does the per-poll
   * work described in the class comment. Call it after every {@code poll}, including empty ones.
   *
   * <p>If the mapper, the late handler, the aggregator or a timer throws, the exception propagates
   * with the state consistent, and every partition of the poll is rewound to its first record not
   * processed; see the class comment.
   *
   * @param records the records returned by {@code poll}, possibly none
   * @param mapper maps a record to its event time, key and value
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @throws NullPointerException if an argument is null
   */
  public <KR, VR> void onPoll(ConsumerRecords<KR, VR> records, RecordMapper<KR, VR, K, V> mapper) {
    requireNotDraining("onPoll");
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(mapper, "mapper");
    driver.onPoll(records, mapper);
  }

  /**
   * Returns the results of the windows finalized since the last call, each window exactly once.
   * {@code PER_PARTITION}: a result per (window, partition, key), {@link WindowResult#source()} the
   * partition, partition by partition in assignment order and in end order within a partition.
   * {@code MERGED}: see {@link TumblingWindows#pollFinalized()}. Write them before committing
   * {@link #committableOffsets()}. If the aggregator's {@code result} throws, the exception
   * propagates, nothing counts as returned (the commit does not move), and the next call returns
   * every result, those computed before the exception included.
   *
   * @return the new results
   */
  public List<WindowResult<K, R>> pollFinalized() {
    requireNotDraining("pollFinalized");
    draining = true;
    try {
      return scope.take(table.states());
    } finally {
      draining = false;
    }
  }

  /**
   * Hands the results of the windows finalized since the last call to {@code visitor}, each window
   * exactly once: the results of {@link #pollFinalized()}, in the same order, without allocating (a
   * primitive {@code long} through {@link PartitionResultVisitor#visitLong} with the built-in
   * aggregators). Write them before committing {@link #committableOffsets()}.
   *
   * <p>If the visitor or the aggregator's {@code result} throws, the exception propagates. The
   * partitions drained before keep their progress; the partition being drained hands the window it
   * was visiting again, from its first result, at the next call, and its commit does not move until
   * a call completes: a restart re-reads and recomputes its windows visited so far, with the same
   * values. An idempotent sink (an upsert on window, partition and key) can simply call again.
   *
   * @param visitor receives each result, on this thread, before this method returns
   * @return the number of results visited
   * @throws NullPointerException if {@code visitor} is null
   */
  public int drainFinalized(PartitionResultVisitor<? super K, ? super R> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    requireNotDraining("drainFinalized");
    draining = true;
    try {
      return scope.drain(table.states(), visitor);
    } finally {
      draining = false;
    }
  }

  /**
   * Refuses a call made from the visitor of {@link #drainFinalized} or an aggregator's {@code
   * result} while results are handed out: it would change the windows being drained. Nothing has
   * changed when it throws, and the drain treats the exception as the visitor's own.
   */
  private void requireNotDraining(String call) {
    if (draining) {
      throw new IllegalStateException(
          call
              + " called from a result visitor or an aggregator's result() while the windows are"
              + " drained: return from the visitor, then call it");
    }
  }

  /**
   * Returns the offsets that are safe to commit once the results of {@link #pollFinalized()} have
   * been written: per assigned partition that has delivered, the offset of its oldest record in a
   * window not returned yet, or the next offset to read when it has none, each with the partition's
   * {@link Checkpoint} as metadata. Allocates the map.
   *
   * @return partition to offset and metadata, for {@code consumer.commitSync}
   */
  public Map<TopicPartition, OffsetAndMetadata> committableOffsets() {
    requireNotDraining("committableOffsets");
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (PartitionState<K, V, R> p : table.states()) {
      if (p.nextOffset >= 0) {
        OffsetAndMetadata committable = p.committable();
        if (committable != null) { // null: nothing it may claim yet (see PartitionState)
          offsets.put(p.partition, committable);
        }
      }
    }
    return offsets;
  }

  /**
   * Hands the rows finalized since the last call to {@code sink} in two phases (issue 19): {@link
   * ResultSink#write} with the rows, then {@link ResultSink#commit} with {@link
   * #committableOffsets()}. The rows count as returned only once the commit has returned: if either
   * phase throws, the next call writes the same rows again, then the new ones, then commits. Rows
   * of a partition revoked in between are dropped (its next owner writes them from the last
   * commit). Use it instead of {@link #pollFinalized()} and your own commit, not beside them.
   *
   * @param sink writes idempotently, then commits
   * @return the number of rows written, those of a previous failed call included
   * @throws NullPointerException if {@code sink} is null
   * @throws SinkException if the sink's write or commit threw (its cause); call again
   */
  public int emit(ResultSink<? super K, ? super R> sink) {
    Objects.requireNonNull(sink, "sink");
    List<WindowResult<K, R>> fresh = pollFinalized();
    return emits.run(sink, fresh, this::committableOffsets);
  }

  /**
   * Returns whether the row of a window is complete ({@link WindowResult#isComplete()}, semantics
   * rule 64), for a {@link PartitionResultVisitor} of {@link #drainFinalized}, which gets no {@code
   * WindowResult}: ask it from the visitor, for the row being visited. False when the reading of
   * the partition ({@code MERGED}: of any partition that fed the windows) may lack records of that
   * window; see {@link Builder#missingRecordsPolicy}. Polling thread; no allocation.
   *
   * @param partition the row's partition ({@code PER_PARTITION}); ignored in {@code MERGED}, where
   *     it is {@code null}
   * @param windowStartMillis the row's window start
   * @return whether the row holds every record one uninterrupted reading would have put in it
   * @throws IllegalArgumentException in {@code PER_PARTITION}, if the partition is not assigned
   * @throws NullPointerException in {@code PER_PARTITION}, if {@code partition} is null
   */
  public boolean isComplete(TopicPartition partition, long windowStartMillis) {
    if (settings.scope() != ResultScope.MERGED) {
      Objects.requireNonNull(partition, "partition");
    }
    return scope.isComplete(table, partition, windowStartMillis);
  }

  /**
   * Returns how many partitions are held ({@link ResultScope#CO_PARTITIONED}, semantics rule 73):
   * assigned here without the rest of their task, so paused, nothing of them computed or committed:
   * {@code lowwater.partitions.held}. Always 0 in the other scopes. Any thread.
   *
   * @return the held partitions
   */
  public int heldPartitionCount() {
    return scope.heldPartitions();
  }

  /**
   * Returns how many assigned partitions had a resume distance over the {@link
   * Builder#resumeDistanceLimit} at the end of the last {@link #onPoll}: {@code
   * lowwater.partitions.over.resume.limit}. 0 without a limit. Any thread.
   *
   * @return the partitions over the limit
   */
  public int partitionsOverResumeLimit() {
    return resumeLimit.over();
  }

  /**
   * Returns how many rows were handed out marked incomplete ({@link WindowResult#isComplete()}
   * false), by {@link #pollFinalized}, {@link #drainFinalized} and {@link #emit}: {@code
   * lowwater.rows.incomplete}. Any thread.
   *
   * @return the count since the windows were built
   */
  public long incompleteRows() {
    return scope.incompleteRows();
  }

  /**
   * Returns how many times a partition's reading was found to lack records that one uninterrupted
   * reading would have had (semantics rule 65), each logged at WARN: {@code
   * lowwater.missing.records.events}. Under {@link MissingRecordsPolicy#FAIL}, once per partition
   * until it reads on. Any thread.
   *
   * @return the count since the windows were built
   */
  public long missingRecordsEvents() {
    return missing.events();
  }

  /**
   * Puts partitions back to their last commit, as their next owner would start, for a loop whose
   * sink failed after a drain ({@code PER_PARTITION}): their windows, and the results not yet
   * returned, are dropped; their committed offsets and checkpoints are read again ({@code
   * consumer.committed}); and the consumer is sought to each committed offset (without a commit, to
   * the first offset this instance had read). The next polls deliver the records again, and the
   * windows give the same rows from them, with the same panes, as after a hand-over: an idempotent
   * sink (an upsert on window, partition and key; with panes, on condition of the index) ends with
   * exactly the rows it would have had. Without this, the rows drained before a failed write are
   * gone for this instance, and its next commit moves past them.
   *
   * <p>Partitions not assigned to this instance are ignored. Counters ({@link #stats()}) keep what
   * the dropped windows had counted, so the records read again are counted again. The commits are
   * read before anything is dropped: if the read throws, the exception propagates and nothing has
   * changed (the partitions keep their windows and the consumer its position); call again before
   * committing, as the rows drained since the last commit are still unwritten.
   *
   * @param partitions the partitions whose rows were not written, usually {@code
   *     consumer.assignment()}
   * @throws NullPointerException if {@code partitions} is null
   * @throws IllegalStateException in {@code MERGED}, whose windows hold every partition's records:
   *     close the consumer and start again from the last commit, with {@link #seedWatermark}
   */
  public void rewindToLastCommit(Collection<TopicPartition> partitions) {
    Objects.requireNonNull(partitions, "partitions");
    requireNotDraining("rewindToLastCommit");
    if (settings.scope() == ResultScope.MERGED) {
      throw new IllegalStateException(
          "rewindToLastCommit is for resultScope(PER_PARTITION): MERGED windows hold every"
              + " partition's records; close the consumer and start again from the last commit,"
              + " with seedWatermark");
    }
    clock.update();
    Collection<TopicPartition> rewound = scope.rewindSet(partitions); // CO_PARTITIONED: whole tasks
    Map<TopicPartition, Long> resume = lifecycle.rewind(rewound, clock.monotonicNanos());
    scope.orphaned(resume.keySet()); // the tasks torn down are built again from the commits
    lifecycle.settleTasks(clock.monotonicNanos());
    emits.revoked(resume.keySet()); // computed again from the commit
    resume.forEach(
        (tp, offset) -> {
          if (offset >= 0) {
            consumer.seek(tp, offset);
          }
        });
  }

  /**
   * {@code MERGED} only: seeds the watermark at start-up from the sink: pass the end of the newest
   * window already written, so that records of written windows are late and no written window is
   * overwritten with a partial one. Clamped to {@code clock.wallMillis() - allowedLateness}; see
   * {@link TumblingWindows#seedWatermark(long)}. Windows the seed closes are returned by the next
   * {@link #pollFinalized()} like any other, and committed only after it. ({@code PER_PARTITION}
   * seeds each partition from its checkpoint instead, with no sink query.)
   *
   * <p>An empty sink has nothing to protect: skip the call, or pass {@link
   * WatermarkTracker#NO_WATERMARK}, which changes nothing.
   *
   * @param newestWrittenWindowEndMillis the end of the newest written window, epoch milliseconds
   * @return the watermark after seeding
   * @throws IllegalStateException in {@code PER_PARTITION}
   */
  public long seedWatermark(long newestWrittenWindowEndMillis) {
    requireNotDraining("seedWatermark");
    clock.update();
    return scope.seedWatermark(newestWrittenWindowEndMillis);
  }

  /**
   * The end of the input, for a bounded replay read to its end: closes every open window, however
   * large the allowed lateness, so that the next {@link #pollFinalized()} returns them; every later
   * record is late. The checkpoints committed afterwards claim no window newer than the newest one
   * that held records. Not for leaving a group: to hand partitions over, simply close the consumer.
   */
  public void finishAll() {
    requireNotDraining("finishAll");
    clock.update();
    lifecycle.finishAll();
  }

  /**
   * {@code MERGED} only: returns the windows this driver feeds, for the calls it does not wrap.
   *
   * @return the windows
   * @throws IllegalStateException in {@code PER_PARTITION}, where each partition has its own
   */
  public EventTimeWindows<K, V, R> windows() {
    return scope.windows();
  }

  /**
   * Returns the result scope.
   *
   * @return {@code PER_PARTITION} or {@code MERGED}
   */
  public ResultScope resultScope() {
    return settings.scope();
  }

  /**
   * Returns the assigned partitions, for a metrics reporter: a snapshot taken at the last
   * assignment change. Any thread; no allocation.
   *
   * @return an unmodifiable set
   */
  public Set<TopicPartition> partitions() {
    return table.view().partitions().keySet();
  }

  /**
   * Returns the frontier of an assigned partition, the largest event time seen on it (by this owner
   * or, through its checkpoint, by the previous ones), as of the end of the last {@link #onPoll}.
   * Any thread.
   *
   * @param partition the partition
   * @return the frontier in epoch milliseconds, or {@link WatermarkTracker#UNSEEN} if the partition
   *     is not assigned or has not delivered
   * @throws NullPointerException if {@code partition} is null
   */
  public long frontier(TopicPartition partition) {
    return readings.frontier(partition);
  }

  /**
   * Session windows: returns the start of the oldest session of an assigned partition not yet
   * returned (open, or finalized and waiting for a drain), as of the last time the partition's
   * committed offset was recomputed: the record the commit waits for is at or after it. Any thread.
   *
   * @param partition the partition
   * @return that start in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK} when no
   *     session is pending, the partition is not assigned, or the windows are not sessions
   * @throws NullPointerException if {@code partition} is null
   */
  public long oldestSessionStart(TopicPartition partition) {
    return readings.oldestSessionStart(partition);
  }

  /**
   * Returns how many records of an assigned partition the consumer has not delivered yet: the log
   * end (the last stable offset under {@code read_committed}) minus the consumer's position, as the
   * consumer knew it at the end of the last {@link #onPoll} ({@code Consumer.currentLag}, no remote
   * call). It is the lag a monitor would show if the committed offset followed what is processed;
   * the committed offset trails by the {@linkplain #resumeDistance(TopicPartition) resume distance}
   * (docs/operations.md). Any thread.
   *
   * @param partition the partition
   * @return the lag in records, or -1 if it is not known (not assigned, or not fetched yet)
   * @throws NullPointerException if {@code partition} is null
   */
  public long processedLag(TopicPartition partition) {
    return readings.processedLag(partition);
  }

  /**
   * Returns how many records a new owner of an assigned partition would read again: from the offset
   * {@link #committableOffsets()} would give (the oldest record of a window not returned yet) to
   * the read position, as of the end of the last {@link #onPoll}. It grows with the window size,
   * the allowed lateness, the grace period and sessions that have not ended. Any thread.
   *
   * @param partition the partition
   * @return the distance in records, 0 when no record is held, or -1 if it is not known (not
   *     assigned, or no record read yet)
   * @throws NullPointerException if {@code partition} is null
   */
  public long resumeDistance(TopicPartition partition) {
    return readings.resumeDistance(partition);
  }

  /**
   * Returns how long ago, in wall-clock time, this instance read the record a new owner of an
   * assigned partition would resume from (the record at the offset {@link #committableOffsets()}
   * would give), as of the end of the last {@link #onPoll}. Any thread.
   *
   * @param partition the partition
   * @param nowMillis the wall clock, epoch milliseconds (the clock given to the builder)
   * @return the age in milliseconds, 0 when no record is held, or -1 if it is not known (not
   *     assigned, no record read yet, or a new owner that has not read its predecessor's records)
   * @throws NullPointerException if {@code partition} is null
   */
  public long resumeAgeMillis(TopicPartition partition, long nowMillis) {
    return readings.resumeAgeMillis(partition, nowMillis);
  }

  /**
   * Returns how old, in event time, the record a new owner of an assigned partition would resume
   * from is: the partition's frontier minus that record's event time, as of the end of the last
   * {@link #onPoll}. Any thread.
   *
   * @param partition the partition
   * @return the age in milliseconds, 0 when no record is held, or -1 if it is not known
   * @throws NullPointerException if {@code partition} is null
   */
  public long resumeEventAgeMillis(TopicPartition partition) {
    return readings.resumeEventAgeMillis(partition);
  }

  /**
   * Returns the time since the polling loop last called {@code onPoll}, on the monotonic clock
   * given to the builder, read now. Every other progress reading is as of the last {@code onPoll}
   * and stands still when the loop stops calling it while the consumer stays in the group (a
   * blocked sink, a hung commit): this one grows, so that such a stall is visible
   * (docs/operations.md, "A stalled loop"). Any thread; one clock read.
   *
   * @return milliseconds since the start of the last {@code onPoll}, or -1 before the first
   */
  public long millisSinceLastPoll() {
    return pollStamp.millisSinceLast();
  }

  /**
   * Returns how many calls committed the processed positions to the {@linkplain
   * Builder#progressGroup progress group}. Any thread.
   *
   * @return the number of calls that succeeded, 0 without a progress group
   */
  public long progressCommits() {
    return progress == null ? 0 : progress.commits();
  }

  /**
   * Returns how many calls to the {@linkplain Builder#progressGroup progress group} failed (each is
   * tried again at the next interval). Any thread.
   *
   * @return the number of calls that failed, 0 without a progress group
   */
  public long progressFailures() {
    return progress == null ? 0 : progress.failures();
  }

  /**
   * Returns the largest {@link #processedLag(TopicPartition)} over the assigned partitions; any
   * thread.
   *
   * @return records, or -1 when no partition's lag is known
   */
  public long maxProcessedLag() {
    return readings.maxProcessedLag();
  }

  /**
   * Returns the largest {@link #resumeDistance(TopicPartition)} over the assigned partitions; any
   * thread.
   *
   * @return records, or -1 when no partition's distance is known
   */
  public long maxResumeDistance() {
    return readings.maxResumeDistance();
  }

  /**
   * Returns the largest {@link #resumeAgeMillis(TopicPartition, long)} over the assigned
   * partitions; any thread.
   *
   * @param nowMillis the wall clock, epoch milliseconds
   * @return milliseconds, or -1 when no partition's age is known
   */
  public long maxResumeAgeMillis(long nowMillis) {
    return readings.maxResumeAgeMillis(nowMillis);
  }

  /**
   * Returns whether these are session windows ({@link #sessions}).
   *
   * @return {@code true} for session windows
   */
  public boolean sessionWindows() {
    return settings.gap() != null;
  }

  /**
   * Returns the watermark of an assigned partition: its own in {@code PER_PARTITION}, the
   * instance's in {@code MERGED}. Any thread.
   *
   * @param partition the partition
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   * @throws NullPointerException if {@code partition} is null
   */
  public long watermark(TopicPartition partition) {
    return readings.watermark(partition);
  }

  /**
   * Returns the instance's watermark: in {@code MERGED} the windows' watermark; in {@code
   * PER_PARTITION} the minimum of the assigned partitions' own watermarks ({@link
   * WatermarkTracker#NO_WATERMARK} while one has none, or none is assigned). Any thread.
   *
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public long watermark() {
    return scope.watermark(table.view());
  }

  /**
   * Returns the consumer group's watermark, as read from the group's committed offsets at most once
   * per {@code groupWatermarkInterval}: the minimum, over every partition of the subscribed topics,
   * of the written-through time {@code e} of its committed checkpoint. Every window ending at or
   * before it is complete: written for every partition by whichever instance owned it. It lags what
   * is written by up to one commit and one interval; see {@code docs/kafka.md}. {@link
   * WatermarkTracker#NO_WATERMARK} while a partition has never committed a checkpoint, before the
   * first read. Any thread.
   *
   * @return the group watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public long groupWatermark() {
    return groupWatermark.value();
  }

  /**
   * Returns a snapshot of the counters; any thread. In {@code PER_PARTITION} the sums over the
   * partitions' windows, those of partitions already handed over included (their open windows
   * excepted), and the instance's {@link #watermark()}.
   *
   * @return the counters
   */
  public WindowStats stats() {
    return scope.stats(table.view());
  }

  /**
   * Returns the partitions this driver considers assigned. Polling thread only.
   *
   * @return an unmodifiable copy, in assignment order
   */
  public Set<TopicPartition> assignedPartitions() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(table.byPartition().keySet()));
  }

  /**
   * Returns the partitions currently paused by the alignment (not those the caller paused). Polling
   * thread only.
   *
   * @return an unmodifiable copy, in the order they were paused
   */
  public Set<TopicPartition> pausedPartitions() {
    return alignment == null
        ? Set.of()
        : Collections.unmodifiableSet(new LinkedHashSet<>(alignment.paused()));
  }

  /**
   * Returns how many assigned partitions are active: have delivered a record or been assigned
   * within the idle timeout, as of their last re-evaluation, at the latest the end of the last
   * {@link #onPoll}. Any thread; no allocation.
   *
   * @return the number of active partitions, at most {@code partitions().size()}
   */
  public int activePartitionCount() {
    return scope.activePartitionCount(table.view());
  }

  /**
   * Returns how many assigned partitions are idle: assigned, but not {@linkplain
   * #activePartitionCount() active}: silent for longer than the idle timeout since their last
   * record or their assignment. Any thread; no allocation.
   *
   * @return the number of idle partitions
   */
  public int idlePartitionCount() {
    return Math.max(0, table.view().partitions().size() - activePartitionCount());
  }

  /**
   * Returns how many partitions the alignment holds paused now (not those the caller paused): the
   * size of {@link #pausedPartitions()}, readable from any thread; 0 without {@code maxDrift}.
   *
   * @return the number of partitions paused by the alignment
   */
  public int pausedPartitionCount() {
    return alignment == null ? 0 : alignment.pausedCount();
  }

  /**
   * Returns how many times the alignment paused a partition. Any thread.
   *
   * @return the number of pauses
   */
  public long pauses() {
    return alignment == null ? 0 : alignment.pauses();
  }

  /**
   * Returns how many times the alignment resumed a partition. Any thread.
   *
   * @return the number of resumes
   */
  public long resumes() {
    return alignment == null ? 0 : alignment.resumes();
  }

  /**
   * Returns how many times a quiet-period advance moved a watermark (a partition's, or the
   * instance's in {@code MERGED}). Any thread.
   *
   * @return the number of quiet-period advances
   */
  public long quietAdvances() {
    return scope.quietAdvances();
  }

  /**
   * Returns how many records were skipped because the mapper gave no key or value: counted, never
   * silently dropped. Their partition still counted as active. Any thread.
   *
   * @return the number of skipped records
   */
  public long skippedRecords() {
    return admission.skippedRecords;
  }

  /**
   * Returns how many records were skipped as redelivered: their window had already been written for
   * their partition (by a previous owner, as its checkpoint says) and that owner had read them. Not
   * late: an alert on late records does not fire at every deploy. Any thread.
   *
   * @return the number of redelivered records
   */
  public long redeliveredRecords() {
    return admission.redeliveredRecords;
  }

  @Override
  public String toString() {
    return "KafkaWindows{scope="
        + settings.scope()
        + ", assigned="
        + table.size()
        + ", redelivered="
        + admission.redeliveredRecords
        + ", "
        + stats()
        + "}";
  }

  /**
   * From now on, the rows that a partition's records below its predecessor's read position (the
   * checkpoint's {@code n}) produce are dropped, not handed out ({@code PER_PARTITION}; semantics
   * rule 59): the predecessor handed out every one of them before the commit that carried {@code
   * n}. For a sink whose commit makes the rows and the offsets visible together (a transaction),
   * where writing them again would show them twice; an upsert sink does not need it. Rows that
   * wall-clock rules produce (a quiet-period advance) are not dropped.
   */
  void dropRowsOfReplayedRecords() {
    // Without panes a re-read gives no row twice already: nothing to toggle per record.
    driver.dropReplayedRows = settings.scope() == ResultScope.PER_PARTITION && paned();
  }

  /** The consumer the loop polls: for a sink that commits through it or fences with it. */
  Consumer<?, ?> consumer() {
    return consumer;
  }

  /**
   * Whether a row is identified by (start, partition, key) alone, its end growing from pane to
   * pane: session windows with early results or a grace period (semantics rule 56). Every other row
   * is identified with its end too.
   */
  boolean rowsIdentifiedByStart() {
    return settings.gap() != null && paned();
  }

  /** Whether the windows have early results or a grace period; builds a set to ask (sinks only). */
  private boolean paned() {
    EventTimeWindows<?, ?, ?> probe = settings.newWindows(clock);
    return probe.graceMillis() > 0 || probe.earlyResultsMillis() > 0;
  }

  // ---------------------------------------------------------------------------------------------

  /** The rebalance listener's assignment. */
  private void assign(Collection<TopicPartition> partitions) {
    requireNotDraining("the rebalance listener");
    clock.update();
    lifecycle.assign(partitions, clock.monotonicNanos());
    lifecycle.settleTasks(clock.monotonicNanos());
  }

  /** The rebalance listener's revocation and loss. */
  private void forget(Collection<TopicPartition> partitions) {
    requireNotDraining("the rebalance listener");
    clock.update();
    lifecycle.forget(partitions);
    emits.revoked(partitions); // never written by this instance after their revocation
    dropOrphans(partitions);
    lifecycle.settleTasks(clock.monotonicNanos());
  }

  /**
   * {@code CO_PARTITIONED}: drops the state of the partitions whose task went with {@code gone}
   * (their rows and uncommitted progress too): they wait, held, to be read again from their commits
   * once their task is whole here again.
   */
  private void dropOrphans(Collection<TopicPartition> gone) {
    List<TopicPartition> orphans = scope.orphaned(gone);
    if (!orphans.isEmpty()) {
      lifecycle.forget(orphans);
      emits.revoked(orphans);
    }
  }

  /**
   * Configures {@link KafkaWindows}. Every option is optional, except the {@link #consumer
   * consumer}, and may be set at most once: setting one twice throws {@link IllegalStateException}.
   * A rejected call leaves the builder unchanged. Not thread-safe.
   *
   * <p>The event-time options are those of every window kind ({@link EventTimeOptions}) and apply
   * to each partition's windows ({@code PER_PARTITION}) or to the shared ones ({@code MERGED}): the
   * allowed lateness, the idle timeout of a partition, the clock (read once per poll through a
   * {@link CachedClock}), the watermark strategy (with {@link WatermarkStrategy#PUNCTUATED}, only
   * marker records move the watermark: the mapper declares them with {@link
   * RecordMapper.Output#punctuate}), and the future-timestamp guard: with {@link
   * #maxFutureSkew(Duration)}, a record more than that ahead of the wall clock does not move its
   * partition's frontier (one device with a fast clock cannot make the in-order records after it
   * late), is counted ({@code lowwater.events.future}), and goes to the late path ({@link
   * #futureEventPolicy(FutureEventPolicy) LATE}, the only policy here).
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> extends KafkaWindowsBuilder<V, R> {

    /**
     * Exactly one of {@code size}, {@code gap}, {@code period} and {@code timeDifference} is set,
     * checked by the core.
     */
    private Builder(
        Duration size,
        Duration gap,
        CalendarPeriod period,
        Duration timeDifference,
        Aggregator<? super V, ?, R> aggregator) {
      super(size, gap, period, timeDifference, aggregator);
    }

    /**
     * Builds the driver, with no partition assigned and no watermark. The options are copied: a
     * change to this builder afterwards changes nothing in the driver.
     *
     * @param <K> the window key type
     * @param <W> the value type: the builder's, or a subtype (a {@code count()} counts any values);
     *     both are inferred from the assignment, {@code count()} included
     * @return a new driver
     * @throws IllegalStateException if the {@link #consumer consumer} is not set, or {@code
     *     maxDrift} is set with {@link ResultScope#PER_PARTITION} or shorter than the allowed
     *     lateness
     * @throws IllegalArgumentException if the windows are {@link #hopping hopping} or {@link
     *     KafkaWindows#sessions sessions} and the aggregator does not implement {@link
     *     Aggregator#merge}
     */
    public <K, W extends V> KafkaWindows<K, W, R> build() {
      return new KafkaWindows<K, W, R>(settings()); // checks maxDrift against the allowed lateness
    }
  }
}
