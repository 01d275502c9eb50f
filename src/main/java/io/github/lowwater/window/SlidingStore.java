package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;

/**
 * The records of {@link SlidingWindows}, by key, and the windows they decide.
 *
 * <p>Each key with records held has a {@link Run}: its records in time order (equal times in
 * arrival order), and the end through which its windows are decided. A window {@code [end - d - 1,
 * end)} of a key is a <em>candidate</em> when a record lies at {@code end - 1} (the window that
 * ends at it) or at {@code end - d - 2} (the window that starts just after it); the candidates of a
 * run are decided in ascending end order as the watermark passes them, and the runs wait in a
 * min-heap by their next candidate, so a watermark rise costs {@code O(log runs)} per decided
 * window and nothing for the keys it does not reach.
 *
 * <p>A decided window is queued as (key, end) and folded when it is drained, from the records still
 * held: a record that is not late lies at or after the watermark, so none that came after a window
 * closed is in it. So an aggregator's exception is a drain's, and leaves the window queued. A
 * record is let go once no window can need it: its last candidate ({@code t + d + 2}) is decided
 * and no row of its key waits.
 *
 * <p>Allocates only when a key's arrays or the queue grow, and for a run of a new key (runs of keys
 * that leave are reused). Not thread-safe.
 */
final class SlidingStore {

  private final long d;
  private final WindowCounters counters;

  /** The runs by key id; null for a key without records or rows. */
  private Run[] runs = new Run[16];

  /** Runs of keys that left, for reuse. */
  private Run[] spare = new Run[16];

  private int spareCount;

  /** The min-heap of runs with a candidate to decide, by (next candidate end, key id). */
  private Run[] heap = new Run[16];

  private int heapSize;

  // The decided windows waiting for a drain, in the order they were decided: a FIFO.
  private int[] rowKey = new int[16];
  private long[] rowEnd = new long[16];
  private int rowHead;
  private int rowTail;

  SlidingStore(long timeDifferenceMillis, WindowCounters counters) {
    this.d = timeDifferenceMillis;
    this.counters = counters;
  }

  /** The records and the decisions of one key. */
  static final class Run {
    int id;
    long[] times = new long[4];
    Object[] values = new Object[4];
    int size;

    /** Every candidate window of this key ending at or before it is decided. */
    long decided;

    /** The next candidate end, the heap's key; valid while in the heap. */
    long next;

    /** The position in the heap, or -1. */
    int heapIndex = -1;

    /** The rows of this key waiting for a drain. */
    int queued;
  }

  /** The run of a key id, or null. */
  Run run(int id) {
    return id < runs.length ? runs[id] : null;
  }

  /**
   * Holds a record that is not late against {@code watermark} ({@code t >= watermark}): every
   * candidate of its key ending by the watermark is decided already (a watermark rise decides them
   * before the next record comes).
   */
  void add(int id, long t, Object value, long watermark) {
    Run run = run(id);
    if (run == null) {
      run = newRun(id, watermark);
      counters.windowOpened();
    }
    run.decided = Math.max(run.decided, watermark);
    insert(run, t, value);
    counters.entryOpened();
    reschedule(run);
  }

  /**
   * Decides every candidate window ending at or before {@code watermark}, in ascending end order
   * (equal ends by key id): a window is queued unless it ends at or before {@code writtenThrough}.
   *
   * @return the number of windows queued
   */
  int close(long watermark, long writtenThrough) {
    int queuedBefore = rowTail - rowHead;
    while (heapSize > 0 && heap[0].next <= watermark) {
      Run run = heap[0];
      long end = run.next;
      if (end > writtenThrough && defines(run, end)) {
        queue(run, end);
      }
      run.decided = end;
      if (run.queued == 0) {
        dropDecided(run);
      }
      if (!reschedule(run) && run.size == 0 && run.queued == 0) {
        release(run);
      }
    }
    return rowTail - rowHead - queuedBefore;
  }

  /** The decided windows waiting. */
  int ready() {
    return rowTail - rowHead;
  }

  /** The key id of the {@code i}-th waiting window (from 0). */
  int readyKey(int i) {
    return rowKey[rowHead + i];
  }

  /** The end of the {@code i}-th waiting window. */
  long readyEnd(int i) {
    return rowEnd[rowHead + i];
  }

