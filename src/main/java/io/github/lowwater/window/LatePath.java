package io.github.lowwater.window;

import java.util.Map;

/**
 * Where late events go: counted per source (whether or not a handler is set), then handed to the
 * user's {@link LateEventHandler}, if there is one. Events beyond the future-timestamp guard are
 * counted per source here too. Not thread-safe; allocation-free once a source has been counted.
 *
 * @param <V> the value type
 */
final class LatePath<V> {

  private final LateEventHandler<? super V> handler;
  private final SourceCounts counts = new SourceCounts();

  /**
   * Creates the path.
   *
   * @param handler the user's handler, or null to only count
   */
  LatePath(LateEventHandler<? super V> handler) {
    this.handler = handler;
  }

  /** Counts a late event of {@code source}. */
  void countLate(Object source) {
    counts.late(source);
  }

  /** Counts an event of {@code source} beyond the future-timestamp guard. */
  void countFuture(Object source) {
    counts.future(source);
  }

  /**
   * Hands a late event to the handler, then rethrows {@code earlier} (an exception of the
   * observation that came first) if there is one, with the handler's own, if it throws too, added
   * as suppressed; without an earlier exception, the handler's propagates.
   */
  void handOver(
      Object source,
      long eventTimeMillis,
      long windowEndMillis,
      long watermark,
      Object key,
      V value,
      RuntimeException earlier) {
    if (handler != null) {
      try {
        handler.onLateEvent(source, eventTimeMillis, windowEndMillis, watermark, key, value);
      } catch (RuntimeException e) {
        if (earlier == null) {
          throw e;
        }
        earlier.addSuppressed(e);
      }
    }
    if (earlier != null) {
      throw earlier;
    }
  }

  Map<Object, Long> lateBySource() {
    return counts.lateBySource();
  }

  Map<Object, Long> futureBySource() {
    return counts.futureBySource();
  }
}
