package io.github.lowwater.window;

import java.util.Arrays;

/**
 * What one key's sliding windows with panes remember of their rows, by window end, from a window's
 * first row until it retires: how many rows it has had (the next row's index) and how many records
 * it held at its last row. A live window only gains records (a record is let go only once every
 * window that can hold it has retired), so its value may have changed since its last row iff it
 * holds more records now. Kept in arrays sorted by end, from {@code head}: rows come mostly in
 * ascending end and windows retire from the oldest end, so both ends of the arrays move in O(1)
 * amortized. Allocates only when the arrays grow. Not thread-safe.
 */
final class SlidingPanes {

  private long[] ends = new long[4];
  private int[] rows = new int[4];
  private int[] counts = new int[4];
  private int head;
  private int tail;

  /** Whether no window remembers a row. */
  boolean isEmpty() {
    return head == tail;
  }

  /** The end of the oldest window that remembers a row; only when not empty. */
  long oldestEnd() {
    return ends[head];
  }

  /** The slot of the window ending at {@code end}, or -1 if it has had no row. */
  int find(long end) {
    int at = search(end);
    return at < tail && ends[at] == end ? at : -1;
  }

  /** The records the window in {@code slot} held at its last row, or -1 for -1 (none). */
  int count(int slot) {
    return slot < 0 ? -1 : counts[slot];
  }

  /**
   * Notes a row of the window ending at {@code end}, which holds {@code count} records, and returns
   * its index: the window's rows so far, which rise by one.
   */
  int row(long end, int count) {
    int at = search(end);
    if (at == tail || ends[at] != end) {
      at = insert(at, end);
    }
    counts[at] = count;
    return rows[at]++;
  }

  /** Forgets the windows ending at or before {@code through}; returns how many. */
  int retireThrough(long through) {
    int from = head;
    while (head < tail && ends[head] <= through) {
      head++;
    }
    int retired = head - from;
    if (head == tail) {
      head = 0;
      tail = 0;
    }
    return retired;
  }

  /** Forgets every window, for a run reused by another key. */
  void clear() {
    head = 0;
    tail = 0;
  }

  /** The first slot whose end is at or after {@code end}. */
  private int search(long end) {
    if (tail > head && ends[tail - 1] < end) {
      return tail; // mostly so: a new window ends after every window remembered
    }
    int lo = head;
    int hi = tail;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ends[mid] < end) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Opens a slot for {@code end} at {@code at}, with no row yet; returns its slot. */
  private int insert(int at, long end) {
    if (tail == ends.length) {
      int live = tail - head;
      if (live * 2 > ends.length) {
        int length = ends.length * 2;
        ends = Arrays.copyOf(ends, length);
        rows = Arrays.copyOf(rows, length);
        counts = Arrays.copyOf(counts, length);
      }
      if (head > 0) {
        shift(head, 0, live);
        at -= head;
        head = 0;
        tail = live;
      }
    }
    int moved = tail - at;
    if (moved > 0) {
      shift(at, at + 1, moved);
    }
    ends[at] = end;
    rows[at] = 0;
    counts[at] = 0;
    tail++;
    return at;
  }

  private void shift(int from, int to, int length) {
    System.arraycopy(ends, from, ends, to, length);
    System.arraycopy(rows, from, rows, to, length);
    System.arraycopy(counts, from, counts, to, length);
  }
}
