package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.ADVANCES;
import static io.github.lowwater.micrometer.Meters.ALIGNMENT_PAUSES;
import static io.github.lowwater.micrometer.Meters.ALIGNMENT_RESUMES;
import static io.github.lowwater.micrometer.Meters.EVENTS;
import static io.github.lowwater.micrometer.Meters.GROUP_WATERMARK_LAG;
import static io.github.lowwater.micrometer.Meters.LAST_POLL_AGE;
import static io.github.lowwater.micrometer.Meters.LAST_POLL_AGE_DESCRIPTION;
import static io.github.lowwater.micrometer.Meters.MILLISECONDS;
import static io.github.lowwater.micrometer.Meters.MISSING_RECORDS;
import static io.github.lowwater.micrometer.Meters.PARTITION;
import static io.github.lowwater.micrometer.Meters.PARTITIONS;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_ACTIVE;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_ASSIGNED;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_HELD;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_IDLE;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_OVER_RESUME_LIMIT;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_PAUSED;
import static io.github.lowwater.micrometer.Meters.PARTITION_FRONTIER_LAG;
import static io.github.lowwater.micrometer.Meters.PARTITION_OLDEST_SESSION_AGE;
import static io.github.lowwater.micrometer.Meters.PARTITION_WATERMARK_LAG;
import static io.github.lowwater.micrometer.Meters.PAUSES;
import static io.github.lowwater.micrometer.Meters.QUIET_ADVANCES;
import static io.github.lowwater.micrometer.Meters.RECORDS;
import static io.github.lowwater.micrometer.Meters.RECORDS_REDELIVERED;
import static io.github.lowwater.micrometer.Meters.RECORDS_SKIPPED;
import static io.github.lowwater.micrometer.Meters.RESUMES;
import static io.github.lowwater.micrometer.Meters.ROWS;
import static io.github.lowwater.micrometer.Meters.ROWS_INCOMPLETE;
import static io.github.lowwater.micrometer.Meters.TOPIC;

