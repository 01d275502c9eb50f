package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.EVENTS;
import static io.github.lowwater.micrometer.Meters.MILLISECONDS;

import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.Distribution;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Binds the disorder histograms of a {@link DisorderRecorder}, over all its sources, as Micrometer
 * percentile gauges: {@code lowwater.disorder.lag.percentile}, {@code
 * lowwater.disorder.gap.percentile} and {@code lowwater.disorder.late.behind.percentile}, each
 * tagged {@code phi} = 0.5, 0.9, 0.99, 0.999 and 1 (the maximum), in milliseconds, and {@code
 * lowwater.disorder.events}, a function counter (see {@code docs/metrics.md}). The shape is
 * Micrometer's own for client-side percentiles ({@code <name>.percentile} with a {@code phi} tag).
 *
 * <p>The meters read {@link DisorderRecorder#published()}, the last snapshot the polling thread
 * {@linkplain DisorderRecorder#publish() published}: call {@code publish()} from the polling loop
 * as often as the meters should move (once per poll, or every few seconds). Before the first
 * publication, and for a distribution with no value, the gauges read NaN. Per-source tags are left
 * out on purpose (one series per partition and percentile); a {@link
 * io.github.lowwater.tuning.DisorderSnapshot} has the per-source distributions.
 *
 * <p>Thread-safe: {@link #bindTo} and {@link #close} may be called from any thread. A reading costs
 * O(histogram buckets) on the registry's thread and nothing on the polling thread. The gauges hold
 * the recorder weakly; this binder holds it strongly.
 *
 * <pre>{@code
 * DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
 * new DisorderMetrics(recorder, Tags.of("pipeline", "arrivals")).bindTo(registry);
 * }</pre>
 */
public final class DisorderMetrics implements MeterBinder, AutoCloseable {

  static final String LAG = "lowwater.disorder.lag.percentile";
  static final String GAP = "lowwater.disorder.gap.percentile";
  static final String LATE_BEHIND = "lowwater.disorder.late.behind.percentile";
  static final String DISORDER_EVENTS = "lowwater.disorder.events";

  /** The percentiles bound, as Micrometer's {@code phi} in {@code [0, 1]}. */
  static final double[] PHIS = {0.5, 0.9, 0.99, 0.999, 1};

  private static final double NANOS_PER_MILLI = 1e6;

  private final DisorderRecorder recorder;
  private final Tags tags;
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final BoundMeters meters = new BoundMeters();

  /**
   * Creates a binder for {@code recorder} without extra tags.
   *
   * @param recorder the recorder to measure
   * @throws NullPointerException if {@code recorder} is null
   */
  public DisorderMetrics(DisorderRecorder recorder) {
    this(recorder, Tags.empty());
  }

  /**
   * Creates a binder for {@code recorder} whose meters all carry {@code tags}.
   *
   * @param recorder the recorder to measure
   * @param tags the tags of every meter, copied; not {@code phi}
   * @throws NullPointerException if {@code recorder} or {@code tags} is null
   * @throws IllegalArgumentException if {@code tags} has the key {@code phi}
   */
  public DisorderMetrics(DisorderRecorder recorder, Iterable<Tag> tags) {
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    for (Tag t : this.tags) {
      if (t.getKey().equals("phi")) {
        throw new IllegalArgumentException("tags must not have the key phi: " + this.tags);
      }
    }
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
    for (double phi : PHIS) {
      percentile(
          registry,
          LAG,
          "How far events lagged their source's frontier, in milliseconds",
          phi,
          s -> s.published().lagMillis(),
          1);
      percentile(
          registry,
          GAP,
          "The gaps between records of one source on the monotonic clock, in milliseconds",
          phi,
          s -> s.published().gapNanos(),
          NANOS_PER_MILLI);
      percentile(
          registry,
          LATE_BEHIND,
          "How far late events were behind the watermark, in milliseconds",
          phi,
          s -> s.published().lateBehindMillis(),
          1);
    }
    meters.add(
        registry,
        Meters.counter(
            registry,
            DISORDER_EVENTS,
            "Events recorded by the disorder recorder, as of its last publication, in events",
            EVENTS,
            tags,
            recorder,
            r -> r.published().events()));
  }

  private void percentile(
      MeterRegistry registry,
      String name,
      String description,
      double phi,
      Function<DisorderRecorder, Distribution> distribution,
      double divisor) {
    meters.add(
        registry,
        Meters.gauge(
            registry,
            name,
            description,
            MILLISECONDS,
            tags.and("phi", Double.toString(phi)),
            recorder,
            r -> valueAt(distribution.apply(r), phi, divisor)));
  }

  /** The value at {@code phi} divided by {@code divisor}, or NaN for an empty distribution. */
  static double valueAt(Distribution d, double phi, double divisor) {
    return d.count() == 0 ? Double.NaN : d.valueAtPercentile(phi * 100) / divisor;
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
