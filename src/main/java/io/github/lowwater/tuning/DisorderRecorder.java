package io.github.lowwater.tuning;

import io.github.lowwater.Clock;
import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * Measures disorder as it happens, per source: how far each event lags its source's frontier
 * ({@code F(s) - t}, 0 for an event at or beyond the frontier), the gaps between a source's records
 * on the monotonic clock, and, for the events the caller reports as late, how far behind the
 * watermark they were. {@link #snapshot()} copies the histograms for an {@link Advisor} or a
 * metrics binder.
 *
 * <p><b>Not thread-safe; confine every call but {@link #published()} to one thread</b> (the polling
 * thread). {@link #record(SourceDisorder, long, long)} costs at most two HdrHistogram recordings,
 * and only increments for an in-order event read at the same clock reading as its source's previous
 * record (a few nanoseconds, measured by {@code DisorderRecorderBenchmark}; see {@code
 * docs/tuning.md}); it reads no clock and allocates nothing; {@link #record(SourceDisorder, long)}
 * reads the clock once. No threads are started. Off means not constructed: nothing in the library
 * calls it. Memory: three histograms per source, about 95 KB with the default maxima, allocated by
 * {@link #source(Object)}.
 *
 * <p><b>Standalone.</b> The recorder is fed by the caller, next to the tracker or windows it
 * measures; it is not hooked into {@code WatermarkTracker} (it keeps its own frontier per source,
 * the same rule as the tracker's). Report a late event with {@link #recordLate} when {@code
 * TumblingWindows.add} returns {@code false}.
 *
 * <h2>What is recorded</h2>
 *
 * <ul>
 *   <li><b>Lag</b>, milliseconds: {@code F(s) - t}, with {@code F(s)} the largest event time of the
 *       source before this event; 0 for a source's first event and for any event that raises the
 *       frontier or equals it.
 *   <li><b>Gap</b>, nanoseconds on {@link Clock#monotonicNanos()}: the time since the source's
 *       previous record; none for a source's first record; 0 for records read in one batch at one
 *       clock reading, and for a reading that goes backwards (which is clamped, as the tracker
 *       does).
 *   <li><b>Behind the watermark</b>, milliseconds, for late events only: {@code watermark - t}, 0
 *       if the event was not behind the watermark itself (late because its window had closed).
 * </ul>
 *
 * <p>Values are recorded with two significant digits (within 1 %). A lag or a gap beyond the
 * recorder's maximum ({@link Builder#maxLag}, {@link Builder#maxGap}) is recorded as that maximum.
 *
 * <pre>{@code
 * DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
 * SourceDisorder p0 = recorder.source("p0");
 * recorder.record(p0, 10_000, 0);
 * recorder.record(p0, 7_000, 0); // 3 s behind its frontier
 * Advice advice = Advisor.withTargetLateFraction(1e-4).advise(recorder.snapshot());
 * }</pre>
 */
public final class DisorderRecorder {

  /** The default {@link Builder#maxLag}: 7 days. */
  static final Duration DEFAULT_MAX_LAG = Duration.ofDays(7);

  /** The default {@link Builder#maxGap}: 7 days. */
  static final Duration DEFAULT_MAX_GAP = Duration.ofDays(7);

  /** Significant digits of every histogram: values within 1 %, a few kilobytes per histogram. */
  static final int SIGNIFICANT_DIGITS = 2;

  private final Clock clock;
  private final long maxLagMillis;
  private final long maxGapNanos;
  private final HashMap<Object, SourceDisorder> sources = new HashMap<>();

  /** In registration order, for snapshots that list the sources in a stable order. */
  private final List<SourceDisorder> ordered = new ArrayList<>();

  private volatile DisorderSnapshot published;

  private DisorderRecorder(Builder builder) {
    this.clock = builder.clock == null ? Clock.system() : builder.clock;
    this.maxLagMillis =
        Math.max(
            1,
            TimeMath.toMillisSaturated(builder.maxLag == null ? DEFAULT_MAX_LAG : builder.maxLag));
    this.maxGapNanos =
        Math.max(
            1,
            TimeMath.toNanosSaturated(builder.maxGap == null ? DEFAULT_MAX_GAP : builder.maxGap));
    this.published = DisorderSnapshot.EMPTY;
  }

  /**
   * Returns a builder with the defaults: the system clock, lags and gaps up to 7 days.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  static Histogram histogram(long highestTrackableValue) {
    return new Histogram(Math.max(2, highestTrackableValue), SIGNIFICANT_DIGITS);
  }

  /**
   * Returns the handle of a source, creating its histograms on first use. Keep it and pass it to
   * {@link #record(SourceDisorder, long, long)}.
   *
   * @param key the source, for example a Kafka {@code TopicPartition}
   * @return the source's handle
   * @throws NullPointerException if {@code key} is null
   */
  public SourceDisorder source(Object key) {
    Objects.requireNonNull(key, "key");
    SourceDisorder s = sources.get(key);
    if (s == null) {
      s = new SourceDisorder(key, this, maxLagMillis, maxGapNanos);
      sources.put(key, s);
      ordered.add(s);
    }
    return s;
  }

  /**
   * Records an event of {@code source}, reading the clock once for its gap.
   *
   * @param source a handle from this recorder's {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} belongs to another recorder
   */
  public void record(SourceDisorder source, long eventTimeMillis) {
    record(source, eventTimeMillis, clock.monotonicNanos());
  }

  /**
   * Records an event of {@code source} read at {@code nowNanos}, a reading of the recorder's
   * monotonic clock taken once per poll (as {@code CachedClock} does): the cheapest way to record.
   *
   * @param source a handle from this recorder's {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param nowNanos the monotonic clock when the event was read
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} belongs to another recorder
   */
  public void record(SourceDisorder source, long eventTimeMillis, long nowNanos) {
    requireOwn(source);
    source.record(eventTimeMillis, nowNanos);
  }

  /**
   * Records that an event of {@code source} was late, and how far behind {@code watermarkMillis} it
   * was. Call it in addition to {@link #record}, for the events the windows rejected.
   *
   * @param source a handle from this recorder's {@link #source(Object)}
   * @param eventTimeMillis the late event's time in epoch milliseconds
   * @param watermarkMillis the watermark it was judged against
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} belongs to another recorder
   */
  public void recordLate(SourceDisorder source, long eventTimeMillis, long watermarkMillis) {
    requireOwn(source);
    source.recordLate(eventTimeMillis, watermarkMillis);
  }

  private void requireOwn(SourceDisorder source) {
    if (!source.belongsTo(this)) { // a null source throws the NullPointerException here
      throw new IllegalArgumentException("source belongs to another recorder: " + source.key());
    }
  }

  /**
   * Returns the number of sources seen. Writer thread only.
   *
   * @return the number of sources
   */
  public int sources() {
    return ordered.size();
  }

  /**
   * Copies every histogram into an immutable snapshot. Writer thread only; allocates the copies
   * (O(sources) histograms of a few kilobytes each): call it when advice or metrics are wanted, not
   * per event.
   *
   * @return the distributions recorded so far
   */
  public DisorderSnapshot snapshot() {
    return DisorderSnapshot.of(ordered, maxLagMillis, maxGapNanos);
  }

  /**
   * Takes a {@link #snapshot()} and publishes it to {@link #published()}, for a metrics reporter on
   * another thread. Writer thread only; call it as often as the meters should change (once per
   * poll, or every few seconds).
   *
   * @return the published snapshot
   */
  public DisorderSnapshot publish() {
    DisorderSnapshot s = snapshot();
    published = s;
    return s;
  }

  /**
   * Returns the last snapshot {@link #publish() published}, or an empty one. Any thread.
   *
   * @return the last published snapshot
   */
  public DisorderSnapshot published() {
    return published;
  }

  @Override
  public String toString() {
    return "DisorderRecorder{sources=" + ordered.size() + "}";
  }

  /**
   * Builds a {@link DisorderRecorder}. Every option may be set once; unset options keep their
   * defaults. Not thread-safe.
   */
  public static final class Builder {
    private Clock clock;
    private Duration maxLag;
    private Duration maxGap;

    private Builder() {}

    /**
     * Sets the clock whose monotonic reading {@link #record(SourceDisorder, long)} reads for the
     * gaps. Default {@link Clock#system()}; pass the tracker's clock.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder clock(Clock clock) {
      Objects.requireNonNull(clock, "clock");
      Checks.requireUnset(this.clock == null, "clock", this.clock);
      this.clock = clock;
      return this;
    }

    /**
     * Sets the largest lag (and distance behind the watermark) recorded as itself; larger ones are
     * recorded as this. Default 7 days. Converted to milliseconds once, saturating.
     *
     * @param maxLag the largest lag, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code maxLag} is null
     * @throws IllegalArgumentException if {@code maxLag} is zero or negative
     * @throws IllegalStateException if it was already set
     */
    public Builder maxLag(Duration maxLag) {
      Checks.requirePositive(maxLag, "maxLag");
      Checks.requireUnset(this.maxLag == null, "maxLag", this.maxLag);
      this.maxLag = maxLag;
      return this;
    }

    /**
     * Sets the largest gap recorded as itself; larger ones are recorded as this. Default 7 days.
     * Converted to nanoseconds once, saturating.
     *
     * @param maxGap the largest gap, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code maxGap} is null
     * @throws IllegalArgumentException if {@code maxGap} is zero or negative
     * @throws IllegalStateException if it was already set
     */
    public Builder maxGap(Duration maxGap) {
      Checks.requirePositive(maxGap, "maxGap");
      Checks.requireUnset(this.maxGap == null, "maxGap", this.maxGap);
      this.maxGap = maxGap;
      return this;
    }

    /**
     * Builds the recorder.
     *
     * @return a new recorder with no source
     */
    public DisorderRecorder build() {
      return new DisorderRecorder(this);
    }
  }
}
