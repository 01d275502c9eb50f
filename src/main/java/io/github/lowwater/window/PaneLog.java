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

  /**
   * Sessions only ({@link #replaces}), else {@code null}: per row, how many replaced starts it
   * carries, which lie in {@link #replaced} in row order from {@link #replacedHead}.
   */
  private int[] replacedCounts;

  private long[] replaced;
  private int replacedHead;
  private int replacedTail;

  /** Replaced starts appended since the last row: the next row's. */
  private int pendingReplaced;

  /**
   * While true, rows and replaced starts are dropped as they come (see {@link
   * EventTimeWindows#replaying}): their indexes are taken all the same, by the producers.
   */
  boolean replaying;

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
    if (replaying) {
      return;
    }
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
    if (replaying) {
      return;
    }
    int row = append(start, end, key, timing, index, isFinal);
    accumulators[row] = accumulator;
  }

  /**
   * Notes that the next row appended replaces the earlier row of its key that started at {@code
   * start} (a session that grew over it): the drain calls {@link ResultVisitor#visitReplaced}
   * before that row.
   */
  void replaces(long start) {
    if (replaying) {
      return;
    }
    if (replacedCounts == null) {
      replacedCounts = new int[starts.length];
      replaced = new long[16];
    }
    if (replacedTail == replaced.length) {
      int waiting = replacedTail - replacedHead;
      if (replacedHead > 0 && waiting * 2 <= replaced.length) {
        System.arraycopy(replaced, replacedHead, replaced, 0, waiting);
      } else {
        long[] grown = new long[replaced.length * 2];
        System.arraycopy(replaced, replacedHead, grown, 0, waiting);
        replaced = grown;
      }
      replacedHead = 0;
      replacedTail = waiting;
    }
    replaced[replacedTail++] = start;
    pendingReplaced++;
  }

  private int append(long start, long end, Object key, Timing timing, int index, boolean isFinal) {
    if (tail == starts.length) {
      makeRoom();
    }
    int row = tail++;
    if (replacedCounts != null) {
      replacedCounts[row] = pendingReplaced;
      pendingReplaced = 0;
    }
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
      if (replacedCounts != null) {
        System.arraycopy(replacedCounts, head, replacedCounts, 0, rows);
      }
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
      if (replacedCounts != null) {
        replacedCounts = Arrays.copyOf(replacedCounts, length);
      }
      if (primitive) {
        longs = Arrays.copyOf(longs, length);
      } else {
        accumulators = Arrays.copyOf(accumulators, length);
      }
    }
  }

  /**
   * Appends the rows of {@code other}, with the starts they replace, in order, and takes them out
   * of it. Both logs are of the same kind (a {@code long} aggregator or not).
   */
  void takeFrom(PaneLog<?, ?> other) {
    int at = other.replacedHead;
    for (int row = other.head; row < other.tail; row++) {
      if (other.replacedCounts != null) {
        for (int n = other.replacedCounts[row]; n > 0; n--) {
          replaces(other.replaced[at++]);
        }
      }
      int flag = other.flags[row];
      Timing timing = TIMINGS[flag & TIMING_BITS];
      boolean isFinal = (flag & FINAL_BIT) != 0;
      if (primitive) {
        addLong(
            other.starts[row],
            other.ends[row],
            other.keys[row],
            other.longs[row],
            timing,
            other.indexes[row],
            isFinal);
      } else {
        addObject(
            other.starts[row],
            other.ends[row],
            other.keys[row],
            other.accumulators[row],
            timing,
            other.indexes[row],
            isFinal);
      }
    }
    other.takeAll();
  }

  /** Returns whether no row waits. */
  boolean isEmpty() {
    return head == tail;
  }

  /** Returns the earliest start of the rows waiting, or {@code Long.MAX_VALUE}. O(rows). */
  long oldestStart() {
    long oldest = Long.MAX_VALUE;
    for (int row = head; row < tail; row++) {
      oldest = Math.min(oldest, starts[row]);
    }
    return oldest;
  }

  /** Returns the number of rows waiting. */
  int size() {
    return tail - head;
  }

  /** Visits every waiting row and keeps them; see {@link #takeAll}. */
  void visitAll(ResultVisitor<? super K, ? super R> visitor) {
    int at = replacedHead;
    for (int row = head; row < tail; row++) {
      at = visit(row, at, visitor);
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
    int at = replacedHead;
    try {
      for (int row = head; row < tail; row++) {
        at = visit(row, at, visitor);
        visited++;
      }
    } finally {
      forget(head + visited);
    }
    return visited;
  }

  /**
   * Hands one row to the visitor, after the starts it replaces, which lie in {@link #replaced} from
   * {@code at}; returns where the next row's lie.
   */
  private int visit(int row, int at, ResultVisitor<? super K, ? super R> visitor) {
    @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
    K key = (K) keys[row];
    if (replacedCounts != null) {
      for (int n = replacedCounts[row]; n > 0; n--) {
        visitor.visitReplaced(replaced[at++], key);
      }
    }
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
    return at;
  }

  /** Drops the rows before {@code newHead}: their references go; an empty log starts over. */
  private void forget(int newHead) {
    if (replacedCounts != null) {
      for (int row = head; row < newHead; row++) {
        replacedHead += replacedCounts[row]; // a row's replaced starts go with it
      }
    }
    Arrays.fill(keys, head, newHead, null);
    if (!primitive) {
      Arrays.fill(accumulators, head, newHead, null);
    }
    head = newHead;
    if (head == tail) {
      head = 0;
      tail = 0;
      if (replacedCounts != null) { // starts noted for a row to come, if any, move to the front
        int pending = replacedTail - replacedHead;
        System.arraycopy(replaced, replacedHead, replaced, 0, pending);
        replacedHead = 0;
        replacedTail = pending;
      }
    }
  }
}
