package io.github.lowwater.window;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;

/**
 * The event-time options that every builder of windows shares: the allowed lateness, the idle
 * timeout, the clock, the watermark strategy and the future-timestamp guard, checked and documented
 * once. The window kinds' builders extend it through {@link WindowOptions}, and so does {@code
 * KafkaWindows.Builder}, which hands these options to each partition's windows. Every option is
 * optional and may be set at most once: setting one twice throws {@link IllegalStateException}. A
 * rejected call leaves the builder unchanged. Not thread-safe.
 *
 * <p>Not meant to be extended outside Lowwater: the constructor is protected only so that the Kafka
 * integration, in its own package, can share it.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class EventTimeOptions<B extends EventTimeOptions<B>> {

  private Duration allowedLateness;
  private Duration idleTimeout;
  private Clock clock;
  private WatermarkStrategy strategy;
  private Duration maxFutureSkew;
  private FutureEventPolicy futureEventPolicy;
  private Duration earlyResults;
  private Duration grace;
  private Boolean perSourceLateness;

  /** For Lowwater's own builders. */
  protected EventTimeOptions() {}

  @SuppressWarnings("unchecked") // B is the concrete builder by construction
  private B self() {
    return (B) this;
  }

  /**
   * Sets the allowed lateness: the watermark is the minimum over the active sources of their
   * frontier minus it; see {@link WatermarkTracker.Builder#allowedLateness(Duration)}. Default 120
   * seconds.
   *
   * @param allowedLateness the allowed lateness, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code allowedLateness} is null
   * @throws IllegalArgumentException if {@code allowedLateness} is negative
   * @throws IllegalStateException if the allowed lateness was already set
   */
  public B allowedLateness(Duration allowedLateness) {
    Checks.requireNonNegative(allowedLateness, "allowedLateness");
    Checks.requireUnset(this.allowedLateness == null, "allowedLateness", this.allowedLateness);
    this.allowedLateness = allowedLateness;
    return self();
  }

  /**
   * Sets the idle timeout, after which a silent source (a partition, in Kafka) that is not paused
   * stops holding the watermark; see {@link WatermarkTracker.Builder#idleTimeout(Duration)}.
   * Default 120 seconds.
   *
   * @param idleTimeout the idle timeout, {@code > 0}
   * @return this builder
   * @throws NullPointerException if {@code idleTimeout} is null
   * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
   * @throws IllegalStateException if the idle timeout was already set
   */
  public B idleTimeout(Duration idleTimeout) {
    Checks.requirePositive(idleTimeout, "idleTimeout");
    Checks.requireUnset(this.idleTimeout == null, "idleTimeout", this.idleTimeout);
    this.idleTimeout = idleTimeout;
    return self();
  }

  /**
   * Sets the clock. Default {@link Clock#system()}. Tests pass a {@link
   * io.github.lowwater.ManualClock}.
   *
   * @param clock the clock
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   * @throws IllegalStateException if the clock was already set
   */
  public B clock(Clock clock) {
    Objects.requireNonNull(clock, "clock");
    Checks.requireUnset(this.clock == null, "clock", this.clock);
    this.clock = clock;
    return self();
  }

  /**
   * Sets how events move a source's contribution to the watermark; see {@link
   * WatermarkTracker.Builder#strategy}. Default {@link WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}.
   *
   * @param strategy the strategy
   * @return this builder
   * @throws NullPointerException if {@code strategy} is null
   * @throws IllegalStateException if the strategy was already set
   */
  public B strategy(WatermarkStrategy strategy) {
    Objects.requireNonNull(strategy, "strategy");
    Checks.requireUnset(this.strategy == null, "strategy", this.strategy);
    this.strategy = strategy;
    return self();
  }

  /**
   * Turns on the future-timestamp guard: an event more than {@code maxFutureSkew} ahead of the
   * clock's wall time does not move its source's frontier (one device with a fast clock cannot make
   * the in-order events after it late), is counted ({@code lowwater.events.future}), and is handled
   * by the {@link #futureEventPolicy(FutureEventPolicy) policy}. Off by default; costs one
   * wall-clock read per event when on (use a {@link io.github.lowwater.CachedClock}).
   *
   * @param maxFutureSkew how far ahead of the wall clock an event may be, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code maxFutureSkew} is null
   * @throws IllegalArgumentException if {@code maxFutureSkew} is negative
   * @throws IllegalStateException if the guard was already set
   */
  public B maxFutureSkew(Duration maxFutureSkew) {
    Checks.requireNonNegative(maxFutureSkew, "maxFutureSkew");
    Checks.requireUnset(this.maxFutureSkew == null, "maxFutureSkew", this.maxFutureSkew);
    this.maxFutureSkew = maxFutureSkew;
    return self();
  }

  /**
   * Sets what happens to an event beyond the future-timestamp guard. Default {@link
   * FutureEventPolicy#ACCEPT}. Has no effect without {@link #maxFutureSkew(Duration)}.
   *
   * @param futureEventPolicy the policy
   * @return this builder
   * @throws NullPointerException if {@code futureEventPolicy} is null
   * @throws IllegalStateException if the policy was already set
   */
  public B futureEventPolicy(FutureEventPolicy futureEventPolicy) {
    Objects.requireNonNull(futureEventPolicy, "futureEventPolicy");
    Checks.requireUnset(
        this.futureEventPolicy == null, "futureEventPolicy", this.futureEventPolicy);
    this.futureEventPolicy = futureEventPolicy;
    return self();
  }

  /**
   * Turns on early results: an open window emits an {@link Timing#EARLY} row for each key whose
   * value may have changed since its last row, each time the newest event time these windows have
   * seen (in Kafka, per partition: the partition's frontier) first reaches {@code start + k *
   * period} below its end ({@code k >= 1}; semantics rule 50). Driven by event time only, so that
   * the same events give the same rows, after a restart and on another owner. Off by default. For
   * session windows the marks are those of a session's current span, and, as with a grace period,
   * an event is then late iff {@code t + gap + grace <= watermark}, even if it would join a live
   * session (rule 56). Sliding windows start at record times, so their marks are the multiples
   * {@code k * period} of event time that fall inside an open window (rule 79).
   *
   * @param period the period, at least one millisecond; converted once, saturating
   * @return this builder
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if {@code period} is shorter than one millisecond
   * @throws IllegalStateException if early results were already set
   */
  public B earlyResults(Duration period) {
    Checks.requireMillis(period, "earlyResults");
    Checks.requireUnset(this.earlyResults == null, "earlyResults", this.earlyResults);
    this.earlyResults = period;
    return self();
  }

  /**
   * Sets the grace period: after its on-time row a window keeps taking events while {@code
   * watermark < end + grace}, each one giving a {@link Timing#LATE} row with the whole value
   * (semantics rule 52); at {@code end + grace} it retires and later events are late. Unlike the
   * allowed lateness, which delays every window's on-time row, the grace period keeps the on-time
   * row prompt and pays with extra rows and the state of {@code grace} more event time. Default 0:
   * a window retires at its on-time row. For session windows with a grace period above 0 or early
   * results, an event is late iff {@code t + gap + grace <= watermark}, even if it would join a
   * live session (rule 56). For sliding windows an event is late iff {@code t + 1 + grace <=
   * watermark}, and one in its grace period also gives a row in each window it makes (rule 79).
   * With {@link #perSourceLateness()} (tumbling and hopping windows, and {@code KafkaWindows} in
   * {@code CO_PARTITIONED}, a reconciliation in a group) late updates are held instead: each key
   * gets one final {@code LATE} row when the window retires, so that the rows do not depend on how
   * the sources interleave (rule 72).
   *
   * @param grace the grace period, {@code >= 0}; converted once, saturating
   * @return this builder
   * @throws NullPointerException if {@code grace} is null
   * @throws IllegalArgumentException if {@code grace} is negative
   * @throws IllegalStateException if the grace period was already set
   */
  public B grace(Duration grace) {
    Checks.requireNonNegative(grace, "grace");
    Checks.requireUnset(this.grace == null, "grace", this.grace);
    this.grace = grace;
    return self();
  }

  /**
   * Judges each event against its own source's watermark instead of the shared one (semantics rule
   * 72): an event is late iff its window ends at or below its source's newest time less the allowed
   * lateness ({@link WatermarkTracker#sourceWatermark}), or the shared watermark if that is higher
   * (a quiet-period advance, {@code finish}); windows still close on the shared watermark, the
   * minimum over the sources. Each verdict then depends on its own source's events alone, so every
   * interleaving of the same sources' events gives the same rows: what a consumer group needs when
   * one set of windows reads several partitions (two topics' partition {@code i} in {@code
   * KafkaWindows}' co-partitioned scope). A fast source's events become late as they would in
   * windows of their own, however far the slow sources lag. Off by default. Tumbling, hopping (kept
   * whole, so that an event stays out of the windows its own source has passed) and sliding
   * windows, without early results: a session can still merge with an event its own source has
   * passed, and an early row carries a value as of the moment it fires; {@code build()} refuses
   * those combinations.
   *
   * <p>With a {@link #grace(Duration) grace period} {@code G} (tumbling and hopping windows), late
   * updates are held: an event whose window ends at or below its own source's watermark, less than
   * {@code G} below it, goes into the window's held correction, even before the window's on-time
   * row; the on-time row (not final) holds the on-time events only, when the shared watermark
   * reaches the end; when the shared watermark reaches {@code end + G} the window retires, and each
   * key with a held late update gets one {@code LATE} row, final, with the whole value and its next
   * index. Every row and index then depends on each source's own events alone. The cost: a
   * correction comes when the grace period ends, not at once.
   *
   * @return this builder
   * @throws IllegalStateException if it was already set (and at {@code build()}, for session
   *     windows, with early results, or with a grace period on sliding windows)
   */
  public B perSourceLateness() {
    Checks.requireUnset(
        this.perSourceLateness == null, "perSourceLateness", this.perSourceLateness);
    this.perSourceLateness = Boolean.TRUE;
    return self();
  }

  /**
   * Whether late updates judged per source are held until their window retires (rule 72). Only a
   * test turns it off, to show that a {@code LATE} row per event at once depends on how the sources
   * interleave.
   */
  boolean holdLateUpdates = true;

  /** Returns whether {@link #perSourceLateness()} was set. */
  final boolean perSourceLatenessSet() {
    return perSourceLateness != null;
  }

  /**
   * Refuses {@link #perSourceLateness()} where it does not yet keep its promise.
   *
   * @param kind the kind being built, for the message
   * @param supported whether the kind supports it
   * @param graceSupported whether the kind holds late updates until its windows retire (rule 72)
   */
  final void checkPerSourceLateness(String kind, boolean supported, boolean graceSupported) {
    if (perSourceLateness == null) {
      return;
    }
    if (!supported) {
      throw new IllegalStateException(
          "perSourceLateness is for tumbling, hopping and sliding windows, not "
              + kind
              + " (semantics rule 72)");
    }
    if (earlyResults != null) {
      throw new IllegalStateException(
          "perSourceLateness does not combine with early results (semantics rule 72): an early"
              + " row's value depends on how the sources interleave; earlyResults "
              + earlyResults);
    }
    if (!graceSupported && graceMillis() > 0) {
      throw new IllegalStateException(
          "perSourceLateness with a grace period is for tumbling and hopping windows, not "
              + kind
              + " (semantics rule 72): grace "
              + grace);
    }
  }

  /** Returns the period of early results in milliseconds, 0 for none. */
  final long earlyMillis() {
    return earlyResults == null ? 0 : TimeMath.toMillisSaturated(earlyResults);
  }

  /** Returns the grace period in milliseconds. */
  final long graceMillis() {
    return grace == null ? 0 : TimeMath.toMillisSaturated(grace);
  }

  /** Returns whether the rows are panes: early results or a grace period above 0. */
  final boolean paned() {
    return earlyMillis() > 0 || graceMillis() > 0;
  }

  /**
   * The clock that was set, or {@code null}: for a builder that wraps it (the Kafka driver reads it
   * once per poll through a {@link io.github.lowwater.CachedClock}).
   *
   * @return the clock, or {@code null} when not set
   */
  protected final Clock configuredClock() {
    return clock;
  }

  /**
   * Whether {@link #perSourceLateness()} was set: for a builder that sets it for its own reasons.
   *
   * @return {@code true} if set
   */
  protected final boolean perSourceLatenessConfigured() {
    return perSourceLateness != null;
  }

  /**
   * Whether the idle timeout was set: for a builder that refuses it in some configurations.
   *
   * @return {@code true} if set
   */
  protected final boolean idleTimeoutConfigured() {
    return idleTimeout != null;
  }

  /**
   * Whether early results were set: for a builder that refuses them in some configurations.
   *
   * @return {@code true} if set
   */
  protected final boolean earlyResultsConfigured() {
    return earlyResults != null;
  }

  /**
   * Whether a grace period was set: for a builder that refuses it in some configurations.
   *
   * @return {@code true} if set
   */
  protected final boolean graceConfigured() {
    return grace != null;
  }

  /**
   * Sets on {@code target} every option set here, except the clock (the caller's to wrap): how a
   * builder hands its options to the windows it configures. {@code target}'s own options must not
   * be set yet.
   *
   * @param target a fresh builder
   * @param <T> its type
   * @return {@code target}
   * @throws IllegalStateException if an option set here is already set on {@code target}
   */
  protected final <T extends EventTimeOptions<T>> T copyOptionsTo(T target) {
    if (allowedLateness != null) {
      target.allowedLateness(allowedLateness);
    }
    if (idleTimeout != null) {
      target.idleTimeout(idleTimeout);
    }
    if (strategy != null) {
      target.strategy(strategy);
    }
    if (maxFutureSkew != null) {
      target.maxFutureSkew(maxFutureSkew);
    }
    if (futureEventPolicy != null) {
      target.futureEventPolicy(futureEventPolicy);
    }
    if (earlyResults != null) {
      target.earlyResults(earlyResults);
    }
    if (grace != null) {
      target.grace(grace);
    }
    if (perSourceLateness != null) {
      target.perSourceLateness();
    }
    return target;
  }

  /** A new tracker builder with these options, the clock included; the core's defaults else. */
  final WatermarkTracker.Builder trackerBuilder() {
    WatermarkTracker.Builder b = WatermarkTracker.builder();
    if (allowedLateness != null) {
      b.allowedLateness(allowedLateness);
    }
    if (idleTimeout != null) {
      b.idleTimeout(idleTimeout);
    }
    if (clock != null) {
      b.clock(clock);
    }
    if (strategy != null) {
      b.strategy(strategy);
    }
    if (maxFutureSkew != null) {
      b.maxFutureSkew(maxFutureSkew);
    }
    return b;
  }

  /** The future-event policy, {@link FutureEventPolicy#ACCEPT} when not set. */
  final FutureEventPolicy futureEventPolicyOrDefault() {
    return futureEventPolicy == null ? FutureEventPolicy.ACCEPT : futureEventPolicy;
  }
}
