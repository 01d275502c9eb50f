package io.github.lowwater.kafka;

import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.EventTimeWindows;

/**
 * The decisions one partition's windows take from the wall clock ({@code PER_PARTITION}; semantics
 * rule 61): it records this owner's quiet-period raises and future-guard readings in the {@link
 * WallClockHistory} its checkpoints carry, and replays its predecessor's at the same records, so
 * that the re-read below the predecessor's read position takes the same decisions as the first
 * reading. Not thread-safe: the polling thread. O(1) per record; with the guard off, one
 * comparison.
 */
final class PartitionWallClock {

  private final WallClockHistory history = new WallClockHistory();

  /** The clock of the windows with the future guard on, or {@code null}. */
  private PartitionClock guardClock;

  private long futureSkewMillis;

  /** Whether the restored history has guard readings: the previous owner had the guard on. */
  private boolean restoredGuard;

  /**
   * Turns on the recording and the replay of the future guard's readings: the windows' clock is
   * {@code clock}, pinned for each record to the reading in force.
   */
  void guard(PartitionClock clock, long maxFutureSkewMillis) {
    this.guardClock = clock;
    this.futureSkewMillis = maxFutureSkewMillis;
  }

  /** The guard's {@code maxFutureSkew}, or {@link Checkpoint#NO_GUARD} with the guard off. */
  long futureSkewMillis() {
    return guardClock == null ? Checkpoint.NO_GUARD : futureSkewMillis;
  }

  /** Restores the previous owner's decisions (a checkpoint's {@code h}), to be replayed. */
  void restore(String encoded) {
    history.restore(encoded);
    restoredGuard = encoded.indexOf(WallClockHistory.GUARD) >= 0;
  }

  /**
   * Applies the previous owner's decisions that took effect before the record at {@code offset}
   * (or, at the end of a batch, before the next offset to read): its quiet-period raises, at the
   * same records as it did, and its guard readings. A raise's rows are dropped when {@code
   * dropRows}: the previous owner handed them out before the commit that carried them. With {@code
   * ownSource} ({@code CO_PARTITIONED}), a raise lifts that source's own watermark only (a
   * punctuation), as the task's quiet-period advance did: a sibling partition not yet re-read to
   * its own raise is judged as before.
   */
  void replayTo(
      long offset, boolean dropRows, EventTimeWindows<?, ?, ?> windows, Object ownSource) {
    while (history.due(offset)) {
      if (history.dueKind() != WallClockHistory.RAISE) {
        history.applyDue();
        continue;
      }
      long watermark = history.applyDue();
      if (dropRows) {
        windows.replaying(true);
      }
      try {
        if (ownSource != null) {
          windows.punctuate(ownSource, watermark);
        } else {
          windows.advanceTo(TimeMath.saturatedAdd(watermark, windows.allowedLatenessMillis()));
        }
      } finally {
        if (dropRows) {
          windows.replaying(false);
        }
      }
    }
  }

  /**
   * Records a quiet-period raise to {@code watermarkMillis} before the record at {@code offset}.
   */
  void raised(long offset, long watermarkMillis) {
    history.raised(Math.max(offset, 0), watermarkMillis);
  }

  /**
   * Puts in force, for the record at {@code offset} with event time {@code t}, the guard reading
   * every owner uses for it: below the previous owner's read position, the one it recorded; else
   * the recorded one, unless the record is beyond its limit and within the live wall clock's, in
   * which case the live reading is recorded from this record on (a reading that changes no verdict
   * is not recorded; the first one always is). So the windows' verdict is the live guard's, and the
   * next owner's the same. Nothing to do with the guard off. Undo with {@link #unpin()}.
   *
   * @param readThroughOffset the previous owner's read position {@code n}
   */
  void pin(long offset, long t, long readThroughOffset) {
    if (guardClock == null) {
      return;
    }
    long reading = history.guardWall();
    boolean replay = restoredGuard && offset < readThroughOffset;
    if (!replay
        && (reading == WallClockHistory.NO_READING
            || t > TimeMath.saturatedAdd(reading, futureSkewMillis))) {
      long now = guardClock.liveWallMillis();
      if (reading == WallClockHistory.NO_READING
          || (now > reading && t <= TimeMath.saturatedAdd(now, futureSkewMillis))) {
        history.guardRead(offset, now);
        reading = now;
      }
    }
    guardClock.pin(reading);
  }

  /** Ends {@link #pin}; harmless when nothing is pinned. */
  void unpin() {
    if (guardClock != null) {
      guardClock.unpin();
    }
  }

  /**
   * The {@code h} field of a checkpoint committed at {@code committedOffset}; see {@link
   * WallClockHistory#encodeFrom}.
   *
   * @return the field, empty for none, or {@code null} if a checkpoint cannot carry it
   */
  String encodeFrom(long committedOffset) {
    if (guardClock == null) {
      history.forgetGuardReadings(); // the guard was turned off: its readings judge nothing here
    }
    return history.encodeFrom(committedOffset);
  }
}
