package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.ADVANCES;
import static io.github.lowwater.micrometer.Meters.EVENTS_LATE;
import static io.github.lowwater.micrometer.Meters.JOIN_ROWS;
import static io.github.lowwater.micrometer.Meters.JOIN_ROWS_SUPPRESSED;
import static io.github.lowwater.micrometer.Meters.JOIN_TASKS;
import static io.github.lowwater.micrometer.Meters.LAST_POLL_AGE;
import static io.github.lowwater.micrometer.Meters.LAST_POLL_AGE_DESCRIPTION;
import static io.github.lowwater.micrometer.Meters.MILLISECONDS;
import static io.github.lowwater.micrometer.Meters.PARTITIONS;
import static io.github.lowwater.micrometer.Meters.PARTITIONS_HELD;
import static io.github.lowwater.micrometer.Meters.QUIET_ADVANCES;
import static io.github.lowwater.micrometer.Meters.RECORDS;
import static io.github.lowwater.micrometer.Meters.RECORDS_REDELIVERED;
import static io.github.lowwater.micrometer.Meters.RECORDS_SKIPPED;
import static io.github.lowwater.micrometer.Meters.ROWS;
import static io.github.lowwater.micrometer.Meters.TASKS;

import io.github.lowwater.join.JoinSide;
import io.github.lowwater.kafka.KafkaJoin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Binds a {@link KafkaJoin}'s meters: {@code lowwater.partitions.held} (the same gauge, and so the
 * same alert, as {@code KafkaWindows}' co-partitioned scope), {@code lowwater.last.poll.age} (the
 * time since the last {@code onPoll}, read at scrape time: a stall), {@code lowwater.join.tasks},
 * {@code lowwater.join.rows} by {@code kind} ({@code pair}, {@code unmatched}), {@code
 * lowwater.join.rows.suppressed} (rows a new owner computed again and did not emit), {@code
 * lowwater.events.late} by {@code side}, {@code lowwater.records.redelivered}, {@code
 * lowwater.records.skipped} and {@code lowwater.quiet.advances} (the same counter as {@code
 * KafkaWindows}': quiet-period raises of a partition's watermark). The counters are function
 * counters over the join's counts, which only grow; every meter reads fields the polling thread
 * publishes, so a registry may read them from any thread. Holds the join weakly, as Micrometer's
 * function meters do; {@link #close()} removes the meters.
 */
public final class KafkaJoinMetrics implements MeterBinder, AutoCloseable {

  private final KafkaJoin<?, ?, ?, ?> join;
  private final Tags tags;
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final BoundMeters meters = new BoundMeters();

  /**
   * Creates the binder.
   *
   * @param join the join to observe
   * @throws NullPointerException if {@code join} is null
   */
  public KafkaJoinMetrics(KafkaJoin<?, ?, ?, ?> join) {
    this(join, Tags.empty());
  }

  /**
   * Creates the binder with common tags.
   *
   * @param join the join to observe
   * @param tags tags added to every meter
   * @throws NullPointerException if an argument is null
   */
  public KafkaJoinMetrics(KafkaJoin<?, ?, ?, ?> join, Iterable<Tag> tags) {
    this.join = Objects.requireNonNull(join, "join");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    if (Meters.containsIdentical(registries, registry)) {
      return;
    }
    registries.add(registry);
    meters.add(
        registry,
        Meters.gauge(
            registry,
            PARTITIONS_HELD,
            "Partitions held because this instance lacks the rest of their co-partitioned task"
                + " (paused, nothing read, computed or committed), in partitions",
            PARTITIONS,
            tags,
            join,
            KafkaJoin::heldPartitionCount));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            LAST_POLL_AGE,
            LAST_POLL_AGE_DESCRIPTION,
            MILLISECONDS,
            tags,
            join,
            j -> Meters.known(j.millisSinceLastPoll())));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            JOIN_TASKS,
            "Join tasks (partition i of both topics) whole and formed on this instance, in tasks",
            TASKS,
            tags,
            join,
            KafkaJoin::taskCount));
    meters.add(
        registry,
        Meters.counter(
            registry,
            JOIN_ROWS,
            "Join rows returned, in rows",
            ROWS,
            tags.and("kind", "pair"),
            join,
            KafkaJoin::pairs));
    meters.add(
        registry,
        Meters.counter(
            registry,
            JOIN_ROWS,
            "Join rows returned, in rows",
            ROWS,
            tags.and("kind", "unmatched"),
            join,
            KafkaJoin::unmatched));
    meters.add(
        registry,
        Meters.counter(
            registry,
            JOIN_ROWS_SUPPRESSED,
            "Join rows computed again from re-read records and not returned (a checkpoint says they"
                + " were), in rows",
            ROWS,
            tags,
            join,
            KafkaJoin::suppressedRows));
    for (JoinSide side : JoinSide.values()) {
      meters.add(
          registry,
          Meters.counter(
              registry,
              EVENTS_LATE,
              "Records judged late (re-read ones included), in events",
              Meters.EVENTS,
              tags.and("side", side.name().toLowerCase(java.util.Locale.ROOT)),
              join,
              j -> j.late(side)));
    }
    meters.add(
        registry,
        Meters.counter(
            registry,
            RECORDS_REDELIVERED,
            "Late records re-read below a checkpoint's position, not reported again, in records",
            RECORDS,
            tags,
            join,
            KafkaJoin::redeliveredRecords));
    meters.add(
        registry,
        Meters.counter(
            registry,
            RECORDS_SKIPPED,
            "Records with a null value (or no join value from the mapper), skipped, in records",
            RECORDS,
            tags,
            join,
            KafkaJoin::skippedRecords));
    meters.add(
        registry,
        Meters.counter(
            registry,
            QUIET_ADVANCES,
            "Quiet-period advances of a watermark to the wall clock, in advances",
            ADVANCES,
            tags,
            join,
            KafkaJoin::quietAdvances));
  }

  /** Removes every meter this binder registered. */
  @Override
  public synchronized void close() {
    meters.removeAll();
    registries.clear();
  }
}
