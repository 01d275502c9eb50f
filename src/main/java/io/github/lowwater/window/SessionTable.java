package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;

/**
 * The sessions of {@link SessionWindows}: per key, its open sessions in start order, and every open
 * session in a heap by end, so that the watermark closes them earliest end first. A session is a
 * slot of parallel primitive arrays (first and last event time, key id, accumulator, heap
 * position), kept on a free list once emitted: steady state allocates nothing.
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
  private long[] first = new long[16];
  private long[] last = new long[16];
  private int[] keyIds = new int[16];
  private int[] next = new int[16]; // the key's next session, or the next free slot
  private int[] heapPosition = new int[16];
  private long[] longs;
  private Object[] objects;
  private int slotBound;
  private int freeSlot = NONE;

  /** The first open session of each key id, or {@link #NONE}. */
  private int[] heads = new int[16];

  /** The open sessions, a binary heap by (end, first, key id). */
  private int[] heap = new int[16];

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
    return TimeMath.saturatedAdd(last[slot], gapMillis);
  }

  long first(int slot) {
    return first[slot];
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
    return within(first[slot], t)
        && within(t, last[slot])
        && (spanMillis == 0
            || Math.floorDiv(t, spanMillis) == Math.floorDiv(first[slot], spanMillis));
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
      if (first[s] > t) {
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
    long newLast = Math.max(last[target], t);
    int s = next[target];
    while (s != NONE && joins(s, t)) {
      merged++;
      newLast = Math.max(newLast, last[s]);
      s = next[s];
    }
    combineInto(target, value, merged);
    first[target] = Math.min(first[target], t);
    last[target] = newLast;
    for (int i = 0; i < merged; i++) {
      int gone = next[target];
      next[target] = next[gone];
      heapRemove(gone);
      free(gone);
    }
    heapFix(heapPosition[target]);
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
    first[slot] = t;
    last[slot] = t;
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
    if (open == 0 || end(heap[0]) > watermark) {
      return NONE;
    }
    int slot = heap[0];
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
      oldest = Math.min(oldest, first[heap[i]]);
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
    if (slotBound == first.length) {
      int n = slotBound * 2;
      first = Arrays.copyOf(first, n);
      last = Arrays.copyOf(last, n);
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

  // The heap, by (end, first, key id): a total order over open sessions, so the closing order
  // depends only on the sessions, never on the order they were added in.

  private boolean before(int a, int b) {
    int c = Long.compare(end(a), end(b));
    if (c == 0) {
      c = Long.compare(first[a], first[b]);
    }
    if (c == 0) {
      c = Integer.compare(keyIds[a], keyIds[b]);
    }
    return c < 0;
  }

  private void heapAdd(int slot) {
    if (open == heap.length) {
      heap = Arrays.copyOf(heap, open * 2);
    }
    heap[open] = slot;
    heapPosition[slot] = open;
    open++;
    siftUp(open - 1);
  }

  private void heapRemove(int slot) {
    int i = heapPosition[slot];
    open--;
    if (i != open) {
      heap[i] = heap[open];
      heapPosition[heap[i]] = i;
      heapFix(i);
    }
  }

  private void heapFix(int i) {
    siftDown(siftUp(i));
  }

  private int siftUp(int i) {
    int slot = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(slot, heap[parent])) {
        break;
      }
      place(heap[parent], i);
      i = parent;
    }
    place(slot, i);
    return i;
  }

  private void siftDown(int i) {
    int slot = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= open) {
        break;
      }
      if (child + 1 < open && before(heap[child + 1], heap[child])) {
        child++;
      }
      if (!before(heap[child], slot)) {
        break;
      }
      place(heap[child], i);
      i = child;
    }
    place(slot, i);
  }

  private void place(int slot, int i) {
    heap[i] = slot;
    heapPosition[slot] = i;
  }
}
