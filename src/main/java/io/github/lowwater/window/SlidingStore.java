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

  /** The most runs kept for reuse, and the largest arrays a kept run keeps. */
  static final int MAX_SPARE = 1_024;

  static final int MAX_SPARE_CAPACITY = 64;

  /** Runs of keys that left, for reuse. */
  private Run[] spare = new Run[16];

  private int spareCount;

  /**
   * The min-heap of runs with a candidate to decide, by (next candidate end, key id); the two sort
   * keys are kept beside the runs, so that a comparison reads no run.
   */
  private Run[] heap = new Run[16];

  private long[] heapNext = new long[16];
  private int[] heapId = new int[16];
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

    /** The records dropped from the front of the arrays so far: absolute positions for the fold. */
    long dropped;

    /** With a built-in {@code long} aggregator: the key's windows folded in O(1) each; or null. */
    LongWindowFold longFold;
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
   */
  void close(long watermark, long writtenThrough) {
    while (heapSize > 0 && heapNext[0] <= watermark) {
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

  /**
   * Folds the {@code i}-th waiting window with the built-in long aggregator: through the key's
   * {@link LongWindowFold}, since a key's windows are drained with starts and ends that only move
   * forward.
   */
  long foldLong(int i, LongFold fold) {
    Run run = runs[readyKey(i)];
    long end = readyEnd(i);
    int from = firstAtOrAfter(run, startOf(end));
    int to = windowTo(run, end);
    if (run.longFold == null) {
      run.longFold = new LongWindowFold();
    }
    return run.longFold.fold(fold, run.values, run.dropped, from + run.dropped, to + run.dropped);
  }

  /** Folds the {@code i}-th waiting window with an object aggregator (see {@link #foldLong}). */
  Object fold(int i, Aggregator<Object, Object, ?> aggregator) {
    Run run = runs[readyKey(i)];
    long end = readyEnd(i);
    Object acc = aggregator.create();
    for (int j = firstAtOrAfter(run, startOf(end)), to = windowTo(run, end); j < to; j++) {
      acc = aggregator.add(acc, run.values[j]);
    }
    return acc;
  }

  /**
   * The index after the last record of the window ending at {@code end}: the first at or after it,
   * or every record for a saturated window, which holds the records through it.
   */
  private static int windowTo(Run run, long end) {
    return end == Long.MAX_VALUE ? run.size : firstAtOrAfter(run, end);
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
   * Whether the candidate window ending at {@code end} exists: it holds a record (a candidate is
   * made by a record at {@code end - 1}, which it holds, or by one at {@code end - d - 2}, which
   * makes it only with a record in it). A saturated end ({@code Long.MAX_VALUE}) stands for every
   * window whose end would pass it: it exists if one of them does, that is if a record lies at or
   * after {@code MAX - 1}, or two records of different times at or after {@code MAX - d - 2} (a
   * window that starts just after the first holds the second: they are at most {@code d} apart).
   */
  private boolean defines(Run run, long end) {
    if (end == Long.MAX_VALUE) {
      if (firstAtOrAfter(run, Long.MAX_VALUE - 1) < run.size) {
        return true;
      }
      int first =
          firstAtOrAfter(
              run, TimeMath.saturatedSubtract(TimeMath.saturatedSubtract(Long.MAX_VALUE, d), 2));
      return first < run.size && run.times[run.size - 1] > run.times[first];
    }
    return firstAtOrAfter(run, startOf(end)) < windowTo(run, end);
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
    if (run.heapIndex >= 0 && run.next == next) {
      return true; // mostly so: a record in order does not move its key's next candidate
    }
    run.next = next;
    if (run.heapIndex < 0) {
      if (heapSize == heap.length) {
        heap = Arrays.copyOf(heap, heapSize * 2);
        heapNext = Arrays.copyOf(heapNext, heapSize * 2);
        heapId = Arrays.copyOf(heapId, heapSize * 2);
      }
      place(run, heapSize++);
      siftUp(run.heapIndex);
    } else {
      heapNext[run.heapIndex] = next;
      siftUp(run.heapIndex);
      siftDown(run.heapIndex);
    }
    return true;
  }

  /**
   * Lets go of the records whose last candidate is decided ({@code t + d + 2 <= decided}, every
   * record once {@code decided} is {@code Long.MAX_VALUE}), once they are half the run or all of
   * it: amortized O(1) per record, where a copy of the rest at every drain would cost the run's
   * length. Until then they stay at the front, where no candidate, window or fold reaches them
   * (each searches from a start later than theirs).
   */
  private void dropDecided(Run run) {
    int n = run.decided == Long.MAX_VALUE ? run.size : firstAtOrAfter(run, startOf(run.decided));
    if (n == 0 || (n < run.size && n * 2 < run.size)) {
      return;
    }
    int rest = run.size - n;
    System.arraycopy(run.times, n, run.times, 0, rest);
    System.arraycopy(run.values, n, run.values, 0, rest);
    Arrays.fill(run.values, rest, run.size, null);
    run.size = rest;
    run.dropped += n;
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
    run.dropped = 0;
    if (run.longFold != null) {
      run.longFold.reset();
    }
    runs[id] = run;
    return run;
  }

  /**
   * A key without records or rows: its run is kept for reuse (its arrays cut back if a dense key
   * grew them, and no more than {@link #MAX_SPARE} runs kept), its id left to the dictionary.
   */
  private void release(Run run) {
    runs[run.id] = null;
    counters.windowClosed(0);
    if (spareCount == MAX_SPARE) {
      return;
    }
    if (run.times.length > MAX_SPARE_CAPACITY) {
      run.times = new long[4];
      run.values = new Object[4];
    }
    if (spareCount == spare.length) {
      spare = Arrays.copyOf(spare, spareCount * 2);
    }
    spare[spareCount++] = run;
  }

  /** Puts {@code run} at heap position {@code i}, its sort keys beside it. */
  private void place(Run run, int i) {
    heap[i] = run;
    heapNext[i] = run.next;
    heapId[i] = run.id;
    run.heapIndex = i;
  }

  /** Whether the run of sort keys ({@code next}, {@code id}) goes before position {@code i}. */
  private boolean before(long next, int id, int i) {
    return precedes(next, id, heapNext[i], heapId[i]);
  }

  private static boolean precedes(long next, int id, long otherNext, int otherId) {
    return next < otherNext || (next == otherNext && id < otherId);
  }

  private void siftUp(int i) {
    Run run = heap[i];
    long next = heapNext[i];
    int id = heapId[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(next, id, parent)) {
        break;
      }
      place(heap[parent], i);
      i = parent;
    }
    place(run, i);
  }

  private void siftDown(int i) {
    Run run = heap[i];
    long next = heapNext[i];
    int id = heapId[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= heapSize) {
        break;
      }
      if (child + 1 < heapSize && before(heapNext[child + 1], heapId[child + 1], child)) {
        child++;
      }
      if (!precedes(heapNext[child], heapId[child], next, id)) {
        break;
      }
      place(heap[child], i);
      i = child;
    }
    place(run, i);
  }

  private void removeAt(int i) {
    Run removed = heap[i];
    removed.heapIndex = -1;
    int lastIndex = --heapSize;
    Run last = heap[lastIndex];
    heap[lastIndex] = null;
    if (i < heapSize) {
      place(last, i);
      siftUp(i);
      siftDown(last.heapIndex);
    }
  }
}
