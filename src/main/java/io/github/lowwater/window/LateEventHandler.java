package io.github.lowwater.window;

/**
 * Receives the events that arrive behind the watermark, so that none is silently lost: write them
 * to a dead-letter topic, correct the sink, or count them per source.
 *
 * <p>Called on the thread that called {@link TumblingWindows#add}, after the event has been counted
 * as late and observed as activity of its source (not for an event beyond the future-timestamp
 * guard, which is never activity). An exception thrown here propagates to that caller; the windows'
 * state is already consistent when it does.
 *
 * @param <V> the value type
 */
@FunctionalInterface
public interface LateEventHandler<V> {

  /**
   * Handles one late event.
   *
   * @param source the event's source, as given to {@code add}
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param windowEndMillis the end of the window the event belongs to: {@code <= watermarkMillis}
   *     for an event behind the watermark, {@code > watermarkMillis} for a future event routed here
   *     by {@link FutureEventPolicy#LATE}
   * @param watermarkMillis the watermark the event was judged against
   * @param key the event's key, as given to {@code add}
   * @param value the event's value
   */
  void onLateEvent(
      Object source,
      long eventTimeMillis,
      long windowEndMillis,
      long watermarkMillis,
      Object key,
      V value);
}
