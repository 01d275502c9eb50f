package io.github.lowwater.window;

import io.github.lowwater.internal.Checks;
import java.util.Objects;

/**
 * The options every window kind's builder shares: the {@linkplain EventTimeOptions event-time
 * options}, the aggregator and the late path. The builder of each kind ({@link
 * TumblingWindows.Builder}, {@link HoppingWindows.Builder}, {@link SessionWindows.Builder}) extends
 * it with its shape. Every option is optional and may be set at most once: setting one twice throws
 * {@link IllegalStateException}. A rejected call leaves the builder unchanged. {@code build()}
 * copies the options: the windows never read the builder again. Not thread-safe.
 *
 * @param <V> the value type
 * @param <R> the result type
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class WindowOptions<V, R, B extends WindowOptions<V, R, B>>
    extends EventTimeOptions<B> {

  final Aggregator<? super V, ?, R> aggregator;
  LateEventHandler<? super V> lateEventHandler;

  /** Package-private: the kinds are closed. */
  WindowOptions(Aggregator<? super V, ?, R> aggregator) {
    this.aggregator = Objects.requireNonNull(aggregator, "aggregator");
  }

  @SuppressWarnings("unchecked") // B is the concrete builder by construction
  private B self() {
    return (B) this;
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
