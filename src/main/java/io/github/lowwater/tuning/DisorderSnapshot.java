package io.github.lowwater.tuning;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * The disorder a {@link DisorderRecorder} measured up to one moment: per source and over all
 * sources, the {@link Distribution}s of the lag behind the frontier (milliseconds), of the gaps
 * between records (nanoseconds) and of how far late events were behind the watermark
 * (milliseconds), and how long the recording lasted on the monotonic clock.
 *
 * <p>Immutable and thread-safe; made by {@link DisorderRecorder#snapshot()}.
 */
public final class DisorderSnapshot {

  /** The snapshot of a recorder that saw nothing. */
  static final DisorderSnapshot EMPTY =
      new DisorderSnapshot(
          Map.of(),
          new Distribution(DisorderRecorder.histogram(2)),
          new Distribution(DisorderRecorder.histogram(2)),
          new Distribution(DisorderRecorder.histogram(2)),
          0);

  /** One source's three distributions. */
  private record PerSource(Distribution lag, Distribution gaps, Distribution lateBehind) {}

  private final Map<Object, PerSource> bySource;
  private final Distribution lag;
  private final Distribution gaps;
  private final Distribution lateBehind;
  private final long observedNanos;

  private DisorderSnapshot(
      Map<Object, PerSource> bySource,
      Distribution lag,
      Distribution gaps,
      Distribution lateBehind,
      long observedNanos) {
    this.bySource = bySource;
    this.lag = lag;
    this.gaps = gaps;
    this.lateBehind = lateBehind;
    this.observedNanos = observedNanos;
  }

  /** Copies the sources' histograms and merges them. */
  static DisorderSnapshot of(List<SourceDisorder> sources, long maxLagMillis, long maxGapNanos) {
    Map<Object, PerSource> bySource = new LinkedHashMap<>();
    Histogram lag = DisorderRecorder.histogram(maxLagMillis);
    Histogram gaps = DisorderRecorder.histogram(maxGapNanos);
    Histogram late = DisorderRecorder.histogram(maxLagMillis);
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (SourceDisorder s : sources) {
      Histogram sourceLag = s.lagCopy();
      Histogram sourceGaps = s.gapCopy();
      lag.add(sourceLag);
      gaps.add(sourceGaps);
      late.add(s.lateBehindMillis);
      bySource.put(
          s.key(),
          new PerSource(
              new Distribution(sourceLag),
              new Distribution(sourceGaps),
              new Distribution(s.lateBehindMillis.copy())));
      if (s.lastSeenNanos != SourceDisorder.NEVER) {
        first = Math.min(first, s.firstSeenNanos);
        last = Math.max(last, s.lastSeenNanos);
      }
    }
    long observed = first > last ? 0 : last - first; // both readings of one monotonic clock
    return new DisorderSnapshot(
        Collections.unmodifiableMap(bySource),
        new Distribution(lag),
        new Distribution(gaps),
        new Distribution(late),
        observed);
  }

  /**
   * Returns a snapshot of distributions over all sources made by hand, for tests of an advisor.
   *
   * @param lag the lags behind the frontier, milliseconds
   * @param gaps the gaps between records, nanoseconds
   * @param lateBehind how far late events were behind the watermark, milliseconds
   * @param observedNanos how long the recording lasted
   * @return a snapshot with those distributions and no per-source ones
   */
  static DisorderSnapshot of(
      Distribution lag, Distribution gaps, Distribution lateBehind, long observedNanos) {
    return new DisorderSnapshot(Map.of(), lag, gaps, lateBehind, observedNanos);
  }

  /**
   * Returns the sources recorded, in the order they were first seen.
   *
   * @return the source keys, unmodifiable
   */
  public List<Object> sources() {
    return Collections.unmodifiableList(new ArrayList<>(bySource.keySet()));
  }

  /**
   * Returns the number of events recorded over all sources.
   *
   * @return the event count
   */
  public long events() {
    return lag.count();
  }

  /**
   * Returns how long the recording lasted: from the first record of any source to the last record
   * of any source, on the monotonic clock.
   *
   * @return the observed time in nanoseconds, {@code >= 0}
   */
  public long observedNanos() {
    return observedNanos;
  }

  /**
   * Returns the lags behind the frontier over all sources, in milliseconds.
   *
   * @return the lag distribution
   */
  public Distribution lagMillis() {
    return lag;
  }

  /**
   * Returns the gaps between records of one source, over all sources, in nanoseconds.
   *
   * @return the gap distribution
   */
  public Distribution gapNanos() {
    return gaps;
  }

  /**
   * Returns how far late events were behind the watermark, over all sources, in milliseconds.
   *
   * @return the distribution of late events' distance behind the watermark
   */
  public Distribution lateBehindMillis() {
    return lateBehind;
  }

  /**
   * Returns one source's lags behind its frontier, in milliseconds.
   *
   * @param source a source key
   * @return its lag distribution
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} was not recorded
   */
  public Distribution lagMillis(Object source) {
    return of(source).lag();
  }

  /**
   * Returns the gaps between one source's records, in nanoseconds.
   *
   * @param source a source key
   * @return its gap distribution
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} was not recorded
   */
  public Distribution gapNanos(Object source) {
    return of(source).gaps();
  }

  /**
   * Returns how far one source's late events were behind the watermark, in milliseconds.
   *
   * @param source a source key
   * @return its distribution of late events' distance behind the watermark
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} was not recorded
   */
  public Distribution lateBehindMillis(Object source) {
    return of(source).lateBehind();
  }

  private PerSource of(Object source) {
    Objects.requireNonNull(source, "source");
    PerSource p = bySource.get(source);
    if (p == null) {
      throw new IllegalArgumentException("source was not recorded: " + source);
    }
    return p;
  }

  @Override
  public String toString() {
    return "DisorderSnapshot{sources="
        + bySource.size()
        + ", events="
        + events()
        + ", observedNanos="
        + observedNanos
        + ", lagMillis="
        + lag
        + "}";
  }
}
