package io.github.lowwater.window;

import java.util.Arrays;

/**
 * One session of {@link PanedSessions}, with what its rows need: its span and accumulator, whether
 * it is complete (had its on-time row, or was opened or merged past its end), its next early mark,
 * what its last row held (to tell whether it changed since), and the starts of the merged sessions'
 * rows that its next row replaces. Kept on a free list once retired, so that the steady state
 * allocates nothing. A plain holder: {@link PanedSessions} keeps every invariant. Not thread-safe.
 */
final class PanedSession {

  private static final long[] NO_STARTS = new long[0];

  /** The earliest and latest event time. */
  long first;

  long last;

  int keyId;

  /** The order sessions were opened in: ties of the heaps, reproducible from the same records. */
  long sequence;

  long longAccumulator;
  Object objectAccumulator;

  /** Whether {@link #objectAccumulator} is referred to by a row: the next fold copies it. */
  boolean shared;

  /** Had its on-time row, or joined one that had: only {@code LATE} rows from now on. */
  boolean complete;

  /** The next row's index: the rows so far, or more after a merge (the highest part's). */
  int rows;

  /**
   * Whether this session had a row of its own (a merge may raise {@link #rows} without one): its
   * rows are those of (start {@link #rowFirst}, key).
   */
  boolean rowed;

  /** The last row's start, end and {@code long} value; meaningful once {@link #rowed}. */
  long rowFirst;

  long rowEnd;
  long rowLong;

  /** The starts of the rows of sessions merged into this one: its next row replaces them. */
  long[] replaced = NO_STARTS;

  int replacedCount;

  /** The next early mark, or {@link WindowEntries#NO_MARK}. */
  long nextMark = WindowEntries.NO_MARK;

  /**
   * Rows held back while the session ends by the written-through end, or {@code null} until needed;
   * see {@link PanedSessions}.
   */
  PaneLog<?, ?> heldBack;

  /** The key's next session by first, or the next free session. */
  PanedSession next;

  /** The positions in the open, grace and mark heaps ({@link SessionHeap}), or -1. */
  int openAt = -1;

  int graceAt = -1;
  int markAt = -1;

  /** Notes a start the next row replaces. */
  void replace(long start) {
    if (replacedCount == replaced.length) {
      replaced = Arrays.copyOf(replaced, Math.max(4, replacedCount * 2));
    }
    replaced[replacedCount++] = start;
  }

  /** Takes the starts of {@code gone}'s rows, and those its next row would have replaced. */
  void replaceRowsOf(PanedSession gone) {
    if (gone.rowed) {
      replace(gone.rowFirst);
    }
    for (int i = 0; i < gone.replacedCount; i++) {
      replace(gone.replaced[i]);
    }
  }

  /** Forgets everything but the arrays, for reuse. */
  void clear() {
    objectAccumulator = null;
    shared = false;
    complete = false;
    rows = 0;
    rowed = false;
    replacedCount = 0;
    nextMark = WindowEntries.NO_MARK;
    next = null;
    if (heldBack != null) {
      heldBack.takeAll(); // a session that retires with rows held back drops them
    }
  }
}
