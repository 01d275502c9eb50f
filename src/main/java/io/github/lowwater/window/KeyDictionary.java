package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The keys of one {@link TumblingWindows}, each mapped once to a dense {@code int} id that outlives
 * the windows: an open window then stores its accumulators by id ({@link IdIndex}) instead of
 * holding a map of key objects.
 *
 * <p><b>Eviction.</b> Each id remembers the end of the newest window it has an entry in ({@link
 * #use}). Once every window ending at or before some instant has been emitted, {@link
 * #release(long)} says so; an id whose newest window ends at or before the released instant is used
 * by no window, open or waiting to be emitted. Such ids are evicted lazily, when the table would
 * otherwise grow: so a dictionary over unbounded key churn holds the keys of the windows not yet
 * emitted, plus at most as many again, and a steady key set costs nothing after warm-up.
 *
 * <p><b>Memory.</b> The hash table holds a key reference and an id per slot (8 bytes with
 * compressed references) at a load of at most 1/2 after a sweep and 3/4 before one; per id, the key
 * again (4 bytes) and the newest window end (8 bytes). About 28 to 36 bytes per key, not counting
 * the key objects, which the caller's records hold anyway.
 *
 * <p>Lookups allocate nothing; only growth does. Not thread-safe.
 */
final class KeyDictionary {

  private static final int MIN_CAPACITY = 16;

  /** {@link #newestEnd} of an id whose key was added but never used by a window. */
  private static final long NEVER_USED = Long.MIN_VALUE;

  // The hash table: key and id per slot, null key for an empty slot; linear probing.
  private Object[] slotKeys;
  private int[] slotIds;
  private int mask;
  private int size;

  // Per id.
  private Object[] keys;
  private long[] newestEnd;
  private int nextId;
  private int[] freeIds = new int[0];
  private int freeCount;

  /** Every window ending at or before this has been emitted. */
  private long released = Long.MIN_VALUE;

  /** {@link #released} at the last sweep: a sweep before it moves again cannot free anything. */
  private long sweptAt = Long.MIN_VALUE;

  private boolean sweptOnce;

  KeyDictionary() {
    slotKeys = new Object[MIN_CAPACITY];
    slotIds = new int[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
    keys = new Object[MIN_CAPACITY];
    newestEnd = new long[MIN_CAPACITY];
  }

  /** Returns the number of keys held, evictable ones included. */
  int size() {
    return size;
  }

  /** Returns the number of hash slots (for the memory model). */
  int capacity() {
    return slotKeys.length;
  }

  /**
   * Returns the id of {@code key}, adding it if it is absent.
   *
   * @param key a non-null key, compared with {@code equals}
   */
  int id(Object key) {
    int i = slot(key);
    Object k;
    while ((k = slotKeys[i]) != null) {
      if (k == key || k.equals(key)) {
        return slotIds[i];
      }
      i = (i + 1) & mask;
    }
    if (size + 1 > (slotKeys.length >>> 1) + (slotKeys.length >>> 2)) {
      makeRoom();
      i = slot(key);
      while (slotKeys[i] != null) {
        i = (i + 1) & mask;
      }
    }
    int id = freeCount > 0 ? freeIds[--freeCount] : newId();
    keys[id] = key;
    newestEnd[id] = NEVER_USED;
    slotKeys[i] = key;
    slotIds[i] = id;
    size++;
    return id;
  }

  /** Returns a bound on the ids: every id handed out so far is below it. */
  int idBound() {
    return nextId;
  }

  /** Returns the key of a live id. */
  Object key(int id) {
    return keys[id];
  }

  /** Records that {@code id} has an entry in a window ending at {@code windowEnd}. */
  void use(int id, long windowEnd) {
    if (windowEnd > newestEnd[id]) {
      newestEnd[id] = windowEnd;
    }
  }

  /**
   * Declares that every window ending at or before {@code emittedThrough} has been emitted: ids
   * used by no later window may be evicted from now on.
   */
  void release(long emittedThrough) {
    if (emittedThrough > released) {
      released = emittedThrough;
    }
  }

  /** Evicts what can be evicted, then grows the table if it is still more than half full. */
  private void makeRoom() {
    if (!sweptOnce || released != sweptAt) {
      sweep();
    }
    if (size + 1 > slotKeys.length >>> 1) {
      rehash(slotKeys.length * 2);
    }
  }

  /**
   * Frees every id whose newest window is emitted, in place: each evicted slot is closed by moving
   * back the later entries of its probe run, so that the sweep allocates nothing.
   */
  private void sweep() {
    sweptOnce = true;
    sweptAt = released;
    int i = 0;
    while (i < slotKeys.length) {
      if (slotKeys[i] != null && newestEnd[slotIds[i]] <= released) {
        free(slotIds[i]);
        shiftBack(i); // slot i now holds a later entry of its run, or nothing: look again
        size--;
      } else {
        i++;
      }
    }
  }

  private void free(int id) {
    keys[id] = null;
    if (freeCount == freeIds.length) {
      freeIds = Arrays.copyOf(freeIds, Math.max(16, freeCount * 2));
    }
    freeIds[freeCount++] = id;
  }

  /** Closes the gap at {@code hole} by moving back later entries of the same probe run. */
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      Object k = slotKeys[i];
      if (k == null) {
        break;
      }
      int home = slot(k);
      // Move entry i into the hole unless its home lies cyclically in (hole, i].
      boolean homeBetween = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!homeBetween) {
        slotKeys[hole] = k;
        slotIds[hole] = slotIds[i];
        hole = i;
      }
    }
    slotKeys[hole] = null;
  }

  private void rehash(int capacity) {
    Object[] oldKeys = slotKeys;
    int[] oldIds = slotIds;
    slotKeys = new Object[capacity];
    slotIds = new int[capacity];
    mask = capacity - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      Object k = oldKeys[j];
      if (k != null) {
        int i = slot(k);
        while (slotKeys[i] != null) {
          i = (i + 1) & mask;
        }
        slotKeys[i] = k;
        slotIds[i] = oldIds[j];
      }
    }
  }

  private int newId() {
    if (nextId == keys.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
      newestEnd = Arrays.copyOf(newestEnd, newestEnd.length * 2);
    }
    return nextId++;
  }

  private int slot(Object key) {
    int h = key.hashCode() * 0x9E37_79B9; // spreads the poor low bits of small hash codes
    return (h ^ (h >>> 16)) & mask;
  }
}
