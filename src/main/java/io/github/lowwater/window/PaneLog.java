package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The rows of windows with panes ({@code earlyResults} or a {@code grace} period), in the order
 * they were produced, until a drain hands them out. Each row is a copy made when it was produced: a
 * {@code long} for a built-in {@code long} aggregator, otherwise a reference to an accumulator that
 * the window no longer changes (the window copies it before its next fold: {@link PaneMarks}), so
 * that a later event never changes a row already produced. The aggregator's {@code result} is
 * called at the drain, as for windows without panes.
 *
 * <p>Rows are kept in parallel arrays that grow by doubling and are reused: once they are large
 * enough, producing and draining rows allocates nothing. Not thread-safe.
 */
final class PaneLog<K, R> {

  private static final int TIMING_BITS = 0b11;
  private static final int FINAL_BIT = 0b100;
  private static final Timing[] TIMINGS = Timing.values();

  private final Aggregator<?, Object, R> aggregator;
  private final boolean primitive;

  private long[] starts = new long[16];
  private long[] ends = new long[16];
  private Object[] keys = new Object[16];
  private long[] longs;
  private Object[] accumulators;
  private int[] indexes = new int[16];
  private byte[] flags = new byte[16];

  /** The first row not handed out yet, and one past the last row. */
  private int head;

  private int tail;

  PaneLog(Aggregator<?, Object, R> aggregator, boolean primitive) {
    this.aggregator = aggregator;
    this.primitive = primitive;
    if (primitive) {
      longs = new long[16];
    } else {
      accumulators = new Object[16];
    }
  }

  /** Appends a row of a {@code long} aggregator. */
  void addLong(
      long start, long end, Object key, long value, Timing timing, int index, boolean isFinal) {
    int row = append(start, end, key, timing, index, isFinal);
    longs[row] = value;
  }

  /** Appends a row whose value is {@code aggregator.result(accumulator)}, at the drain. */
  void addObject(
      long start,
      long end,
      Object key,
      Object accumulator,
      Timing timing,
      int index,
      boolean isFinal) {
    int row = append(start, end, key, timing, index, isFinal);
    accumulators[row] = accumulator;
  }

  private int append(long start, long end, Object key, Timing timing, int index, boolean isFinal) {
    if (tail == starts.length) {
      makeRoom();
    }
    int row = tail++;
    starts[row] = start;
    ends[row] = end;
    keys[row] = key;
    indexes[row] = index;
    flags[row] = (byte) (timing.ordinal() | (isFinal ? FINAL_BIT : 0));
    return row;
  }

  /** Moves the rows not handed out to the front, then doubles the arrays if they are still full. */
  private void makeRoom() {
    if (head > 0) {
      int rows = tail - head;
      System.arraycopy(starts, head, starts, 0, rows);
      System.arraycopy(ends, head, ends, 0, rows);
      System.arraycopy(keys, head, keys, 0, rows);
      System.arraycopy(indexes, head, indexes, 0, rows);
      System.arraycopy(flags, head, flags, 0, rows);
      if (primitive) {
        System.arraycopy(longs, head, longs, 0, rows);
      } else {
        System.arraycopy(accumulators, head, accumulators, 0, rows);
        Arrays.fill(accumulators, rows, tail, null);
      }
      Arrays.fill(keys, rows, tail, null);
      head = 0;
      tail = rows;
    }
    if (tail == starts.length) {
      int length = starts.length * 2;
      starts = Arrays.copyOf(starts, length);
      ends = Arrays.copyOf(ends, length);
      keys = Arrays.copyOf(keys, length);
      indexes = Arrays.copyOf(indexes, length);
      flags = Arrays.copyOf(flags, length);
      if (primitive) {
        longs = Arrays.copyOf(longs, length);
      } else {
        accumulators = Arrays.copyOf(accumulators, length);
      }
    }
  }

  /** Returns whether no row waits. */
  boolean isEmpty() {
    return head == tail;
  }

  /** Returns the number of rows waiting. */
  int size() {
    return tail - head;
  }

  /** Visits every waiting row and keeps them; see {@link #takeAll}. */
  void visitAll(ResultVisitor<? super K, ? super R> visitor) {
    for (int row = head; row < tail; row++) {
      visit(row, visitor);
    }
  }

  /** Takes every waiting row, as handed out. */
  void takeAll() {
    forget(tail);
  }

  /**
   * Visits the waiting rows in order, each taken once visited; if the visitor or the aggregator's
   * {@code result} throws, the row being visited stays first.
   *
   * @return the number of rows visited
   */
  int drain(ResultVisitor<? super K, ? super R> visitor) {
    int visited = 0;
    try {
      for (int row = head; row < tail; row++) {
        visit(row, visitor);
        visited++;
      }
    } finally {
      forget(head + visited);
    }
    return visited;
  }

  /** Hands one row to the visitor. */
  private void visit(int row, ResultVisitor<? super K, ? super R> visitor) {
    @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
    K key = (K) keys[row];
    int flag = flags[row];
    Timing timing = TIMINGS[flag & TIMING_BITS];
    boolean isFinal = (flag & FINAL_BIT) != 0;
    if (primitive) {
      visitor.visitLongPane(starts[row], ends[row], key, longs[row], timing, indexes[row], isFinal);
    } else {
      visitor.visitPane(
          starts[row],
          ends[row],
          key,
          aggregator.result(accumulators[row]),
          timing,
          indexes[row],
          isFinal);
    }
  }

  /** Drops the rows before {@code newHead}: their references go; an empty log starts over. */
  private void forget(int newHead) {
    Arrays.fill(keys, head, newHead, null);
    if (!primitive) {
      Arrays.fill(accumulators, head, newHead, null);
    }
    head = newHead;
    if (head == tail) {
      head = 0;
      tail = 0;
    }
  }
}