  /** The start of a window ending at {@code end}: {@code end - d - 1}, saturating. */
  long startOf(long end) {
    return TimeMath.saturatedSubtract(TimeMath.saturatedSubtract(end, d), 1);
  }

  /** Folds the {@code i}-th waiting window with the built-in long aggregator. */
  long foldLong(int i, LongFold fold) {
    Run run = runs[readyKey(i)];
    long end = readyEnd(i);
    long acc = fold.initial();
    for (int j = firstAtOrAfter(run, startOf(end));
        j < run.size && inWindow(run.times[j], end);
        j++) {
      acc = fold.fold(acc, run.values[j]);
    }
    return acc;
  }

  /** Folds the {@code i}-th waiting window with an object aggregator (see {@link #foldLong}). */
  Object fold(int i, Aggregator<Object, Object, ?> aggregator) {
    Run run = runs[readyKey(i)];
    long end = readyEnd(i);
    Object acc = aggregator.create();
    for (int j = firstAtOrAfter(run, startOf(end));
        j < run.size && inWindow(run.times[j], end);
        j++) {
      acc = aggregator.add(acc, run.values[j]);
    }
    return acc;
  }

  /** Whether a record at {@code t} at or after the start is in the window ending at {@code end}. */
  private static boolean inWindow(long t, long end) {
    return t < end || end == Long.MAX_VALUE; // a saturated window holds the records through it
  }

  /** Takes the oldest waiting window off the queue, and lets go of what only it needed. */
  void take() {
    Run run = runs[rowKey[rowHead++]];
    if (rowHead == rowTail) {
      rowHead = 0;
      rowTail = 0;
    }
    if (--run.queued == 0) {
      dropDecided(run);
      if (run.size == 0 && run.heapIndex < 0) {
        release(run);
      }
    }
  }

  /** Sets the bit of every key id with records held or rows waiting. */
  void markIds(long[] live) {
    for (Run r : runs) {
      if (r != null) {
        live[r.id >>> 6] |= 1L << r.id;
      }
    }
  }

  /**
   * Whether the candidate window ending at {@code end} exists: a record at {@code end - 1}, or one
   * at {@code end - d - 2} and one in the window.
   */
  private boolean defines(Run run, long end) {
    int i = firstAtOrAfter(run, end - 1);
    if (i < run.size && (run.times[i] == end - 1 || end == Long.MAX_VALUE)) {
      return true; // the window that ends at a record (or, saturated, at several): it holds them
    }
    int first = firstAtOrAfter(run, startOf(end));
    return first < run.size && inWindow(run.times[first], end);
  }

  private void queue(Run run, long end) {
    if (rowTail == rowKey.length) {
      int waiting = rowTail - rowHead;
      if (waiting * 2 > rowKey.length) {
        rowKey = Arrays.copyOf(rowKey, rowKey.length * 2);
        rowEnd = Arrays.copyOf(rowEnd, rowEnd.length * 2);
      }
      System.arraycopy(rowKey, rowHead, rowKey, 0, waiting);
      System.arraycopy(rowEnd, rowHead, rowEnd, 0, waiting);
      rowHead = 0;
      rowTail = waiting;
    }
    rowKey[rowTail] = run.id;
    rowEnd[rowTail] = end;
    rowTail++;
    run.queued++;
    counters.windowFinalized();
  }

  /**
   * The next candidate end above {@code decided}: the smallest of {@code t + 1} over the records at
   * or after it and {@code t + d + 2} over the others; {@code Long.MIN_VALUE} for none. Saturating,
   * so that a candidate past {@code Long.MAX_VALUE} is decided at it, with the others there.
   */
  private long nextCandidate(Run run) {
    long decided = run.decided;
    long next = Long.MIN_VALUE;
    int left = firstAtOrAfter(run, decided); // t + 1 > decided, unless t + 1 saturates
    if (left < run.size) {
      long end = TimeMath.saturatedAdd(run.times[left], 1);
      if (end > decided) {
        next = end;
      }
    }
    // t + d + 2 > decided, that is t >= decided - d - 1
    int right = firstAtOrAfter(run, startOf(decided));
    if (right < run.size) {
      long end = TimeMath.saturatedAdd(TimeMath.saturatedAdd(run.times[right], d), 2);
      if (end > decided && (next == Long.MIN_VALUE || end < next)) {
        next = end;
      }
    }
    return next;
  }

