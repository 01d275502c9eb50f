package io.github.lowwater.align;

/**
 * Receives the events an {@link EventAligner} releases, or the ones it turns away as late.
 *
 * @param <S> the source type
 * @param <P> the payload type
 */
@FunctionalInterface
public interface AlignedEventHandler<S, P> {

  /**
   * Handles one event.
   *
   * @param source the event's source
   * @param offset the event's offset within its source
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param payload the payload given to {@link EventAligner#push}
   */
  void onEvent(S source, long offset, long eventTimeMillis, P payload);
}
