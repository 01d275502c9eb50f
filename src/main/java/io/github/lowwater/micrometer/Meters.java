package io.github.lowwater.micrometer;

import io.github.lowwater.WatermarkTracker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The names, units and descriptions of the meters, in one place, and the two ways they are
 * registered: a gauge or a function counter that holds the measured object weakly (Micrometer's
 * default), so that a registry never keeps a facade alive. Stateless; any thread.
 */
final class Meters {

  static final String WATERMARK_LAG = "lowwater.watermark.lag";
  static final String GROUP_WATERMARK_LAG = "lowwater.group.watermark.lag";
  static final String PARTITION_FRONTIER_LAG = "lowwater.partition.frontier.lag";
  static final String PARTITION_WATERMARK_LAG = "lowwater.partition.watermark.lag";
  static final String PARTITION_OLDEST_SESSION_AGE = "lowwater.partition.session.oldest.age";
  static final String SOURCES_ACTIVE = "lowwater.sources.active";
  static final String PARTITIONS_ASSIGNED = "lowwater.partitions.assigned";
  static final String PARTITIONS_ACTIVE = "lowwater.partitions.active";
  static final String PARTITIONS_IDLE = "lowwater.partitions.idle";
  static final String PARTITIONS_PAUSED = "lowwater.partitions.paused";
  static final String PARTITIONS_HELD = "lowwater.partitions.held";
  static final String JOIN_TASKS = "lowwater.join.tasks";
  static final String JOIN_ROWS = "lowwater.join.rows";
  static final String JOIN_ROWS_SUPPRESSED = "lowwater.join.rows.suppressed";
  static final String WINDOWS_OPEN = "lowwater.windows.open";
  static final String ENTRIES_OPEN = "lowwater.entries.open";
  static final String WINDOWS_FINALIZED = "lowwater.windows.finalized";
  static final String EVENTS_ACCEPTED = "lowwater.events.accepted";
  static final String EVENTS_LATE = "lowwater.events.late";
  static final String EVENTS_FUTURE = "lowwater.events.future";
  static final String ROWS_EARLY = "lowwater.rows.early";
  static final String ROWS_LATE = "lowwater.rows.late";
  static final String WINDOWS_RETIRED = "lowwater.windows.retired";
  static final String SOURCES_SUSPECT_TIME_UNIT = "lowwater.sources.suspect.time.unit";
  static final String RECORDS_REDELIVERED = "lowwater.records.redelivered";
  static final String RECORDS_SKIPPED = "lowwater.records.skipped";
  static final String QUIET_ADVANCES = "lowwater.quiet.advances";
  static final String ALIGNMENT_PAUSES = "lowwater.alignment.pauses";
  static final String ALIGNMENT_RESUMES = "lowwater.alignment.resumes";
  static final String PARTITION_LAG = "lowwater.partition.lag";
  static final String PARTITION_RESUME_DISTANCE = "lowwater.partition.resume.distance";
  static final String PARTITION_RESUME_AGE = "lowwater.partition.resume.age";
  static final String PARTITION_RESUME_EVENT_AGE = "lowwater.partition.resume.event.age";
  static final String LAG_MAX = "lowwater.lag.max";
  static final String RESUME_DISTANCE_MAX = "lowwater.resume.distance.max";
  static final String RESUME_AGE_MAX = "lowwater.resume.age.max";
  static final String PROGRESS_COMMITS = "lowwater.progress.commits";
  static final String PROGRESS_FAILURES = "lowwater.progress.failures";
  static final String ROWS_INCOMPLETE = "lowwater.rows.incomplete";
  static final String PARTITIONS_OVER_RESUME_LIMIT = "lowwater.partitions.over.resume.limit";
  static final String MISSING_RECORDS = "lowwater.missing.records.events";
  static final String LAST_POLL_AGE = "lowwater.last.poll.age";

