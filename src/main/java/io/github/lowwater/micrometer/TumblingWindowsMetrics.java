package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.MILLISECONDS;
import static io.github.lowwater.micrometer.Meters.SOURCES;
import static io.github.lowwater.micrometer.Meters.SOURCES_ACTIVE;
import static io.github.lowwater.micrometer.Meters.WATERMARK_LAG;
import static io.github.lowwater.micrometer.Meters.WATERMARK_LAG_DESCRIPTION;

import io.github.lowwater.window.TumblingWindows;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Binds the meters of a {@link TumblingWindows}: {@code lowwater.watermark.lag}, {@code
 * lowwater.sources.active}, the open windows and entries, and the accepted, late, future and
 * finalized counts (see {@code docs/metrics.md}).
 *
 * <p>Thread-safe: {@link #bindTo} and {@link #close} may be called from any thread. The registry
 * reads the meters on its own thread, through the windows' any-thread readings only ({@link
 * TumblingWindows#watermark()}, {@link TumblingWindows#watermarkLagMillis()}, {@link
 * TumblingWindows#activeSources()}, {@link TumblingWindows#stats()}); a reading costs O(1), and the
 * counts allocate one {@link io.github.lowwater.window.WindowStats} snapshot each. Binding costs
 * nothing on the windows' hot path.
 *
 * <p>The gauges and counters hold the windows weakly (Micrometer's default), so that a registry
 * never keeps them alive; this binder holds them strongly, so the meters keep reporting while the
 * windows or the binder is reachable. {@link #close()} removes the meters from every registry this
 * binder was bound to.
 *
 * <pre>{@code
 * TumblingWindows<String, Long, Long> windows =
 *     TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()).build();
 * new TumblingWindowsMetrics(windows, Tags.of("pipeline", "arrivals")).bindTo(registry);
 * }</pre>
 */
public final class TumblingWindowsMetrics implements MeterBinder, AutoCloseable {

  /** Held strongly, so that the weakly held meters report while this binder is reachable. */
  private final TumblingWindows<?, ?, ?> windows;

  private final Tags tags;
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final BoundMeters meters = new BoundMeters();

  /**
   * Creates a binder for {@code windows} without extra tags.
   *
   * @param windows the windows to measure
   * @throws NullPointerException if {@code windows} is null
   */
  public TumblingWindowsMetrics(TumblingWindows<?, ?, ?> windows) {
    this(windows, Tags.empty());
  }

  /**
   * Creates a binder for {@code windows} whose meters all carry {@code tags}, for example the
   * pipeline's name; give each instance bound to one registry different tags.
   *
   * @param windows the windows to measure
   * @param tags the tags of every meter, copied
   * @throws NullPointerException if {@code windows} or {@code tags} is null
   */
  public TumblingWindowsMetrics(TumblingWindows<?, ?, ?> windows, Iterable<Tag> tags) {
    this.windows = Objects.requireNonNull(windows, "windows");
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
        Meters.gauge(
            registry,
            WATERMARK_LAG,
            WATERMARK_LAG_DESCRIPTION,
            MILLISECONDS,
            tags,
            windows,
            TumblingWindowsMetrics::lagMillis));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            SOURCES_ACTIVE,
            "Sources (partitions) active at the last re-evaluation, in sources",
            SOURCES,
            tags,
            windows,
            TumblingWindows::activeSources));
    WindowStatsMeters.bind(registry, tags, windows, TumblingWindows::stats, meters);
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

  /**
   * The windows' own lag (their tracker's clock), NaN without a watermark or after the end of the
   * input. The watermark is read after the lag: it never moves backwards, so a lag computed from
   * {@code Long.MIN_VALUE} shows as {@code Long.MAX_VALUE} and one from a finished input is seen.
   */
  private static double lagMillis(TumblingWindows<?, ?, ?> w) {
    long lag = w.watermarkLagMillis();
    if (lag == Long.MAX_VALUE || w.watermark() == Long.MAX_VALUE) {
      return Double.NaN;
    }
    return lag;
  }
}