  /** Puts the run in the heap at its next candidate, or out of it; returns whether it is in. */
  private boolean reschedule(Run run) {
    long next = nextCandidate(run);
    if (next == Long.MIN_VALUE) {
      if (run.heapIndex >= 0) {
        removeAt(run.heapIndex);
      }
      return false;
    }
    run.next = next;
    if (run.heapIndex < 0) {
      if (heapSize == heap.length) {
        heap = Arrays.copyOf(heap, heapSize * 2);
      }
      run.heapIndex = heapSize;
      heap[heapSize++] = run;
      siftUp(run.heapIndex);
    } else {
      siftUp(run.heapIndex);
      siftDown(run.heapIndex);
    }
    return true;
  }

  /** Lets go of the records whose last candidate is decided: {@code t + d + 2 <= decided}. */
  private void dropDecided(Run run) {
    int n = 0;
    while (n < run.size
        && TimeMath.saturatedAdd(TimeMath.saturatedAdd(run.times[n], d), 2) <= run.decided) {
      n++;
    }
    if (n == 0) {
      return;
    }
    int rest = run.size - n;
    System.arraycopy(run.times, n, run.times, 0, rest);
    System.arraycopy(run.values, n, run.values, 0, rest);
    Arrays.fill(run.values, rest, run.size, null);
    run.size = rest;
    counters.entriesClosed(n);
  }

  /** Inserts a record at its place in time order, after the records of the same time. */
  private static void insert(Run run, long t, Object value) {
    if (run.size == run.times.length) {
      int capacity = run.size * 2;
      run.times = Arrays.copyOf(run.times, capacity);
      run.values = Arrays.copyOf(run.values, capacity);
    }
    int at = run.size;
    while (at > 0 && run.times[at - 1] > t) {
      at--; // mostly none: records come nearly in order
    }
    int moved = run.size - at;
    if (moved > 0) {
      System.arraycopy(run.times, at, run.times, at + 1, moved);
      System.arraycopy(run.values, at, run.values, at + 1, moved);
    }
    run.times[at] = t;
    run.values[at] = value;
    run.size++;
  }

  /** The index of the first record at or after {@code t}: a binary search. */
  private static int firstAtOrAfter(Run run, long t) {
    int lo = 0;
    int hi = run.size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (run.times[mid] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private Run newRun(int id, long watermark) {
    if (id >= runs.length) {
      runs = Arrays.copyOf(runs, Math.max(id + 1, runs.length * 2));
    }
    Run run = spareCount > 0 ? spare[--spareCount] : new Run();
    run.id = id;
    run.decided = watermark;
    runs[id] = run;
    return run;
  }

  /** A key without records or rows: its run is kept for reuse, its id left to the dictionary. */
  private void release(Run run) {
    runs[run.id] = null;
    counters.windowClosed(0);
    if (spareCount == spare.length) {
      spare = Arrays.copyOf(spare, spareCount * 2);
    }
    spare[spareCount++] = run;
  }

  private boolean less(Run a, Run b) {
    return a.next < b.next || (a.next == b.next && a.id < b.id);
  }

  private void siftUp(int i) {
    Run run = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(run, heap[parent])) {
        break;
      }
      heap[i] = heap[parent];
      heap[i].heapIndex = i;
      i = parent;
    }
    heap[i] = run;
    run.heapIndex = i;
  }

  private void siftDown(int i) {
    Run run = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= heapSize) {
        break;
      }
      if (child + 1 < heapSize && less(heap[child + 1], heap[child])) {
        child++;
      }
      if (!less(heap[child], run)) {
        break;
      }
      heap[i] = heap[child];
      heap[i].heapIndex = i;
      i = child;
    }
    heap[i] = run;
    run.heapIndex = i;
  }

  private void removeAt(int i) {
    Run removed = heap[i];
    removed.heapIndex = -1;
    Run last = heap[--heapSize];
    heap[heapSize] = null;
    if (i < heapSize) {
      heap[i] = last;
      last.heapIndex = i;
      siftUp(i);
      siftDown(last.heapIndex);
    }
  }
}
