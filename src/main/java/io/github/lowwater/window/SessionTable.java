package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;

/**
 * The sessions of {@link SessionWindows}: per key, its open sessions in start order, and every open
 * session in a heap by end, so that the watermark closes them earliest end first. A session is a
 * slot of parallel primitive arrays (first and last event time side by side, key id, accumulator,
 * heap position), kept on a free list once emitted: steady state allocates nothing.
 *
 * <p>The heap is lazy about ends that grow: each entry holds the end its session had when it was
 * last placed, a lower bound of its end, and an event that only moves a session's end later leaves
 * the heap alone. Only when such a stale entry reaches the top with its bound at or below the
 * watermark is it re-keyed to its end and sifted down. The top's bound is therefore at most every
 * open session's end, and a top whose bound is its end is the earliest: the closing order is the
 * eager heap's. Extending a session, what most events do, then costs no heap work at all.
 *
 * <p>Sessions of one key are kept apart by at least the gap: an event at {@code t} joins every open
 * session with {@code first - gap < t < last + gap} (strict), merging them if it joins several.
 * With a maximum span, only the sessions of {@code t}'s cell count, so two sessions of a key in
 * neighbouring cells may lie closer than the gap; the one that starts first still ends first. Not
 * thread-safe.
 */
final class SessionTable {

  private static final int NONE = -1;

  private final long gapMillis;

  /** Sessions never hold events of two cells {@code [k * span, (k + 1) * span)}; 0: no cut. */
  private final long spanMillis;

  private final LongFold longFold;
  private final Aggregator<Object, Object, ?> aggregator;

  // The slots.
  private long[] times = new long[32]; // first at 2 * slot, last at 2 * slot + 1: one cache line
  private int[] keyIds = new int[16];
  private int[] next = new int[16]; // the key's next session, or the next free slot
  private int[] heapPosition = new int[16];
  private long[] longs;
  private Object[] objects;
  private int slotBound;
  private int freeSlot = NONE;

  /** The first open session of each key id, or {@link #NONE}. */
  private int[] heads = new int[16];

  /**
   * The open sessions, a 4-ary heap by (bound, first, key id), where the bound is {@link
   * #heapEnds}: each session's end when it was last placed, never above its end.
   */
  private int[] heap = new int[16];

  /** The end each heap entry had when it was placed, beside it for cache-friendly comparisons. */
  private long[] heapEnds = new long[16];

  private int open;

  SessionTable(
      long gapMillis,
      long spanMillis,
      LongFold longFold,
      Aggregator<Object, Object, ?> aggregator) {
    this.gapMillis = gapMillis;
    this.spanMillis = spanMillis;
    this.longFold = longFold;
    this.aggregator = aggregator;
    if (longFold != null) {
      longs = new long[16];
    } else {
      objects = new Object[16];
    }
    Arrays.fill(heads, NONE);
  }

  /** Returns the end, exclusive, of session {@code slot}: its last event time plus the gap. */
  long end(int slot) {
    return TimeMath.saturatedAdd(times[2 * slot + 1], gapMillis);
  }

  long first(int slot) {
    return times[2 * slot];
  }

  int keyId(int slot) {
    return keyIds[slot];
  }

  long longAt(int slot) {
    return longs[slot];
  }

  Object objectAt(int slot) {
    return objects[slot];
  }

