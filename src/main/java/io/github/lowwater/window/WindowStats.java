package io.github.lowwater.window;

/**
 * A snapshot of the counters of a window kind ({@link TumblingWindows}, {@link HoppingWindows},
 * {@link SessionWindows}).
 *
 * <p>Taken on the owning thread, the snapshot is exact. Taken on another thread (a metrics
 * reporter), every value is recent and never torn, but values may come from adjacent events: {@code
 * accepted + late} can then differ from the number of {@code add} calls by the ones in flight.
 *
 * @param accepted events added to a window
 * @param late events that went to the late path: behind the watermark, or beyond the
 *     future-timestamp guard under {@link FutureEventPolicy#LATE}
 * @param futureEvents events beyond the future-timestamp guard, whatever the policy
 * @param openWindows windows not finalized yet; for hopping windows, the panes (slices of {@code
 *     gcd(size, advance)}) held; for session windows, the open sessions; for sliding windows, the
 *     keys whose records are held (until every window that can hold or make them is decided and
 *     drained)
 * @param openEntries (window, key) accumulators held by the open windows (or panes, or sessions);
 *     for sliding windows, the records held
 * @param finalizedWindows windows finalized so far, whether or not they were polled yet
 * @param watermark the watermark in epoch milliseconds, or {@code WatermarkTracker.NO_WATERMARK}
 * @param partiallyLate accepted events of hopping windows whose first windows were already
 *     finalized, so that they went into their open windows only (always 0 for the other kinds;
 *     included in {@code accepted}, never handed to the late handler)
 * @param earlyRows {@code EARLY} rows produced ({@code earlyResults}), whether or not drained yet
 * @param lateUpdates {@code LATE} rows produced: events accepted into a window after its on-time
 *     row, within its {@code grace} period (included in {@code accepted}); one per window such an
 *     event changes, so a hopping or sliding event can count several (sliding: one per complete
 *     window it joins or makes)
 * @param retiredWindows windows whose state went for good: at their on-time row without a grace
 *     period (then equal to {@code finalizedWindows}), once the watermark passes {@code end +
 *     grace} with one; for sliding windows with panes, the windows that had a row
 */
public record WindowStats(
    long accepted,
    long late,
    long futureEvents,
    long openWindows,
    long openEntries,
    long finalizedWindows,
    long watermark,
    long partiallyLate,
    long earlyRows,
    long lateUpdates,
    long retiredWindows) {

  /**
   * A snapshot without panes: the form of windows without early results or a grace period.
   *
   * @param accepted events added to a window
   * @param late events that went to the late path
   * @param futureEvents events beyond the future-timestamp guard
   * @param openWindows windows not finalized yet
   * @param openEntries (window, key) accumulators held by the open windows
   * @param finalizedWindows windows finalized so far
   * @param watermark the watermark
   * @param partiallyLate accepted events of hopping windows whose first windows were finalized
   */
  public WindowStats(
      long accepted,
      long late,
      long futureEvents,
      long openWindows,
      long openEntries,
      long finalizedWindows,
      long watermark,
      long partiallyLate) {
    this(
        accepted,
        late,
        futureEvents,
        openWindows,
        openEntries,
        finalizedWindows,
        watermark,
        partiallyLate,
        0,
        0,
        0);
  }

  /**
   * A snapshot without partially late events: the form of the kinds that have none.
   *
   * @param accepted events added to a window
   * @param late events that went to the late path
   * @param futureEvents events beyond the future-timestamp guard
   * @param openWindows windows not finalized yet
   * @param openEntries (window, key) accumulators held by the open windows
   * @param finalizedWindows windows finalized so far
   * @param watermark the watermark
   */
  public WindowStats(
      long accepted,
      long late,
      long futureEvents,
      long openWindows,
      long openEntries,
      long finalizedWindows,
      long watermark) {
    this(accepted, late, futureEvents, openWindows, openEntries, finalizedWindows, watermark, 0);
  }

  /**
   * Returns every event given to {@code add}: {@code accepted + late}.
   *
   * @return the number of events added
   */
  public long added() {
    return accepted + late;
  }
}
