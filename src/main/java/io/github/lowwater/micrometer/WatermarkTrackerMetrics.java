package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.EVENTS;
import static io.github.lowwater.micrometer.Meters.EVENTS_FUTURE;
import static io.github.lowwater.micrometer.Meters.SOURCES;
import static io.github.lowwater.micrometer.Meters.SOURCES_ACTIVE;
import static io.github.lowwater.micrometer.Meters.SOURCES_SUSPECT_TIME_UNIT;

import io.github.lowwater.WatermarkTracker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Binds the meters of a {@link WatermarkTracker}: {@code lowwater.watermark.lag}, {@code
 * lowwater.sources.active}, {@code lowwater.events.future} and {@code
 * lowwater.sources.suspect.time.unit} (see {@code docs/metrics.md}).
 *
 * <p>Thread-safe: {@link #bindTo} and {@link #close} may be called from any thread. The registry
 * reads the meters on its own thread, through the tracker's any-thread readings only ({@link
 * WatermarkTracker#watermark()}, {@link WatermarkTracker#activeSources()}, {@link
 * WatermarkTracker#futureEvents()}, {@link WatermarkTracker#suspectTimeUnits()} and its clock's
 * wall time); a reading costs O(1) and allocates nothing. Binding costs nothing on the tracker's
 * hot path.
 *
 * <p>The gauges hold the tracker weakly (Micrometer's default), so that a registry never keeps it
 * alive; this binder holds it strongly, so the meters keep reporting while the tracker or the
 * binder is reachable. {@link #close()} removes the meters from every registry this binder was
 * bound to.
 *
 * <pre>{@code
 * WatermarkTracker tracker = WatermarkTracker.builder().build();
 * new WatermarkTrackerMetrics(tracker, Tags.of("pipeline", "arrivals")).bindTo(registry);
 * }</pre>
 */
public final class WatermarkTrackerMetrics implements MeterBinder, AutoCloseable {

  /** Held strongly, so that the weakly held gauges report while this binder is reachable. */
  private final WatermarkTracker tracker;

  private final Tags tags;
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final BoundMeters meters = new BoundMeters();

  /**
   * Creates a binder for {@code tracker} without extra tags.
   *
   * @param tracker the tracker to measure
   * @throws NullPointerException if {@code tracker} is null
   */
  public WatermarkTrackerMetrics(WatermarkTracker tracker) {
    this(tracker, Tags.empty());
  }

  /**
   * Creates a binder for {@code tracker} whose meters all carry {@code tags}, for example the
   * pipeline's name; give each tracker bound to one registry different tags.
   *
   * @param tracker the tracker to measure
   * @param tags the tags of every meter, copied
   * @throws NullPointerException if {@code tracker} or {@code tags} is null
   */
  public WatermarkTrackerMetrics(WatermarkTracker tracker, Iterable<Tag> tags) {
    this.tracker = Objects.requireNonNull(tracker, "tracker");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
  }

  /**
   * Registers the meters in {@code registry}; binding to the same registry twice changes nothing.
   *
   * @param registry the registry
   * @throws NullPointerException if {@code registry} is null
   */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    if (Meters.containsIdentical(registries, registry)) {
      return;
    }
    registries.add(registry);
    meters.add(
        registry,
        Meters.watermarkLag(
            registry, tags, tracker, t -> t.clock().wallMillis(), WatermarkTracker::watermark));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            SOURCES_ACTIVE,
            "Sources (partitions) active at the last re-evaluation, in sources",
            SOURCES,
            tags,
            tracker,
            WatermarkTracker::activeSources));
    meters.add(
        registry,
        Meters.counter(
            registry,
            EVENTS_FUTURE,
            "Events the future-timestamp guard kept from moving a frontier, in events",
            EVENTS,
            tags,
            tracker,
            WatermarkTracker::futureEvents));
    meters.add(
        registry,
        Meters.counter(
            registry,
            SOURCES_SUSPECT_TIME_UNIT,
            "Sources whose first event time looked like epoch seconds or microseconds rather than"
                + " milliseconds (each logged once at WARN), in sources",
            SOURCES,
            tags,
            tracker,
            WatermarkTracker::suspectTimeUnits));
  }

  /**
   * Removes every meter this binder registered from every registry it was bound to. The binder may
   * be bound again afterwards. Idempotent.
   */
  @Override
  public synchronized void close() {
    meters.removeAll();
    registries.clear();
  }
}
