package io.github.lowwater;

/**
 * How a source's events move its contribution to the watermark. Whatever the strategy, the
 * per-source rules stay the same: the watermark is the minimum contribution over the active
 * sources, idleness retires a silent source, the watermark never moves backwards, and {@link
 * WatermarkTracker#punctuate} always raises a source's contribution.
 */
public enum WatermarkStrategy {

  /**
   * The default: an event at {@code t} raises its source's contribution to {@code t -
   * allowedLateness}. Exact as long as no event of a source trails the largest event time seen on
   * that source by more than the allowed lateness.
   */
  BOUNDED_OUT_OF_ORDERNESS,

  /**
   * Events never move the watermark; only {@link WatermarkTracker#punctuate} does, when a source
   * asserts its own watermark (a heartbeat or marker record). Events still count as activity and
   * still raise the source's frontier (for reporting).
   */
  PUNCTUATED,

  /**
   * Every activity of a source (event, heartbeat, punctuation, lookahead) raises its contribution
   * to {@code clock.wallMillis() - allowedLateness}, whatever the event times. For liveness-only
   * uses (dashboards, timeouts): <b>unsafe for exact results</b>, since a backlog of old events is
   * simply late. Reads the wall clock once per activity.
   */
  PROCESSING_TIME
}