  static final String LAST_POLL_AGE_DESCRIPTION =
      "Time since the polling loop last called onPoll, on the monotonic clock read at scrape time,"
          + " in milliseconds: it grows while the loop is stalled and every other meter stands"
          + " still; NaN before the first onPoll";

  static final String MILLISECONDS = "milliseconds"; // BaseUnits.MILLISECONDS is "ms"
  static final String EVENTS = BaseUnits.EVENTS;
  static final String RECORDS = "records";
  static final String SOURCES = "sources";
  static final String PARTITIONS = "partitions";
  static final String WINDOWS = "windows";
  static final String ENTRIES = "entries";
  static final String ROWS = "rows";
  static final String TASKS = "tasks";
  static final String ADVANCES = "advances";
  static final String PAUSES = "pauses";
  static final String RESUMES = "resumes";
  static final String CALLS = "calls";

  /** The tag keys of the per-partition meters. */
  static final String TOPIC = "topic";

  static final String PARTITION = "partition";

  static final String WATERMARK_LAG_DESCRIPTION =
      "How far the watermark trails the wall clock, in milliseconds; NaN before the first"
          + " watermark and after the end of the input";

  private Meters() {}

  /**
   * Returns {@code wallMillis - watermarkMillis} as a double (which cannot overflow), or NaN when
   * the watermark is a sentinel: {@link WatermarkTracker#NO_WATERMARK} (no watermark yet) or {@link
   * WatermarkTracker#UNSEEN} (a frontier not seen), both {@code Long.MIN_VALUE}, or {@code
   * Long.MAX_VALUE} (the end of the input). A sentinel would otherwise plot as a lag of 292 million
   * years.
   */
  static double lagMillis(long wallMillis, long watermarkMillis) {
    if (watermarkMillis == WatermarkTracker.NO_WATERMARK
        || watermarkMillis == WatermarkTracker.UNSEEN
        || watermarkMillis == Long.MAX_VALUE) {
      return Double.NaN;
    }
    return (double) wallMillis - (double) watermarkMillis;
  }

  /** A reading that is -1 when not known, as a gauge value: NaN then. */
  static double known(long reading) {
    return reading < 0 ? Double.NaN : reading;
  }

  /** Whether {@code list} holds {@code o} itself (registries are compared by identity). */
  static boolean containsIdentical(List<?> list, Object o) {
    for (Object e : list) {
      if (e == o) {
        return true;
      }
    }
    return false;
  }

  /** Registers a gauge that holds {@code obj} weakly; {@code fn} must not capture a binder. */
  static <T> Meter gauge(
      MeterRegistry registry,
      String name,
      String description,
      String baseUnit,
      Tags tags,
      T obj,
      ToDoubleFunction<T> fn) {
    return Gauge.builder(name, obj, fn)
        .description(description)
        .baseUnit(baseUnit)
        .tags(tags)
        .register(registry);
  }

  /**
   * Registers {@link #WATERMARK_LAG}, the one meter every binder has: {@code wallMillis} minus
   * {@code watermarkMillis} of {@code obj}, through {@link #lagMillis}.
   */
  static <T> Meter watermarkLag(
      MeterRegistry registry,
      Tags tags,
      T obj,
      ToLongFunction<T> wallMillis,
      ToLongFunction<T> watermarkMillis) {
    return gauge(
        registry,
        WATERMARK_LAG,
        WATERMARK_LAG_DESCRIPTION,
        MILLISECONDS,
        tags,
        obj,
        o -> lagMillis(wallMillis.applyAsLong(o), watermarkMillis.applyAsLong(o)));
  }

  /** Registers a function counter that holds {@code obj} weakly; {@code fn} must be monotonic. */
  static <T> Meter counter(
      MeterRegistry registry,
      String name,
      String description,
      String baseUnit,
      Tags tags,
      T obj,
      ToDoubleFunction<T> fn) {
    return FunctionCounter.builder(name, obj, fn)
        .description(description)
        .baseUnit(baseUnit)
        .tags(tags)
        .register(registry);
  }
}