import io.github.lowwater.Clock;
import io.github.lowwater.kafka.KafkaWindows;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Binds the meters of a {@link KafkaWindows}: the instance's and the group's watermark lag, the
 * time since the last {@code onPoll} (a stall), the open windows and entries, the event and record
 * counts, the quiet-period advances, the alignment's pauses and resumes, and per assigned partition
 * its frontier and watermark lag (and, for session windows, its oldest pending session's age),
 * tagged {@code topic} and {@code partition} (see {@code docs/metrics.md}).
 *
 * <p>Thread-safe: {@link #bindTo}, {@link #refresh} and {@link #close} may be called from any
 * thread, the polling thread or a scheduler. The registry reads the meters on its own thread,
 * through the driver's any-thread readings only ({@link KafkaWindows#watermark()}, {@link
 * KafkaWindows#groupWatermark()}, {@link KafkaWindows#stats()}, {@link KafkaWindows#partitions()},
 * {@link KafkaWindows#frontier(TopicPartition)}, {@link KafkaWindows#watermark(TopicPartition)},
 * {@link KafkaWindows#millisSinceLastPoll()} and the counters) and this binder's {@link Clock} for
 * the wall time. A reading costs O(1), except the instance's watermark and the window counts in
 * {@code PER_PARTITION}, which cost O(assigned partitions) and allocate one snapshot. Binding costs
 * nothing on the polling thread's hot path.
 *
 * <h2>The refresh contract</h2>
 *
 * <p>The per-partition meters follow the assignment only when {@link #refresh()} is called: it
 * registers the meters of partitions assigned since the last call and removes those of partitions
 * that left, so that the number of series stays bounded by the partitions this instance owns. Call
 * it once per poll, after {@link KafkaWindows#onPoll} (it costs one volatile read when the
 * assignment did not change), or from the scheduler that reports the metrics. Between two calls a
 * revoked partition's meters read NaN, never a stale value. {@link #bindTo} refreshes too.
 *
 * <p>The meters hold the driver weakly (Micrometer's default), so that a registry never keeps it
 * alive; this binder holds it strongly, so the meters keep reporting while the driver or the binder
 * is reachable. {@link #close()} removes the meters from every registry this binder was bound to.
 *
 * <pre>{@code
 * KafkaWindowsMetrics metrics =
 *     new KafkaWindowsMetrics(windows, Tags.of("group", "arrivals-counter"));
 * metrics.bindTo(registry);
 * while (running) {
 *   windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
 *   metrics.refresh(); // the per-partition meters follow the assignment
 *   // write pollFinalized(), commit committableOffsets()
 * }
 * }</pre>
 */
public final class KafkaWindowsMetrics implements MeterBinder, AutoCloseable {

  /** Held strongly, so that the weakly held meters report while this binder is reachable. */
  private final KafkaWindows<?, ?, ?> windows;

  private final Tags tags;
  private final Clock clock;
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final BoundMeters meters = new BoundMeters();

  /** The meters of each partition of the last refresh, in every bound registry. */
  private final Map<TopicPartition, BoundMeters> partitionMeters = new HashMap<>();

  /** The snapshot of the last refresh: the same instance means the same assignment. */
  private Set<TopicPartition> refreshed;

  /**
   * Creates a binder for {@code windows} without extra tags, reading the wall time from {@link
   * Clock#system()}.
   *
   * @param windows the driver to measure
   * @throws NullPointerException if {@code windows} is null
   */
  public KafkaWindowsMetrics(KafkaWindows<?, ?, ?> windows) {
    this(windows, Tags.empty());
  }

  /**
   * Creates a binder for {@code windows} whose meters all carry {@code tags}, for example the
   * consumer group, reading the wall time from {@link Clock#system()}.
   *
   * @param windows the driver to measure
   * @param tags the tags of every meter, copied; must not use the keys {@code topic} or {@code
   *     partition}, which the per-partition meters add
   * @throws NullPointerException if {@code windows} or {@code tags} is null
   * @throws IllegalArgumentException if {@code tags} has the key {@code topic} or {@code partition}
   */
  public KafkaWindowsMetrics(KafkaWindows<?, ?, ?> windows, Iterable<Tag> tags) {
    this(windows, tags, Clock.system());
  }

  /**
   * Creates a binder for {@code windows} whose meters all carry {@code tags}, reading the wall time
   * from {@code clock}: pass the clock given to the driver's builder (tests pass a {@link
   * io.github.lowwater.ManualClock}). The lags are the clock's wall time minus a watermark or
   * frontier, read when the registry reads the meter.
   *
   * @param windows the driver to measure
   * @param tags the tags of every meter, copied; must not use the keys {@code topic} or {@code
   *     partition}, which the per-partition meters add
   * @param clock the wall clock of the lags; must be thread-safe for reads, as every clock of
   *     {@code io.github.lowwater} is
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code tags} has the key {@code topic} or {@code partition}
   */
  public KafkaWindowsMetrics(KafkaWindows<?, ?, ?> windows, Iterable<Tag> tags, Clock clock) {
    this.windows = Objects.requireNonNull(windows, "windows");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    this.clock = Objects.requireNonNull(clock, "clock");
    for (Tag t : this.tags) {
      if (t.getKey().equals(TOPIC) || t.getKey().equals(PARTITION)) {
        throw new IllegalArgumentException(
            "tags must not have the key topic or partition (the per-partition meters add them): "
                + t);
      }
    }
  }

  /**
   * Registers the meters in {@code registry}, those of the partitions assigned now included (this
   * call {@linkplain #refresh() refreshes}); binding to the same registry twice changes nothing.
   *
   * @param registry the registry
   * @throws NullPointerException if {@code registry} is null
   */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    if (Meters.containsIdentical(registries, registry)) {
      refresh();
      return;
    }
    registries.add(registry);
    Clock wall = clock; // the meters' functions capture the clock, never this binder
    meters.add(
        registry,
        Meters.watermarkLag(
            registry, tags, windows, w -> wall.wallMillis(), KafkaWindows::watermark));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            GROUP_WATERMARK_LAG,
            "How far the consumer group's watermark (from its committed offsets) trails the wall"
                + " clock, in milliseconds; NaN until every partition has committed a checkpoint",
            MILLISECONDS,
            tags,
            windows,
            w -> Meters.lagMillis(wall.wallMillis(), w.groupWatermark())));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_ASSIGNED,
            "Partitions assigned to this instance, in partitions",
            PARTITIONS,
            tags,
            windows,
            w -> w.partitions().size()));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_ACTIVE,
            "Assigned partitions that delivered within the idle timeout, in partitions",
            PARTITIONS,
            tags,
            windows,
            KafkaWindows::activePartitionCount));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_IDLE,
            "Assigned partitions silent for longer than the idle timeout or not delivered yet, in"
                + " partitions",
            PARTITIONS,
            tags,
            windows,
            KafkaWindows::idlePartitionCount));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_PAUSED,
            "Partitions the alignment holds paused for running ahead, in partitions",
            PARTITIONS,
            tags,
            windows,
            KafkaWindows::pausedPartitionCount));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_HELD,
            "Partitions held because this instance lacks the rest of their co-partitioned task"
                + " (resultScope CO_PARTITIONED; 0 otherwise), in partitions",
            PARTITIONS,
            tags,
            windows,
            KafkaWindows::heldPartitionCount));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_OVER_RESUME_LIMIT,
            "Partitions whose resume distance is over the resumeDistanceLimit (0 without one), in"
                + " partitions",
            PARTITIONS,
            tags,
            windows,
            KafkaWindows::partitionsOverResumeLimit));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            LAST_POLL_AGE,
            LAST_POLL_AGE_DESCRIPTION,
            MILLISECONDS,
            tags,
            windows,
            w -> Meters.known(w.millisSinceLastPoll())));
    WindowStatsMeters.bind(registry, tags, windows, KafkaWindows::stats, meters);
    ProgressMeters.bindInstance(registry, tags, windows, wall, meters);
    meters.add(
        registry,
        Meters.counter(
            registry,
            RECORDS_REDELIVERED,
            "Records skipped because a previous owner had written their window and read them, in"
                + " records",
            RECORDS,
            tags,
            windows,
            KafkaWindows::redeliveredRecords));
    meters.add(
        registry,
        Meters.counter(
            registry,
            ROWS_INCOMPLETE,
            "Rows handed out marked incomplete (WindowResult.isComplete() false): records their"
                + " partition's reading lacks may belong to them, in rows",
            ROWS,
            tags,
            windows,
            KafkaWindows::incompleteRows));
    meters.add(
        registry,
        Meters.counter(
            registry,
            MISSING_RECORDS,
            "Times a partition's reading was found to lack records an uninterrupted reading had"
                + " (no usable checkpoint, deleted records, a jumped offset), each logged at WARN",
            EVENTS,
            tags,
            windows,
            KafkaWindows::missingRecordsEvents));
    meters.add(
        registry,
        Meters.counter(
            registry,
            RECORDS_SKIPPED,
            "Records skipped because the mapper gave no key or value, in records",
            RECORDS,
            tags,
            windows,
            KafkaWindows::skippedRecords));
    meters.add(
        registry,
        Meters.counter(
            registry,
            QUIET_ADVANCES,
            "Quiet-period advances of a watermark to the wall clock, in advances",
            ADVANCES,
            tags,
            windows,
            KafkaWindows::quietAdvances));
    meters.add(
        registry,
        Meters.counter(
            registry,
            ALIGNMENT_PAUSES,
            "Partitions paused by the alignment for running ahead, in pauses",
            PAUSES,
            tags,
            windows,
            KafkaWindows::pauses));
    meters.add(
        registry,
        Meters.counter(
            registry,
            ALIGNMENT_RESUMES,
            "Partitions resumed by the alignment, in resumes",
            RESUMES,
            tags,
            windows,
            KafkaWindows::resumes));
    for (Map.Entry<TopicPartition, BoundMeters> e : partitionMeters.entrySet()) {
      bindPartition(registry, e.getKey(), e.getValue());
    }
    refresh();
  }

  /**
   * Makes the per-partition meters follow the assignment: registers, in every bound registry, the
   * meters of the partitions assigned since the last call and removes those of the partitions that
   * left. Any thread; costs one volatile read when the assignment did not change, else
   * O(partitions) and the new partitions' meters.
   */
  public synchronized void refresh() {
    Set<TopicPartition> now = windows.partitions();
    if (now == refreshed) {
      return;
    }
    Iterator<Map.Entry<TopicPartition, BoundMeters>> it = partitionMeters.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<TopicPartition, BoundMeters> e = it.next();
      if (!now.contains(e.getKey())) {
        e.getValue().removeAll();
        it.remove();
      }
    }
    for (TopicPartition tp : now) {
      if (!partitionMeters.containsKey(tp)) {
        BoundMeters bound = new BoundMeters();
        for (MeterRegistry registry : registries) {
          bindPartition(registry, tp, bound);
        }
        partitionMeters.put(tp, bound);
      }
    }
    refreshed = now;
  }

  /**
   * Returns the partitions that have meters, as of the last {@link #refresh()}.
   *
   * @return an unmodifiable copy
   */
  public synchronized Set<TopicPartition> partitionsWithMeters() {
    return Set.copyOf(partitionMeters.keySet());
  }

  /**
   * Removes every meter this binder registered, the per-partition ones included, from every
   * registry it was bound to. The binder may be bound again afterwards. Idempotent.
   */
  @Override
  public synchronized void close() {
    meters.removeAll();
    for (BoundMeters bound : partitionMeters.values()) {
      bound.removeAll();
    }
    partitionMeters.clear();
    registries.clear();
    refreshed = null;
  }

  /** Registers the lags of {@code tp} in {@code registry}, and its oldest session's age. */
  private void bindPartition(MeterRegistry registry, TopicPartition tp, BoundMeters bound) {
    Clock wall = clock; // the meters' functions capture the clock and tp, never this binder
    Tags partitionTags =
        tags.and(TOPIC, tp.topic()).and(PARTITION, Integer.toString(tp.partition()));
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_FRONTIER_LAG,
            "How far a partition's frontier (its largest event time) trails the wall clock, in"
                + " milliseconds; NaN before its first record or once it is no longer assigned",
            MILLISECONDS,
            partitionTags,
            windows,
            w -> Meters.lagMillis(wall.wallMillis(), w.frontier(tp))));
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_WATERMARK_LAG,
            "How far a partition's watermark trails the wall clock, in milliseconds; NaN before"
                + " its first watermark or once it is no longer assigned",
            MILLISECONDS,
            partitionTags,
            windows,
            w -> Meters.lagMillis(wall.wallMillis(), w.watermark(tp))));
    ProgressMeters.bindPartition(registry, partitionTags, windows, tp, wall, bound);
    if (windows.sessionWindows()) {
      bound.add(
          registry,
          Meters.gauge(
              registry,
              PARTITION_OLDEST_SESSION_AGE,
              "Session windows: how far the start of a partition's oldest session not yet"
                  + " returned trails the wall clock, in milliseconds (the committed offset waits"
                  + " for its first record); NaN when none is pending",
              MILLISECONDS,
              partitionTags,
              windows,
              w -> Meters.lagMillis(wall.wallMillis(), w.oldestSessionStart(tp))));
    }
  }
}
