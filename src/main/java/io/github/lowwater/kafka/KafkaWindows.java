package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.LateEventHandler;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tumbling event-time windows driven from a plain Kafka consumer loop: the assigned partitions are
 * the sources of the watermark, rebalances register and remove them, a poll's records go in with
 * one clock read per poll, and the offsets to commit are those of the records whose windows have
 * been written.
 *
 * <p><b>Not thread-safe; confine every call to the polling thread</b>, the thread that owns the
 * {@link Consumer} (the rebalance listener is called there too, from inside {@code poll}). {@link
 * #watermark()} and {@link #stats()} may be read from any thread. {@link #onPoll} costs what {@link
 * TumblingWindows#add} costs per record plus, per poll, one clock read and O(assigned partitions)
 * for the paused-partition heartbeats, the alignment check and the idleness refresh; it allocates
 * per record only what the extractors allocate. No threads are started.
 *
 * <h2>What a poll does</h2>
 *
 * <ol>
 *   <li>The clock is read once ({@link CachedClock}); every record of the poll arrives at that
 *       instant.
 *   <li>Each record goes to {@link TumblingWindows#add} with its partition as the source, its event
 *       time from the record timestamp (or the extractor given), its key and value from the
 *       extractors. A {@code null} key or value skips the record (counted in {@link
 *       #skippedRecords()}); the partition still counts as active.
 *   <li>Every assigned partition that is paused ({@link Consumer#paused()}, by the alignment or by
 *       the caller) gets a {@link TumblingWindows#heartbeat heartbeat}: time spent paused never
 *       counts toward idleness (FLINK-35886).
 *   <li>The watermark is refreshed (idleness is re-evaluated even when the poll was empty).
 *   <li>Quiet-period advance: when no assigned partition has delivered a record for {@code
 *       quietAdvanceAfter} and none is paused by the alignment, the watermark advances to the wall
 *       clock ({@link TumblingWindows#advanceTo}) so that the last window closes, not before its
 *       {@code end + allowedLateness}. Not when the watermark lags the wall clock by more than
 *       {@code quietAdvanceMaxLag} (a replay or a backfill of old data, which the advance would
 *       make late as a whole): then it is skipped, and logged once at WARN.
 *   <li>Alignment, if {@code maxDrift} is set: an assigned partition whose frontier is more than
 *       {@code maxDrift} ahead of the watermark is paused with {@link Consumer#pause}, and resumed
 *       once it is back within it. {@code maxDrift >= allowedLateness} is required, so the slowest
 *       active partition (whose frontier is at most {@code allowedLateness} ahead of the watermark)
 *       is never paused and the watermark always progresses: either the slowest partition delivers
 *       or it goes idle and leaves the minimum. A paused partition is therefore never left paused
 *       because the others look idle (FLINK-40093). While an assigned partition has not delivered
 *       yet (no watermark), the others are aligned on the watermark they would make without it.
 * </ol>
 *
 * <h2>Commits: at least once, never counted twice</h2>
 *
 * <p>{@link #committableOffsets()} gives, per assigned partition, the offset of the oldest record
 * that sits in a window not yet returned by {@link #pollFinalized()} (or the next offset to read
 * when there is none). Write the results of {@code pollFinalized()} first, then commit these
 * offsets. After a crash the consumer re-reads only records of unwritten windows, or records of
 * written windows that the {@linkplain #seedWatermark seed} makes late. When partitions are revoked
 * from a running consumer, their records already in open windows stay there and are emitted with
 * them, so the {@linkplain #rebalanceListener() listener} commits the consumed positions of the
 * revoked partitions, if the {@linkplain Builder#consumer consumer} was given (the new owner must
 * not count them again); see {@code docs/kafka.md}.
 *
 * <h2>Example</h2>
 *
 * <pre>{@code
 * KafkaWindows<String, Long, Long> windows =
 *     KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
 *         .allowedLateness(Duration.ofMinutes(2))
 *         .consumer(consumer)
 *         .maxDrift(Duration.ofMinutes(10))
 *         .build();
 * consumer.subscribe(List.of("arrivals"), windows.rebalanceListener());
 * windows.seedWatermark(sink.newestWindowEndMillis());
 * while (running) {
 *   windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
 *   for (WindowResult<String, Long> w : windows.pollFinalized()) {
 *     sink.write(w);
 *   }
 *   consumer.commitSync(windows.committableOffsets());
 * }
 * }</pre>
 *
 * @param <K> the window key type
 * @param <V> the value type folded by the aggregator
 * @param <R> the result type
 */
public final class KafkaWindows<K, V, R> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /** The default quiet period before the wall-clock advance: 90 seconds. */
  static final Duration DEFAULT_QUIET_ADVANCE_AFTER = Duration.ofSeconds(90);

  /** The default bound on the watermark lag under which the quiet-period advance happens: 1 h. */
  static final Duration DEFAULT_QUIET_ADVANCE_MAX_LAG = Duration.ofHours(1);

  /** The default allowed lateness, as in the core: 120 seconds. */
  static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofSeconds(120);

  /** No alignment. */
  private static final long NO_DRIFT = Long.MAX_VALUE;

  private final TumblingWindows<K, V, R> windows;
  private final CachedClock clock;
  private final Consumer<?, ?> consumer;
  private final long maxDriftMillis;
  private final long allowedLatenessMillis;
  private final long quietAdvanceAfterNanos;
  private final long quietAdvanceMaxLagMillis;

  /** Assigned partitions and their commit state, in assignment order. */
  private final Map<TopicPartition, PartitionState> assigned = new HashMap<>();

  /** Partitions paused by the alignment (not those the caller paused). */
  private final Set<TopicPartition> pausedByAlignment = new LinkedHashSet<>();

  /**
   * The watermark as of the last {@link #pollFinalized()}: windows ending at or before it are out.
   */
  private long returnedThroughMillis = WatermarkTracker.NO_WATERMARK;

  private long lastRecordNanos;
  private boolean lagWarningLogged;
  private long pauses;
  private long resumes;
  private long quietAdvances;
  private long skippedRecords;

  private KafkaWindows(Builder<V, R> builder) {
    this.clock = new CachedClock(builder.clock != null ? builder.clock : Clock.system());
    this.consumer = builder.consumer;
    this.maxDriftMillis = builder.maxDriftMillis;
    this.allowedLatenessMillis = builder.allowedLatenessMillis();
    this.quietAdvanceAfterNanos = builder.quietAdvanceAfterNanos();
    this.quietAdvanceMaxLagMillis = builder.quietAdvanceMaxLagMillis();
    TumblingWindows.Builder<V, R> wb =
        TumblingWindows.<V, R>builder(builder.size, builder.aggregator)
            .allowedLateness(Duration.ofMillis(allowedLatenessMillis))
            .clock(clock);
    if (builder.idleTimeout != null) {
      wb.idleTimeout(builder.idleTimeout);
    }
    if (builder.lateEventHandler != null) {
      wb.lateEventHandler(builder.lateEventHandler);
    }
    this.windows = wb.build();
    this.lastRecordNanos = clock.monotonicNanos();
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
    return new Builder<>(size, aggregator);
  }

  /**
   * Returns a rebalance listener to pass to {@code consumer.subscribe}: it registers assigned
   * partitions (an assigned partition that has not delivered yet holds the watermark) and removes
   * revoked and lost ones at once.
   *
   * @return the listener
   */
  public ConsumerRebalanceListener rebalanceListener() {
    return new Listener(null);
  }

  /**
   * Returns a rebalance listener that does what {@link #rebalanceListener()} does and calls {@code
   * delegate} too: after registering on assignment, before removing on revocation and loss (so that
   * the delegate still sees the partitions' state, for example to flush and commit).
   *
   * @param delegate the listener the application already has
   * @return the listener
   * @throws NullPointerException if {@code delegate} is null
   */
  public ConsumerRebalanceListener rebalanceListener(ConsumerRebalanceListener delegate) {
    return new Listener(Objects.requireNonNull(delegate, "delegate"));
  }

  /**
   * Feeds a poll's records with the record timestamp as event time; see {@link #onPoll(
   * ConsumerRecords, ToLongFunction, Function, Function)}.
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
   * Feeds a poll's records and does the per-poll work described in the class comment: one clock
   * read, the records per partition, heartbeats for paused partitions, the idleness refresh, the
   * quiet-period advance and the alignment. Call it after every {@code poll}, including empty ones.
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
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    clock.update();
    long nowNanos = clock.monotonicNanos();
    if (!records.isEmpty()) {
      lastRecordNanos = nowNanos;
    }
    for (TopicPartition tp : records.partitions()) {
      PartitionState state = assigned.get(tp);
      if (state == null) {
        // Assigned without a listener (consumer.assign) or before the listener ran.
        state = new PartitionState(windows.source(tp));
        assigned.put(tp, state);
      }
      for (ConsumerRecord<KR, VR> r : records.records(tp)) {
        state.nextOffset = r.offset() + 1;
        K k = key.apply(r);
        V v = k == null ? null : value.apply(r);
        if (v == null) {
          skippedRecords++;
          windows.heartbeat(state.source);
          continue;
        }
        long t = eventTime.applyAsLong(r);
        if (windows.add(state.source, t, k, v)) {
          state.hold(windowEnd(t), r.offset());
        }
      }
    }
    Set<TopicPartition> paused = consumer != null ? consumer.paused() : Set.of();
    for (TopicPartition tp : paused) {
      if (assigned.containsKey(tp)) {
        windows.heartbeat(tp);
      }
    }
    windows.refresh();
    maybeAdvanceQuiet(nowNanos);
    if (maxDriftMillis != NO_DRIFT) {
      align(paused);
    }
  }

  /**
   * Returns the results of the windows finalized since the last call; see {@link
   * TumblingWindows#pollFinalized()}. Write them before committing {@link #committableOffsets()}.
   *
   * @return the new results
   */
  public List<WindowResult<K, R>> pollFinalized() {
    List<WindowResult<K, R>> results = windows.pollFinalized();
    returnedThroughMillis = windows.watermark();
    return results;
  }

  /**
   * Returns the offsets that are safe to commit once the results of {@link #pollFinalized()} have
   * been written: per assigned partition that has delivered, the offset of its oldest record in a
   * window not returned yet, or the next offset to read when it has none. Allocates the map.
   *
   * @return partition to offset, for {@code consumer.commitSync}
   */
  public Map<TopicPartition, OffsetAndMetadata> committableOffsets() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (Map.Entry<TopicPartition, PartitionState> e : assigned.entrySet()) {
      PartitionState state = e.getValue();
      if (state.nextOffset >= 0) {
        offsets.put(e.getKey(), new OffsetAndMetadata(state.committable(returnedThroughMillis)));
      }
    }
    return offsets;
  }

  /**
   * Seeds the watermark at start-up from the sink: pass the end of the newest window already
   * written, so that redelivered records of written windows are late and no written window is
   * overwritten with a partial one. Clamped to {@code clock.wallMillis() - allowedLateness}; see
   * {@link TumblingWindows#seedWatermark(long)}.
   *
   * @param newestWrittenWindowEndMillis the end of the newest written window, epoch milliseconds
   * @return the watermark after seeding
   */
  public long seedWatermark(long newestWrittenWindowEndMillis) {
    clock.update();
    long watermark = windows.seedWatermark(newestWrittenWindowEndMillis);
    returnedThroughMillis = Math.max(returnedThroughMillis, watermark);
    return watermark;
  }

  /**
   * Closes every open window, for a consumer that leaves the group for good: after this call {@link
   * #pollFinalized()} returns every window still open (partial results that the sink must add to
   * the other instances' results), and every later record is late. Then write the results, commit
   * {@link #committableOffsets()} and close the consumer.
   */
  public void finishAll() {
    clock.update();
    windows.advanceTo(Long.MAX_VALUE);
  }

  /**
   * Returns the windows this driver feeds, for the calls it does not wrap.
   *
   * @return the windows
   */
  public TumblingWindows<K, V, R> windows() {
    return windows;
  }

  /**
   * Returns the frontier of a partition; see {@link TumblingWindows#frontier(Object)}.
   *
   * @param partition the partition
   * @return the frontier in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   * @throws NullPointerException if {@code partition} is null
   */
  public long frontier(TopicPartition partition) {
    return windows.frontier(Objects.requireNonNull(partition, "partition"));
  }

  /**
   * Returns the watermark; any thread.
   *
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public long watermark() {
    return windows.watermark();
  }

  /**
   * Returns a snapshot of the windows' counters; any thread.
   *
   * @return the counters
   */
  public WindowStats stats() {
    return windows.stats();
  }

  /**
   * Returns the partitions this driver considers assigned. Polling thread only.
   *
   * @return an unmodifiable copy
   */
  public Set<TopicPartition> assignedPartitions() {
    return Collections.unmodifiableSet(new HashSet<>(assigned.keySet()));
  }

  /**
   * Returns the partitions currently paused by the alignment. Polling thread only.
   *
   * @return an unmodifiable copy, in the order they were paused
   */
  public Set<TopicPartition> pausedPartitions() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(pausedByAlignment));
  }

  /**
   * Returns how many times the alignment paused a partition.
   *
   * @return the number of pauses
   */
  public long pauses() {
    return pauses;
  }

  /**
   * Returns how many times the alignment resumed a partition.
   *
   * @return the number of resumes
   */
  public long resumes() {
    return resumes;
  }

  /**
   * Returns how many polls advanced the watermark to the wall clock after a quiet period.
   *
   * @return the number of quiet-period advances
   */
  public long quietAdvances() {
    return quietAdvances;
  }

  /**
   * Returns how many records were skipped because the key or value extractor returned {@code null}:
   * counted, never silently dropped. Their partition still counted as active.
   *
   * @return the number of skipped records
   */
  public long skippedRecords() {
    return skippedRecords;
  }

  @Override
  public String toString() {
    return "KafkaWindows{assigned="
        + assigned.size()
        + ", paused="
        + pausedByAlignment.size()
        + ", "
        + windows
        + "}";
  }

  // ---------------------------------------------------------------------------------------------

  private long windowEnd(long eventTimeMillis) {
    long size = windows.sizeMillis();
    long rem = Math.floorMod(eventTimeMillis, size);
    return TimeMath.saturatedAdd(eventTimeMillis, size - rem);
  }

  private void maybeAdvanceQuiet(long nowNanos) {
    if (nowNanos - lastRecordNanos < quietAdvanceAfterNanos || !pausedByAlignment.isEmpty()) {
      return;
    }
    long wall = clock.wallMillis();
    long lag = TimeMath.saturatedSubtract(wall, windows.watermark());
    if (lag > quietAdvanceMaxLagMillis) {
      if (!lagWarningLogged) {
        lagWarningLogged = true;
        LOG.warn(
            "all partitions quiet, but the watermark {} lags the wall clock {} by {} ms, more than"
                + " quietAdvanceMaxLag {} ms (a replay or backfill?): not advancing to the wall"
                + " clock, which would make the backlog late",
            windows.watermark(),
            wall,
            lag,
            quietAdvanceMaxLagMillis);
      }
      return;
    }
    lagWarningLogged = false;
    long before = windows.watermark();
    windows.advanceTo(wall);
    if (windows.watermark() != before) {
      quietAdvances++;
    }
  }

  /**
   * Pauses the partitions too far ahead and resumes those back within the drift. A partition the
   * alignment paused but that is no longer paused (the application resumed it) is paused again if
   * it is still ahead.
   */
  private void align(Set<TopicPartition> pausedNow) {
    long watermark = windows.watermark();
    if (watermark == WatermarkTracker.NO_WATERMARK) {
      // An assigned partition has not delivered yet: align the others on the watermark they
      // would make without it, so that they cannot run away meanwhile.
      long slowest = Long.MAX_VALUE;
      for (TopicPartition tp : assigned.keySet()) {
        long frontier = windows.frontier(tp);
        if (frontier != WatermarkTracker.NO_WATERMARK) {
          slowest = Math.min(slowest, frontier);
        }
      }
      if (slowest == Long.MAX_VALUE) {
        return;
      }
      watermark = TimeMath.saturatedSubtract(slowest, allowedLatenessMillis);
    }
    List<TopicPartition> toPause = null;
    List<TopicPartition> toResume = null;
    for (TopicPartition tp : assigned.keySet()) {
      long frontier = windows.frontier(tp);
      boolean ahead =
          frontier != WatermarkTracker.NO_WATERMARK
              && TimeMath.saturatedSubtract(frontier, watermark) > maxDriftMillis;
      boolean paused = pausedByAlignment.contains(tp);
      if (ahead && !(paused && pausedNow.contains(tp))) {
        if (toPause == null) {
          toPause = new ArrayList<>();
        }
        toPause.add(tp);
      } else if (!ahead && paused) {
        if (toResume == null) {
          toResume = new ArrayList<>();
        }
        toResume.add(tp);
      }
    }
    if (toPause != null) {
      consumer.pause(toPause);
      for (TopicPartition tp : toPause) {
        if (pausedByAlignment.add(tp)) {
          pauses++;
        }
      }
      LOG.debug("alignment paused {} at watermark {}", toPause, watermark);
    }
    if (toResume != null) {
      consumer.resume(toResume);
      toResume.forEach(pausedByAlignment::remove);
      resumes += toResume.size();
      LOG.debug("alignment resumed {} at watermark {}", toResume, watermark);
    }
  }

  private void assign(Collection<TopicPartition> partitions) {
    clock.update();
    for (TopicPartition tp : partitions) {
      if (!assigned.containsKey(tp)) {
        assigned.put(tp, new PartitionState(windows.source(tp)));
      }
    }
  }

  /**
   * On revocation: the records of the revoked partitions that sit in open windows stay there and
   * are emitted with them, so the new owner must start after them: commit the consumed positions.
   */
  private void commitConsumed(Collection<TopicPartition> partitions) {
    if (consumer == null) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      PartitionState state = assigned.get(tp);
      if (state != null && state.nextOffset >= 0) {
        offsets.put(tp, new OffsetAndMetadata(state.nextOffset));
      }
    }
    if (!offsets.isEmpty()) {
      try {
        consumer.commitSync(offsets);
      } catch (RuntimeException e) {
        LOG.warn("could not commit the consumed offsets of revoked partitions {}", offsets, e);
      }
    }
  }

  private void forget(Collection<TopicPartition> partitions) {
    clock.update();
    // Fastest first: an eager rebalance revokes every partition at once, and removing the slowest
    // first would raise the watermark to the next-slowest one for a moment, making the slowest
    // partition's next records late once it is assigned again.
    List<TopicPartition> fastestFirst = new ArrayList<>(partitions);
    fastestFirst.sort(
        Comparator.comparingLong((TopicPartition tp) -> windows.frontier(tp)).reversed());
    for (TopicPartition tp : fastestFirst) {
      assigned.remove(tp);
      pausedByAlignment.remove(tp); // the consumer drops the pause with the assignment
      windows.remove(tp);
    }
  }

  /** Commit state of one partition: the oldest offset still in each open window. */
  private static final class PartitionState {
    /** The partition's handle in the windows: no hash lookup per record. */
    final WatermarkTracker.Source source;

    PartitionState(WatermarkTracker.Source source) {
      this.source = source;
    }

    /** The next offset to read, or -1 before the first record. */
    long nextOffset = -1;

    /** Window end to the smallest offset of this partition accepted into that window. */
    final TreeMap<Long, Long> oldestOffsetByWindowEnd = new TreeMap<>();

    /** The end of the window of the previous accepted record, to skip the map lookup. */
    long lastEnd = Long.MIN_VALUE;

    void hold(long windowEndMillis, long offset) {
      if (windowEndMillis != lastEnd) {
        oldestOffsetByWindowEnd.putIfAbsent(windowEndMillis, offset);
        lastEnd = windowEndMillis;
      }
    }

    long committable(long returnedThroughMillis) {
      oldestOffsetByWindowEnd.headMap(returnedThroughMillis, true).clear();
      if (lastEnd <= returnedThroughMillis) {
        lastEnd = Long.MIN_VALUE;
      }
      long oldest = nextOffset;
      for (long offset : oldestOffsetByWindowEnd.values()) {
        oldest = Math.min(oldest, offset);
      }
      return oldest;
    }
  }

  /** Registers assigned partitions and removes revoked and lost ones; chains a delegate. */
  private final class Listener implements ConsumerRebalanceListener {
    private final ConsumerRebalanceListener delegate;

    Listener(ConsumerRebalanceListener delegate) {
      this.delegate = delegate;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      assign(partitions);
      if (delegate != null) {
        delegate.onPartitionsAssigned(partitions);
      }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      try {
        if (delegate != null) {
          delegate.onPartitionsRevoked(partitions);
        }
        commitConsumed(partitions);
      } finally {
        forget(partitions);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      try {
        if (delegate != null) {
          delegate.onPartitionsLost(partitions);
        }
      } finally {
        forget(partitions);
      }
    }
  }

  /**
   * Configures {@link KafkaWindows}. Every option is optional and may be set at most once: setting
   * one twice throws {@link IllegalStateException}. A rejected call leaves the builder unchanged.
   * Not thread-safe.
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> {
    private final Duration size;
    private final Aggregator<? super V, ?, R> aggregator;

    /**
     * Checks the window options as {@link TumblingWindows.Builder} does (same rules, same messages,
     * set at most once); the values are kept below because the windows are built with a {@link
     * CachedClock} over the clock, for each {@link #build()}.
     */
    private final TumblingWindows.Builder<V, R> checks;

    private Duration allowedLateness;
    private Duration idleTimeout;
    private Clock clock;
    private LateEventHandler<? super V> lateEventHandler;
    private Consumer<?, ?> consumer;
    private long maxDriftMillis = NO_DRIFT;
    private long quietAdvanceAfterNanos = -1;
    private long quietAdvanceMaxLagMillis = -1;

    private Builder(Duration size, Aggregator<? super V, ?, R> aggregator) {
      this.checks = TumblingWindows.builder(size, aggregator); // checks size and aggregator too
      this.size = size;
      this.aggregator = aggregator;
    }

    /**
     * Sets the allowed lateness. Default 120 seconds.
     *
     * @param allowedLateness the allowed lateness, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if {@code allowedLateness} is negative
     * @throws IllegalStateException if the allowed lateness was already set
     */
    public Builder<V, R> allowedLateness(Duration allowedLateness) {
      checks.allowedLateness(allowedLateness);
      this.allowedLateness = allowedLateness;
      return this;
    }

    /**
     * Sets the idle timeout, after which a silent (and not paused) partition stops holding the
     * watermark. Default 120 seconds.
     *
     * @param idleTimeout the idle timeout, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code idleTimeout} is null
     * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
     * @throws IllegalStateException if the idle timeout was already set
     */
    public Builder<V, R> idleTimeout(Duration idleTimeout) {
      checks.idleTimeout(idleTimeout);
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Sets the clock; it is read once per poll through a {@link CachedClock}. Default {@link
     * Clock#system()}. Tests pass a {@link io.github.lowwater.ManualClock}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder<V, R> clock(Clock clock) {
      checks.clock(clock);
      this.clock = clock;
      return this;
    }

    /**
     * Sets the late path; see {@link TumblingWindows.Builder#lateEventHandler}. The source given to
     * the handler is the record's {@link TopicPartition}.
     *
     * @param lateEventHandler receives every late record's key and value
     * @return this builder
     * @throws NullPointerException if {@code lateEventHandler} is null
     * @throws IllegalStateException if a late-event handler was already set
     */
    public Builder<V, R> lateEventHandler(LateEventHandler<? super V> lateEventHandler) {
      checks.lateEventHandler(lateEventHandler);
      this.lateEventHandler = lateEventHandler;
      return this;
    }

    /**
     * Sets the consumer, which the alignment pauses and resumes and whose paused partitions get
     * heartbeats. Required with {@link #maxDrift}.
     *
     * @param consumer the consumer the loop polls
     * @return this builder
     * @throws NullPointerException if {@code consumer} is null
     * @throws IllegalStateException if the consumer was already set
     */
    public Builder<V, R> consumer(Consumer<?, ?> consumer) {
      Objects.requireNonNull(consumer, "consumer");
      once(this.consumer == null, "consumer", this.consumer);
      this.consumer = consumer;
      return this;
    }

    /**
     * Turns on the alignment: a partition whose frontier runs more than {@code maxDrift} ahead of
     * the watermark is paused until it is back within it. Bounds the open windows and the
     * false-late risk of a catch-up, at a cost in catch-up throughput (see {@code docs/kafka.md}).
     * Off by default. Must be at least the allowed lateness (checked by {@link #build()}).
     *
     * @param maxDrift the largest lead over the watermark, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code maxDrift} is null
     * @throws IllegalArgumentException if {@code maxDrift} is zero or negative
     * @throws IllegalStateException if the maximum drift was already set
     */
    public Builder<V, R> maxDrift(Duration maxDrift) {
      Objects.requireNonNull(maxDrift, "maxDrift");
      if (maxDrift.isNegative() || maxDrift.isZero()) {
        throw new IllegalArgumentException("maxDrift must be > 0: " + maxDrift);
      }
      once(maxDriftMillis == NO_DRIFT, "maxDrift", Duration.ofMillis(maxDriftMillis));
      maxDriftMillis = Math.min(TimeMath.toMillisSaturated(maxDrift), NO_DRIFT - 1);
      return this;
    }

    /**
     * Sets how long every assigned partition must have been without a record before the watermark
     * advances to the wall clock. Default 90 seconds.
     *
     * @param quietAdvanceAfter the quiet period, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code quietAdvanceAfter} is null
     * @throws IllegalArgumentException if {@code quietAdvanceAfter} is zero or negative
     * @throws IllegalStateException if the quiet period was already set
     */
    public Builder<V, R> quietAdvanceAfter(Duration quietAdvanceAfter) {
      Objects.requireNonNull(quietAdvanceAfter, "quietAdvanceAfter");
      if (quietAdvanceAfter.isNegative() || quietAdvanceAfter.isZero()) {
        throw new IllegalArgumentException("quietAdvanceAfter must be > 0: " + quietAdvanceAfter);
      }
      once(
          quietAdvanceAfterNanos < 0,
          "quietAdvanceAfter",
          Duration.ofNanos(quietAdvanceAfterNanos));
      quietAdvanceAfterNanos = TimeMath.toNanosSaturated(quietAdvanceAfter);
      return this;
    }

    /**
     * Sets the largest lag of the watermark behind the wall clock at which the quiet-period advance
     * still happens; beyond it the data is a replay or backfill and the advance is skipped (logged
     * once). Default 1 hour.
     *
     * @param quietAdvanceMaxLag the bound, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code quietAdvanceMaxLag} is null
     * @throws IllegalArgumentException if {@code quietAdvanceMaxLag} is negative
     * @throws IllegalStateException if the bound was already set
     */
    public Builder<V, R> quietAdvanceMaxLag(Duration quietAdvanceMaxLag) {
      Objects.requireNonNull(quietAdvanceMaxLag, "quietAdvanceMaxLag");
      if (quietAdvanceMaxLag.isNegative()) {
        throw new IllegalArgumentException(
            "quietAdvanceMaxLag must be >= 0: " + quietAdvanceMaxLag);
      }
      once(
          quietAdvanceMaxLagMillis < 0,
          "quietAdvanceMaxLag",
          Duration.ofMillis(quietAdvanceMaxLagMillis));
      quietAdvanceMaxLagMillis = TimeMath.toMillisSaturated(quietAdvanceMaxLag);
      return this;
    }

    /**
     * Builds the driver, with no partition assigned and no watermark.
     *
     * @param <K> the window key type
     * @return a new driver
     * @throws IllegalStateException if {@code maxDrift} is set without a consumer, or is shorter
     *     than the allowed lateness
     */
    public <K> KafkaWindows<K, V, R> build() {
      if (maxDriftMillis != NO_DRIFT) {
        if (consumer == null) {
          throw new IllegalStateException("maxDrift needs the consumer: set consumer(...)");
        }
        if (maxDriftMillis < allowedLatenessMillis()) {
          throw new IllegalStateException(
              "maxDrift must be >= allowedLateness ("
                  + Duration.ofMillis(allowedLatenessMillis())
                  + "): "
                  + Duration.ofMillis(maxDriftMillis));
        }
      }
      return new KafkaWindows<>(this);
    }

    private long allowedLatenessMillis() {
      return TimeMath.toMillisSaturated(
          allowedLateness != null ? allowedLateness : DEFAULT_ALLOWED_LATENESS);
    }

    private long quietAdvanceAfterNanos() {
      return quietAdvanceAfterNanos >= 0
          ? quietAdvanceAfterNanos
          : TimeMath.toNanosSaturated(DEFAULT_QUIET_ADVANCE_AFTER);
    }

    private long quietAdvanceMaxLagMillis() {
      return quietAdvanceMaxLagMillis >= 0
          ? quietAdvanceMaxLagMillis
          : DEFAULT_QUIET_ADVANCE_MAX_LAG.toMillis();
    }

    private static void once(boolean unset, String option, Object previous) {
      if (!unset) {
        throw new IllegalStateException(option + " was already set to " + previous);
      }
    }
  }
}
