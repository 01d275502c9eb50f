package io.github.lowwater.kafka;

import io.github.lowwater.Clock;

/**
 * The clock of one partition's windows when the future-timestamp guard is on ({@code
 * PER_PARTITION}): the driver's clock, except that while a record is processed its wall-clock
 * reading is the guard reading the partition's history puts in force for that record ({@link
 * WallClockHistory}), so that every owner judges the record against the same limit. Not
 * thread-safe: pinned and unpinned on the polling thread; a metrics thread that reads the wall
 * clock through the windows meanwhile may see the pinned reading, which lags the real one.
 */
final class PartitionClock implements Clock {

  private final Clock driver;
  private boolean pinned;
  private long pinnedWallMillis;

  PartitionClock(Clock driver) {
    this.driver = driver;
  }

  /** From now until {@link #unpin()}, the wall clock reads {@code wallMillis}. */
  void pin(long wallMillis) {
    pinnedWallMillis = wallMillis;
    pinned = true;
  }

  void unpin() {
    pinned = false;
  }

  /** The driver's wall-clock reading, pinned or not. */
  long liveWallMillis() {
    return driver.wallMillis();
  }

  @Override
  public long monotonicNanos() {
    return driver.monotonicNanos();
  }

  @Override
  public long wallMillis() {
    return pinned ? pinnedWallMillis : driver.wallMillis();
  }
}
