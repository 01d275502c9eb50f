package io.github.lowwater;

import io.github.lowwater.internal.TimeMath;

/**
 * How far each kind of activity lets a source's contribution rise, under one {@link
 * WatermarkStrategy} and allowed lateness (rules 15 to 17 of {@code docs/semantics.md}). Immutable;
 * any thread. O(1) per call, no allocation, and it reads no clock: the caller passes the wall-clock
 * reading, and only when {@link #raisesOnActivity()} says that the strategy needs it.
 *
 * <p><b>Invariant.</b> Every method returns a <em>floor</em>: the tracker sets a source's
 * contribution to {@code max(contribution, floor)}, so contributions only grow, whatever the
 * strategy, and the lazy {@link SourceHeap} may rely on it. A floor of {@link
 * WatermarkTracker#UNSEEN} ({@link Long#MIN_VALUE}) raises nothing. Every subtraction saturates.
 */
final class ContributionRule {

  private final WatermarkStrategy strategy;
  private final long allowedLatenessMillis;

  /** Whether an event raises the contribution by its time: bounded out-of-orderness. */
  private final boolean eventsRaise;

  /** Whether every activity raises the contribution to the wall clock: processing time. */
  private final boolean activityRaises;

  /**
   * Creates the rule.
   *
   * @param strategy the strategy, not null
   * @param allowedLatenessMillis the allowed lateness, {@code >= 0}
   */
  ContributionRule(WatermarkStrategy strategy, long allowedLatenessMillis) {
    this.strategy = strategy;
    this.allowedLatenessMillis = allowedLatenessMillis;
    this.eventsRaise = strategy == WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS;
    this.activityRaises = strategy == WatermarkStrategy.PROCESSING_TIME;
  }

  WatermarkStrategy strategy() {
    return strategy;
  }

  long allowedLatenessMillis() {
    return allowedLatenessMillis;
  }

  /**
   * Returns {@code timeMillis - allowedLateness}, saturating: the watermark that a time allows, as
   * in {@code advanceTo} and the seed clamp.
   *
   * @param timeMillis an event or wall-clock time
   * @return the time minus the allowed lateness, never below {@link Long#MIN_VALUE}
   */
  long lessLateness(long timeMillis) {
    return TimeMath.saturatedSubtract(timeMillis, allowedLatenessMillis);
  }

  /**
   * Returns the floor set by an event at {@code eventTimeMillis}: the event time minus the allowed
   * lateness under {@link WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}, nothing under the others.
   *
   * @param eventTimeMillis the event time
   * @return the floor, {@link WatermarkTracker#UNSEEN} if events do not raise the contribution
   */
  long ofEvent(long eventTimeMillis) {
    return eventsRaise ? lessLateness(eventTimeMillis) : WatermarkTracker.UNSEEN;
  }

  /**
   * Returns whether any activity (event, heartbeat, punctuation, lookahead, registration) raises
   * the contribution to {@link #ofActivity}: {@link WatermarkStrategy#PROCESSING_TIME} only.
   *
   * @return {@code true} if the caller must read the wall clock on every activity
   */
  boolean raisesOnActivity() {
    return activityRaises;
  }

  /**
   * Returns the floor set by any activity under {@link WatermarkStrategy#PROCESSING_TIME}.
   *
   * @param wallMillis the wall-clock reading, epoch milliseconds
   * @return the wall clock minus the allowed lateness
   */
  long ofActivity(long wallMillis) {
    return lessLateness(wallMillis);
  }

  /**
   * Returns the floor set by a lookahead on a batch whose event times span {@code
   * [minEventTimeMillis, maxEventTimeMillis]}: every event still to come from the source is at or
   * after it, under bounded out-of-orderness. The same under every strategy.
   *
   * @param minEventTimeMillis the smallest event time of the batch
   * @param maxEventTimeMillis the largest event time of the batch, {@code >= minEventTimeMillis}
   * @return {@code min(minEventTimeMillis, maxEventTimeMillis - allowedLateness)}
   */
  long ofLookahead(long minEventTimeMillis, long maxEventTimeMillis) {
    return Math.min(minEventTimeMillis, lessLateness(maxEventTimeMillis));
  }
}
