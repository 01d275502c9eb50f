package io.github.lowwater.kafka;

import io.github.lowwater.window.WindowStats;

/**
 * A running sum of {@link WindowStats} counters over partitions, in primitives, so that a reading
 * of the instance's counters allocates one snapshot however many partitions it sums. The open
 * windows and entries, and the watermark, are the caller's: they are not sums of departed
 * partitions. Not thread-safe; one per reading.
 */
final class StatsTotal {

  private long accepted;
  private long late;
  private long futureEvents;
  private long finalizedWindows;
  private long partiallyLate;
  private long earlyRows;
  private long lateUpdates;
  private long retiredWindows;

  /** Adds every count of {@code s}; its open windows, entries and watermark are not counts. */
  StatsTotal add(WindowStats s) {
    accepted += s.accepted();
    late += s.late();
    futureEvents += s.futureEvents();
    finalizedWindows += s.finalizedWindows();
    partiallyLate += s.partiallyLate();
    earlyRows += s.earlyRows();
    lateUpdates += s.lateUpdates();
    retiredWindows += s.retiredWindows();
    return this;
  }

  /** Returns the sums as a snapshot, with the open windows, entries and watermark given. */
  WindowStats snapshot(long openWindows, long openEntries, long watermark) {
    return new WindowStats(
        accepted,
        late,
        futureEvents,
        openWindows,
        openEntries,
        finalizedWindows,
        watermark,
        partiallyLate,
        earlyRows,
        lateUpdates,
        retiredWindows);
  }
}
