package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The rows of {@link SlidingStore} waiting for a drain, in the order they were produced: a FIFO of
 * (key id, window end) and, with panes, each row's timing, index, finality and <em>cutoff</em>, the
 * arrival number of the newest record the row holds. A row is folded when it is drained, from the
 * records of its window that arrived by its cutoff: a later record in its window (a late update, or
 * a record of a window still open) is not in it. Without panes every row is its window's one {@code
 * ON_TIME} row, index 0, final, and holds every record of its window. Arrays grow by doubling and
 * are reused. Not thread-safe.
 */
final class SlidingRows {

  private static final Timing[] TIMINGS = Timing.values();
  private static final int FINAL_BIT = 0b100;

  private final boolean paned;

  private int[] keys = new int[16];
  private long[] ends = new long[16];
  private long[] cutoffs;
  private int[] indexes;
  private byte[] flags;
  private int head;
  private int tail;

  SlidingRows(boolean paned) {
    this.paned = paned;
    if (paned) {
      cutoffs = new long[16];
      indexes = new int[16];
      flags = new byte[16];
    }
  }

  /** Queues the one row of a window without panes. */
  void add(int id, long end) {
    int row = makeRoom();
    keys[row] = id;
    ends[row] = end;
    tail++;
  }

  /** Queues a row with its pane, holding the records that arrived by {@code cutoff}. */
  void add(int id, long end, Timing timing, int index, boolean isFinal, long cutoff) {
    int row = makeRoom();
    keys[row] = id;
    ends[row] = end;
    cutoffs[row] = cutoff;
    indexes[row] = index;
    flags[row] = (byte) (timing.ordinal() | (isFinal ? FINAL_BIT : 0));
    tail++;
  }

  /** The rows waiting. */
  int size() {
    return tail - head;
  }

  /** The key id of the {@code i}-th waiting row (from 0). */
  int key(int i) {
    return keys[head + i];
  }

  /** The window end of the {@code i}-th waiting row. */
  long end(int i) {
    return ends[head + i];
  }

  /** The arrival number of the newest record the {@code i}-th row holds. */
  long cutoff(int i) {
    return paned ? cutoffs[head + i] : Long.MAX_VALUE;
  }

  Timing timing(int i) {
    return paned ? TIMINGS[flags[head + i] & 0b11] : Timing.ON_TIME;
  }

  int index(int i) {
    return paned ? indexes[head + i] : 0;
  }

  boolean isFinal(int i) {
    return !paned || (flags[head + i] & FINAL_BIT) != 0;
  }

  /** Takes the oldest row off the queue; returns its key id. */
  int take() {
    int id = keys[head++];
    if (head == tail) {
      head = 0;
      tail = 0;
    }
    return id;
  }

  /** Makes room for one row at {@code tail}: moves the rows to the front, or doubles the arrays. */
  private int makeRoom() {
    if (tail == keys.length) {
      int waiting = tail - head;
      if (waiting * 2 > keys.length) {
        int length = keys.length * 2;
        keys = Arrays.copyOf(keys, length);
        ends = Arrays.copyOf(ends, length);
        if (paned) {
          cutoffs = Arrays.copyOf(cutoffs, length);
          indexes = Arrays.copyOf(indexes, length);
          flags = Arrays.copyOf(flags, length);
        }
      }
      System.arraycopy(keys, head, keys, 0, waiting);
      System.arraycopy(ends, head, ends, 0, waiting);
      if (paned) {
        System.arraycopy(cutoffs, head, cutoffs, 0, waiting);
        System.arraycopy(indexes, head, indexes, 0, waiting);
        System.arraycopy(flags, head, flags, 0, waiting);
      }
      head = 0;
      tail = waiting;
    }
    return tail;
  }
}