  /**
   * Returns whether {@code t} joins an open session of key {@code keyId}, an id that {@link #add}
   * has seen (the kind looks it up in the dictionary, which only {@code add} fills).
   */
  boolean joinsOpen(int keyId, long t) {
    for (int s = heads[keyId]; s != NONE; s = next[s]) {
      if (joins(s, t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code first - gap < t < last + gap}, exact for every {@code long} (no saturation), and, with a
   * maximum span, {@code t} in the session's cell.
   */
  private boolean joins(int slot, long t) {
    return within(times[2 * slot], t)
        && within(t, times[2 * slot + 1])
        && (spanMillis == 0
            || Math.floorDiv(t, spanMillis) == Math.floorDiv(times[2 * slot], spanMillis));
  }

  /** Whether {@code later - earlier < gap}, exactly: true if {@code later <= earlier}. */
  private boolean within(long later, long earlier) {
    return later <= earlier || Long.compareUnsigned(later - earlier, gapMillis) < 0;
  }

  /**
   * Adds an event of key {@code keyId} at {@code t}: into the open session it joins, merging every
   * other one it joins into the first, or into a new session. With the built-in {@code long}
   * aggregators nothing changes if the fold or a merge throws; an object aggregator's {@code add}
   * or {@code merge} that changes its accumulator and then throws leaves that change.
   *
   * @return 1 if a session opened, minus the sessions merged away, 0 otherwise
   */
  int add(int keyId, long t, Object value) {
    ensureKey(keyId);
    int target = NONE;
    int previous = NONE;
    for (int s = heads[keyId]; s != NONE; previous = s, s = next[s]) {
      if (joins(s, t)) {
        target = s;
        break;
      }
      if (times[2 * s] > t) {
        break; // sorted by first: the rest lie further on
      }
    }
    if (target == NONE) {
      int slot = newSession(keyId, t, value); // may throw: nothing taken yet
      link(keyId, previous, slot);
      heapAdd(slot);
      return 1;
    }
    // Every later session t joins is merged into the target, in start order.
    int merged = 0;
    long newLast = Math.max(times[2 * target + 1], t);
    int s = next[target];
    while (s != NONE && joins(s, t)) {
      merged++;
      newLast = Math.max(newLast, times[2 * s + 1]);
      s = next[s];
    }
    combineInto(target, value, merged);
    boolean earlierFirst = t < times[2 * target];
    if (earlierFirst) {
      times[2 * target] = t;
    }
    times[2 * target + 1] = newLast;
    for (int i = 0; i < merged; i++) {
      int gone = next[target];
      next[target] = next[gone];
      heapRemove(gone);
      free(gone);
    }
    // A later end leaves the heap's bound stale, which closeNext repairs; an earlier first lowers
    // the target's key at its bound: it may have to move up.
    if (earlierFirst) {
      siftUp(heapPosition[target]);
    }
    return -merged;
  }

  /** Folds {@code value} and the next {@code merged} sessions' accumulators into the target. */
  private void combineInto(int target, Object value, int merged) {
    if (longFold != null) {
      long acc = longFold.fold(longs[target], value);
      for (int i = 0, s = next[target]; i < merged; i++, s = next[s]) {
        acc = longFold.merge(acc, longs[s]);
      }
      longs[target] = acc; // committed only once every step succeeded
    } else {
      Object acc = aggregator.add(objects[target], value);
      for (int i = 0, s = next[target]; i < merged; i++, s = next[s]) {
        acc = aggregator.merge(acc, objects[s]);
      }
      objects[target] = acc;
    }
  }

  private int newSession(int keyId, long t, Object value) {
    long longAcc = 0;
    Object objectAcc = null;
    if (longFold != null) {
      longAcc = longFold.fold(longFold.initial(), value);
    } else {
      objectAcc = aggregator.add(aggregator.create(), value);
    }
    int slot = allocate();
    times[2 * slot] = t;
    times[2 * slot + 1] = t;
    keyIds[slot] = keyId;
    if (longFold != null) {
      longs[slot] = longAcc;
    } else {
      objects[slot] = objectAcc;
    }
    return slot;
  }

  private void link(int keyId, int previous, int slot) {
    if (previous == NONE) {
      next[slot] = heads[keyId];
      heads[keyId] = slot;
    } else {
      next[slot] = next[previous];
      next[previous] = slot;
    }
  }

  /**
   * Closes the open session with the earliest end if that end is {@code <= watermark}: it leaves
   * its key's list and the heap, and stays readable until {@link #free}.
   *
   * @return the closed session's slot, or -1
   */
  int closeNext(long watermark) {
    int slot;
    while (true) {
      if (open == 0 || heapEnds[0] > watermark) {
        return NONE;
      }
      slot = heap[0];
      long end = end(slot);
      if (end == heapEnds[0]) {
        break;
      }
      heapEnds[0] = end; // stale: the session grew since it was placed
      siftDown(0);
    }
    heapRemove(slot);
    // The key's first session: within a cell its sessions lie at least a gap apart, and one of an
    // earlier cell ends by its cell's end plus the gap, before a later cell's session: the one
    // that starts first also ends first.
    heads[keyIds[slot]] = next[slot];
    return slot;
  }

  /** Gives an emitted session's slot back. */
  void free(int slot) {
    if (objects != null) {
      objects[slot] = null;
    }
    next[slot] = freeSlot;
    freeSlot = slot;
  }

  /** Returns the number of open sessions. */
  int openCount() {
    return open;
  }

  /**
   * Returns the earliest first event time of the open sessions, or {@code Long.MAX_VALUE} when none
   * is open. O(open sessions).
   */
  long oldestOpenFirst() {
    long oldest = Long.MAX_VALUE;
    for (int i = 0; i < open; i++) {
      oldest = Math.min(oldest, times[2 * heap[i]]);
    }
    return oldest;
  }

  /** Sets the bit of the key id of every open session. */
  void markIds(long[] live) {
    for (int i = 0; i < open; i++) {
      int id = keyIds[heap[i]];
      live[id >>> 6] |= 1L << id;
    }
  }

  private void ensureKey(int keyId) {
    if (keyId >= heads.length) {
      int old = heads.length;
      heads = Arrays.copyOf(heads, Math.max(keyId + 1, old * 2));
      Arrays.fill(heads, old, heads.length, NONE);
    }
  }

  private int allocate() {
    if (freeSlot != NONE) {
      int slot = freeSlot;
      freeSlot = next[slot];
      return slot;
    }
    if (slotBound == keyIds.length) {
      int n = slotBound * 2;
      times = Arrays.copyOf(times, 2 * n);
      keyIds = Arrays.copyOf(keyIds, n);
      next = Arrays.copyOf(next, n);
      heapPosition = Arrays.copyOf(heapPosition, n);
      if (longs != null) {
        longs = Arrays.copyOf(longs, n);
      } else {
        objects = Arrays.copyOf(objects, n);
      }
    }
    return slotBound++;
  }

  // The heap, by (bound, first, key id): a total order over open sessions, so the closing order
  // depends only on the sessions, never on the order they were added in.

  private boolean before(long boundA, int a, long boundB, int b) {
    if (boundA != boundB) {
      return boundA < boundB;
    }
    if (times[2 * a] != times[2 * b]) {
      return times[2 * a] < times[2 * b];
    }
    return keyIds[a] < keyIds[b];
  }

  private void heapAdd(int slot) {
    if (open == heap.length) {
      heap = Arrays.copyOf(heap, open * 2);
      heapEnds = Arrays.copyOf(heapEnds, open * 2);
    }
    place(slot, end(slot), open);
    open++;
    siftUp(open - 1);
  }

  private void heapRemove(int slot) {
    int i = heapPosition[slot];
    open--;
    if (i != open) {
      place(heap[open], heapEnds[open], i);
      siftDown(siftUp(i));
    }
  }

  private int siftUp(int i) {
    int slot = heap[i];
    long bound = heapEnds[i];
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      if (!before(bound, slot, heapEnds[parent], heap[parent])) {
        break;
      }
      place(heap[parent], heapEnds[parent], i);
      i = parent;
    }
    place(slot, bound, i);
    return i;
  }

  private void siftDown(int i) {
    int slot = heap[i];
    long bound = heapEnds[i];
    while (true) {
      int child = 4 * i + 1;
      if (child >= open) {
        break;
      }
      // The least of up to four children, which lie side by side.
      for (int c = child + 1, endChild = Math.min(child + 4, open); c < endChild; c++) {
        if (before(heapEnds[c], heap[c], heapEnds[child], heap[child])) {
          child = c;
        }
      }
      if (!before(heapEnds[child], heap[child], bound, slot)) {
        break;
      }
      place(heap[child], heapEnds[child], i);
      i = child;
    }
    place(slot, bound, i);
  }

  private void place(int slot, long bound, int i) {
    heap[i] = slot;
    heapEnds[i] = bound;
    heapPosition[slot] = i;
  }
}
