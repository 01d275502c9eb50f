package io.github.lowwater.window;

/**
 * Produces the rows of windows with panes into their {@link PaneLog}: a window's early rows (the
 * keys whose value may have changed since their last row), its on-time rows (every key), and a late
 * update's row (one key), each with the key's next index ({@link PaneMarks}). What a kind decides
 * is when; this class decides what a row holds. Not thread-safe; allocation-free once its scratch
 * array and the log are large enough.
 */
final class PaneRows<K, R> {

  private final PaneLog<K, R> log;
  private final KeyDictionary keys;
  private final WindowCounters counters;
  private final boolean primitive;

  /** Scratch space: the key id of each entry position of a window. */
  private int[] idsByPosition = new int[16];

  PaneRows(PaneLog<K, R> log, KeyDictionary keys, WindowCounters counters, boolean primitive) {
    this.log = log;
    this.keys = keys;
    this.counters = counters;
    this.primitive = primitive;
  }

  /** The rows of an early firing: one {@code EARLY} row per key that may have changed. */
  void early(WindowEntries w) {
    int size = idsOf(w);
    PaneMarks marks = w.marks;
    for (int position = 0; position < size; position++) {
      int id = idsByPosition[position];
      int slot = w.markSlot(position, id);
      boolean changed =
          primitive ? marks.changed(slot, w.longAt(position, id)) : marks.changed(slot);
      if (changed) {
        row(w, position, id, Timing.EARLY, false);
        counters.earlyRow();
      }
    }
  }

  /** The on-time rows: one {@code ON_TIME} row per key, changed or not. */
  void onTime(WindowEntries w, boolean isFinal) {
    int size = idsOf(w);
    for (int position = 0; position < size; position++) {
      row(w, position, idsByPosition[position], Timing.ON_TIME, isFinal);
    }
  }

  /** The row of a late update of key {@code id}, just folded into {@code w}. */
  void late(WindowEntries w, int id) {
    row(w, w.positionOf(id), id, Timing.LATE, false); // a dense window reads by id
    counters.lateUpdate();
  }

  /**
   * The row of a held correction of key {@code id}, merged into {@code w} as it retires: {@code
   * LATE}, final (the window has no row after it); its late updates were counted as they came.
   */
  void correction(WindowEntries w, int id) {
    row(w, w.positionOf(id), id, Timing.LATE, true);
  }

  private void row(WindowEntries w, int position, int id, Timing timing, boolean isFinal) {
    Object key = keys.key(id);
    int slot = w.markSlot(position, id);
    if (primitive) {
      long value = w.longAt(position, id);
      int index = w.marks.producedLong(slot, value);
      log.addLong(w.start, w.end, key, value, timing, index, isFinal);
    } else {
      int index = w.marks.producedShared(slot);
      log.addObject(w.start, w.end, key, w.objectAt(position), timing, index, isFinal);
    }
  }

  /** Writes the window's key ids by position into the scratch array; returns its size. */
  private int idsOf(WindowEntries w) {
    int size = w.size();
    if (idsByPosition.length < size) {
      idsByPosition = new int[Math.max(size, idsByPosition.length * 2)];
    }
    w.idsByPosition(idsByPosition);
    return size;
  }
}
