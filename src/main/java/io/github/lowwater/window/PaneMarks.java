package io.github.lowwater.window;

import java.util.Arrays;

/**
 * What a window with panes remembers of each key's rows, by <em>slot</em>: the key's entry position
 * in its {@link WindowEntries} while the window is indexed, its key id once the window is dense
 * ({@link #rekeyByIds}; only {@code long} windows turn dense): how many rows it has had (the next
 * row's index), and whether its value may have changed since its last row. For a {@code long}
 * accumulator that is a comparison with the last row's value, kept here; for an accumulator object
 * it is whether an event was folded in since, for which the row's reference to the accumulator
 * doubles as the mark: the accumulator is <em>shared</em> with a row until the next fold copies it
 * ({@link WindowEntries}), so a row never sees a later event.
 *
 * <p>The parameters named {@code position} are slots. Slots at or beyond the arrays' length have
 * had no row. The arrays grow to the window's size when a row is produced and are cleared, not
 * freed, when the window is reused. Not thread-safe.
 */
final class PaneMarks {

  private int[] rows = new int[16];
  private long[] lastLongs;
  private long[] shared = new long[1];

  /** One past the highest position that has had a row since the last {@link #clear}. */
  private int used;

  PaneMarks(boolean primitive) {
    if (primitive) {
      lastLongs = new long[16];
    }
  }

  /** Forgets every key's rows, for a window reused for another span. */
  void clear() {
    Arrays.fill(rows, 0, used, 0);
    Arrays.fill(shared, 0, Math.min(shared.length, (used + 63) >>> 6), 0L);
    used = 0;
  }

  /**
   * The window turned dense: the marks of each entry position move to its key id, the position's
   * entry in {@code ids}.
   */
  void rekeyByIds(IdSet ids) {
    int size = ids.size();
    int bound = 16;
    for (int position = 0; position < size; position++) {
      bound = Math.max(bound, ids.idAt(position) + 1);
    }
    int[] byIdRows = new int[bound];
    long[] byIdLongs = new long[bound];
    for (int position = 0; position < Math.min(size, used); position++) {
      int id = ids.idAt(position);
      byIdRows[id] = rows[position];
      byIdLongs[id] = lastLongs[position];
    }
    rows = byIdRows;
    lastLongs = byIdLongs;
    used = bound;
  }

  /** Returns the index of the next row of the key at {@code position}. */
  int nextIndex(int position) {
    return position < rows.length ? rows[position] : 0;
  }

  /**
   * Returns whether the {@code long} value of the key at {@code position} may have changed since
   * its last row: it has had none, or its value differs from that row's.
   */
  boolean changed(int position, long value) {
    return nextIndex(position) == 0 || lastLongs[position] != value;
  }

  /**
   * Returns whether an event was folded into the accumulator object at {@code position} since its
   * last row, or it has had none.
   */
  boolean changed(int position) {
    return nextIndex(position) == 0 || !isShared(position);
  }

  /** Records a row of the {@code long} value at {@code position}; returns the row's index. */
  int producedLong(int position, long value) {
    int index = produced(position);
    lastLongs[position] = value;
    return index;
  }

  /**
   * Records a row that refers to the accumulator object at {@code position}, which is shared until
   * the next fold copies it; returns the row's index.
   */
  int producedShared(int position) {
    int index = produced(position);
    int word = position >>> 6;
    if (word >= shared.length) {
      shared = Arrays.copyOf(shared, Math.max(word + 1, shared.length * 2));
    }
    shared[word] |= 1L << position;
    return index;
  }

  private int produced(int position) {
    if (position >= rows.length) {
      int length = Math.max(position + 1, rows.length * 2);
      rows = Arrays.copyOf(rows, length);
      if (lastLongs != null) {
        lastLongs = Arrays.copyOf(lastLongs, length);
      }
    }
    used = Math.max(used, position + 1);
    return rows[position]++;
  }

  /** Returns whether the accumulator object at {@code position} is shared with a row. */
  boolean isShared(int position) {
    int word = position >>> 6;
    return word < shared.length && (shared[word] & (1L << position)) != 0;
  }

  /** The accumulator object at {@code position} was replaced by a copy: no row shares it. */
  void unshare(int position) {
    int word = position >>> 6;
    if (word < shared.length) {
      shared[word] &= ~(1L << position);
    }
  }

  /**
   * Returns the first early mark of window {@code [start, end)} above {@code newest}: the smallest
   * {@code start + k * delta} with {@code k >= 1} that is {@code > newest} and {@code < end}, or
   * {@link WindowEntries#NO_MARK} if there is none (rule 50). Exact at the {@code long} bounds.
   *
   * @param start the window's start
   * @param end the window's end, {@code > start}
   * @param delta the period of early results, {@code >= 1}
   * @param newest the newest event time seen
   * @return the mark, or {@code NO_MARK}
   */
  static long firstMarkAfter(long start, long end, long delta, long newest) {
    long offset = delta; // a newest time before the start: the first mark
    if (newest >= start) {
      long past = newest - start;
      if (past < 0) {
        return WindowEntries.NO_MARK; // more than Long.MAX_VALUE past the start: past the end too
      }
      offset = past - past % delta + delta; // the first multiple of delta above past
      if (offset < 0) {
        return WindowEntries.NO_MARK;
      }
    }
    return offset < end - start ? start + offset : WindowEntries.NO_MARK;
  }
}
