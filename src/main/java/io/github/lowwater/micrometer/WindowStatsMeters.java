package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.ENTRIES;
import static io.github.lowwater.micrometer.Meters.ENTRIES_OPEN;
import static io.github.lowwater.micrometer.Meters.EVENTS;
import static io.github.lowwater.micrometer.Meters.EVENTS_ACCEPTED;
import static io.github.lowwater.micrometer.Meters.EVENTS_FUTURE;
import static io.github.lowwater.micrometer.Meters.EVENTS_LATE;
import static io.github.lowwater.micrometer.Meters.ROWS;
import static io.github.lowwater.micrometer.Meters.ROWS_EARLY;
import static io.github.lowwater.micrometer.Meters.ROWS_LATE;
import static io.github.lowwater.micrometer.Meters.WINDOWS;
import static io.github.lowwater.micrometer.Meters.WINDOWS_FINALIZED;
import static io.github.lowwater.micrometer.Meters.WINDOWS_OPEN;
import static io.github.lowwater.micrometer.Meters.WINDOWS_RETIRED;

import io.github.lowwater.window.WindowStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.Function;

/**
 * The meters read from a {@link WindowStats} snapshot, shared by the windows and the Kafka binder:
 * open windows and entries (gauges), accepted, late, future and finalized, and the panes' early
 * rows, late updates and retired windows (function counters). Stateless; each reading takes one
 * snapshot.
 */
final class WindowStatsMeters {

  private WindowStatsMeters() {}

  /**
   * Registers the nine meters in {@code registry}, each reading {@code stats.apply(obj)}; {@code
   * stats} must not capture a binder, since the meters hold it strongly.
   */
  static <T> void bind(
      MeterRegistry registry,
      Tags tags,
      T obj,
      Function<? super T, WindowStats> stats,
      BoundMeters meters) {
    meters.add(
        registry,
        Meters.gauge(
            registry,
            WINDOWS_OPEN,
            "Windows not finalized yet, in windows",
            WINDOWS,
            tags,
            obj,
            o -> stats.apply(o).openWindows()));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            ENTRIES_OPEN,
            "(window, key) accumulators held by the open windows, in entries",
            ENTRIES,
            tags,
            obj,
            o -> stats.apply(o).openEntries()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            WINDOWS_FINALIZED,
            "Windows finalized so far, polled or not, in windows",
            WINDOWS,
            tags,
            obj,
            o -> stats.apply(o).finalizedWindows()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            EVENTS_ACCEPTED,
            "Events added to their window, in events",
            EVENTS,
            tags,
            obj,
            o -> stats.apply(o).accepted()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            EVENTS_LATE,
            "Events that went to the late path: behind the watermark, or beyond the"
                + " future-timestamp guard under FutureEventPolicy.LATE, in events",
            EVENTS,
            tags,
            obj,
            o -> stats.apply(o).late()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            EVENTS_FUTURE,
            "Events beyond the future-timestamp guard, whatever the policy, in events",
            EVENTS,
            tags,
            obj,
            o -> stats.apply(o).futureEvents()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            ROWS_EARLY,
            "EARLY rows produced (earlyResults), drained or not, in rows",
            ROWS,
            tags,
            obj,
            o -> stats.apply(o).earlyRows()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            ROWS_LATE,
            "LATE rows produced: events accepted within a window's grace period, in rows",
            ROWS,
            tags,
            obj,
            o -> stats.apply(o).lateUpdates()));
    meters.add(
        registry,
        Meters.counter(
            registry,
            WINDOWS_RETIRED,
            "Windows whose state went for good (windows with panes), in windows",
            WINDOWS,
            tags,
            obj,
            o -> stats.apply(o).retiredWindows()));
  }
}
