package io.github.lowwater.window;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * The options every window kind shares (allowed lateness, idle timeout, clock, strategy, the
 * future-timestamp guard and the late path), with their checks and documentation written once. The
 * builder of each kind ({@link TumblingWindows.Builder}, {@link HoppingWindows.Builder}, {@link
 * SessionWindows.Builder}) extends it with its shape. Every option is optional and may be set at
 * most once: setting one twice throws {@link IllegalStateException}. A rejected call leaves the
 * builder unchanged. {@code build()} copies the options: the windows never read the builder again.
 * Not thread-safe.
 *
 * @param <V> the value type
 * @param <R> the result type
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class WindowOptions<V, R, B extends WindowOptions<V, R, B>> {

  final Aggregator<? super V, ?, R> aggregator;
  final WatermarkTracker.Builder tracker = WatermarkTracker.builder();
  LateEventHandler<? super V> lateEventHandler;
  FutureEventPolicy futureEventPolicy;

  /** Package-private: the kinds are closed. */
  WindowOptions(Aggregator<? super V, ?, R> aggregator) {
    this.aggregator = Objects.requireNonNull(aggregator, "aggregator");
  }

  @SuppressWarnings("unchecked") // B is the concrete builder by construction
  private B self() {
    return (B) this;
  }

  /**
   * Sets the allowed lateness; see {@link WatermarkTracker.Builder#allowedLateness(Duration)}.
   * Default 120 seconds.
   *
   * @param allowedLateness the allowed lateness, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code allowedLateness} is null
   * @throws IllegalArgumentException if {@code allowedLateness} is negative
   * @throws IllegalStateException if the allowed lateness was already set
   */
  public B allowedLateness(Duration allowedLateness) {
    tracker.allowedLateness(allowedLateness);
    return self();
  }

  /**
   * Sets the idle timeout; see {@link WatermarkTracker.Builder#idleTimeout(Duration)}. Default 120
   * seconds.
   *
   * @param idleTimeout the idle timeout, {@code > 0}
   * @return this builder
   * @throws NullPointerException if {@code idleTimeout} is null
   * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
   * @throws IllegalStateException if the idle timeout was already set
   */
  public B idleTimeout(Duration idleTimeout) {
    tracker.idleTimeout(idleTimeout);
    return self();
  }

  /**
   * Sets the clock. Default {@link Clock#system()}.
   *
   * @param clock the clock
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   * @throws IllegalStateException if the clock was already set
   */
  public B clock(Clock clock) {
    tracker.clock(clock);
    return self();
  }

  /**
   * Sets the watermark strategy; see {@link WatermarkTracker.Builder#strategy}. Default {@link
   * WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}.
   *
   * @param strategy the strategy
   * @return this builder
   * @throws NullPointerException if {@code strategy} is null
   * @throws IllegalStateException if the strategy was already set
   */
  public B strategy(WatermarkStrategy strategy) {
    tracker.strategy(strategy);
    return self();
  }

  /**
   * Turns on the future-timestamp guard: an event more than {@code maxFutureSkew} ahead of the
   * clock's wall time does not move its source's frontier, is counted, and is handled by the {@link
   * #futureEventPolicy(FutureEventPolicy) policy}. Off by default; costs one wall-clock read per
   * event when on (use a {@link io.github.lowwater.CachedClock}).
   *
   * @param maxFutureSkew how far ahead of the wall clock an event may be, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code maxFutureSkew} is null
   * @throws IllegalArgumentException if {@code maxFutureSkew} is negative
   * @throws IllegalStateException if the guard was already set
   */
  public B maxFutureSkew(Duration maxFutureSkew) {
    tracker.maxFutureSkew(maxFutureSkew); // one guard, the tracker's
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
   * Sets the late path. Without one, late events are only counted ({@link WindowStats#late()}).
   *
   * @param lateEventHandler receives every late event
   * @return this builder
   * @throws NullPointerException if {@code lateEventHandler} is null
   * @throws IllegalStateException if a late-event handler was already set
   */
  public B lateEventHandler(LateEventHandler<? super V> lateEventHandler) {
    Objects.requireNonNull(lateEventHandler, "lateEventHandler");
    Checks.requireUnset(this.lateEventHandler == null, "lateEventHandler", this.lateEventHandler);
    this.lateEventHandler = lateEventHandler;
    return self();
  }

  /**
   * Requires an aggregator that can {@link Aggregator#merge merge}: the kinds that combine
   * accumulators check it at {@code build()}, not at the first emission.
   */
  void requireMerging(String kind) {
    if (!Aggregator.canMerge(aggregator)) {
      throw new IllegalArgumentException(
          kind
              + " combine accumulators with Aggregator.merge, which this aggregator does not"
              + " implement: "
              + aggregator
              + " (implement merge, or use Aggregators.of(create, add, merge, result))");
    }
  }
}
