package io.github.lowwater.window;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one set of windows, and their snapshot as {@link WindowStats}. Written by the
 * owner thread with release semantics, read from any thread with acquire semantics, so a metrics
 * reporter sees recent values, never torn ones; a snapshot may combine values of adjacent events.
 * Not thread-safe for writes. Allocation-free but {@link #snapshot}.
 */
final class WindowCounters {

  private static final VarHandle ACCEPTED;
  private static final VarHandle LATE;
  private static final VarHandle PARTIALLY_LATE;
  private static final VarHandle OPEN_WINDOWS;
  private static final VarHandle OPEN_ENTRIES;
  private static final VarHandle FINALIZED_WINDOWS;
  private static final VarHandle EARLY_ROWS;
  private static final VarHandle LATE_UPDATES;
  private static final VarHandle RETIRED_WINDOWS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      ACCEPTED = lookup.findVarHandle(WindowCounters.class, "accepted", long.class);
      LATE = lookup.findVarHandle(WindowCounters.class, "late", long.class);
      PARTIALLY_LATE = lookup.findVarHandle(WindowCounters.class, "partiallyLate", long.class);
      OPEN_WINDOWS = lookup.findVarHandle(WindowCounters.class, "openWindows", long.class);
      OPEN_ENTRIES = lookup.findVarHandle(WindowCounters.class, "openEntries", long.class);
      FINALIZED_WINDOWS =
          lookup.findVarHandle(WindowCounters.class, "finalizedWindows", long.class);
      EARLY_ROWS = lookup.findVarHandle(WindowCounters.class, "earlyRows", long.class);
      LATE_UPDATES = lookup.findVarHandle(WindowCounters.class, "lateUpdates", long.class);
      RETIRED_WINDOWS = lookup.findVarHandle(WindowCounters.class, "retiredWindows", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private long accepted;
  private long late;
  private long partiallyLate;
  private long openWindows;
  private long openEntries;
  private long finalizedWindows;
  private long earlyRows;
  private long lateUpdates;
  private long retiredWindows;

  /** Without panes a window retires when it is finalized; with panes the kind says when. */
  private boolean retiresWhenFinalized = true;

  /** An event went into its window. */
  void accepted() {
    ACCEPTED.setRelease(this, accepted + 1);
  }

  /** An accepted event of hopping windows missed its first windows, already finalized. */
  void partiallyLate() {
    PARTIALLY_LATE.setRelease(this, partiallyLate + 1);
  }

  /** An event went to the late path. */
  void late() {
    LATE.setRelease(this, late + 1);
  }

  /** A window (a pane, a session) opened. */
  void windowOpened() {
    OPEN_WINDOWS.setRelease(this, openWindows + 1);
  }

  /** A (window, key) entry opened. */
  void entryOpened() {
    OPEN_ENTRIES.setRelease(this, openEntries + 1);
  }

  /**
   * An open window (a pane, a session) closed, with its entries.
   *
   * @param entries its number of keys
   */
  void windowClosed(int entries) {
    OPEN_WINDOWS.setRelease(this, openWindows - 1);
    OPEN_ENTRIES.setRelease(this, openEntries - entries);
  }

  /**
   * Entries closed while their window stays open (the records a sliding window key lets go of).
   *
   * @param entries the number closed
   */
  void entriesClosed(int entries) {
    OPEN_ENTRIES.setRelease(this, openEntries - entries);
  }

  /** A window was finalized: its results wait for the next drain. */
  void windowFinalized() {
    FINALIZED_WINDOWS.setRelease(this, finalizedWindows + 1);
    if (retiresWhenFinalized) {
      RETIRED_WINDOWS.setRelease(this, retiredWindows + 1);
    }
  }

  /** Windows with panes: retirement is counted apart, by {@link #windowRetired}. */
  void retireApart() {
    retiresWhenFinalized = false;
  }

  /** The open windows, for the owner thread (a plain read). */
  void earlyRow() {
    EARLY_ROWS.setRelease(this, earlyRows + 1);
  }

  void lateUpdate() {
    LATE_UPDATES.setRelease(this, lateUpdates + 1);
  }

  void windowRetired() {
    RETIRED_WINDOWS.setRelease(this, retiredWindows + 1);
  }

  long openWindows() {
    return openWindows;
  }

  /** Accepted plus late events; any thread. */
  long events() {
    return (long) ACCEPTED.getAcquire(this) + (long) LATE.getAcquire(this);
  }

  /**
   * Returns the counters with the tracker's two readings; any thread.
   *
   * @param futureEvents the tracker's count of events beyond the future guard
   * @param watermark the watermark
   * @return a new snapshot
   */
  WindowStats snapshot(long futureEvents, long watermark) {
    return new WindowStats(
        (long) ACCEPTED.getAcquire(this),
        (long) LATE.getAcquire(this),
        futureEvents,
        (long) OPEN_WINDOWS.getAcquire(this),
        (long) OPEN_ENTRIES.getAcquire(this),
        (long) FINALIZED_WINDOWS.getAcquire(this),
        watermark,
        (long) PARTIALLY_LATE.getAcquire(this),
        (long) EARLY_ROWS.getAcquire(this),
        (long) LATE_UPDATES.getAcquire(this),
        (long) RETIRED_WINDOWS.getAcquire(this));
  }
}
