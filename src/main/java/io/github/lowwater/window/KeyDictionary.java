package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The keys of one {@link TumblingWindows}, each mapped once to a dense {@code int} id that outlives
 * the windows: an open window then stores its accumulators by id ({@link IdIndex}) instead of
 * holding a map of key objects.
 *
 * <p><b>Eviction.</b> The dictionary does not track which window uses which id: adding an entry to
 * a window costs nothing here. When the table would otherwise grow, and a window was {@linkplain
 * #emitted() emitted} since the last sweep, it asks its {@link Users} to mark the ids of every
 * window not yet emitted (open, or finalized and waiting to be drained) and evicts the others in
 * place. So a dictionary over unbounded key churn holds the keys of the windows not yet emitted,
 * plus at most as many again, and a steady key set costs nothing after warm-up. A sweep costs the
 * entries of the windows not yet emitted, and is paid for by the new keys that filled the table.
 *
 * <p><b>Memory.</b> The hash table holds a key reference and an id per slot (8 bytes with
 * compressed references) at a load of at most 1/2 after a sweep and 3/4 before one; per id, the key
 * again (4 bytes, in an array that grows by doubling), and one bit for the sweeps. About 21 to 26
 * bytes per key as measured ({@code MemoryFootprint}: 1,000 and 100,000 keys), not counting the key
 * objects, which the caller's records hold anyway.
 *
 * <p><b>Batches.</b> {@link #resolveAhead} looks up the keys of a batch of events in one tight
 * loop, so that the cache misses of consecutive keys overlap instead of waiting for each other; it
 * adds nothing. {@link #expect} then names the key of the event being added, and {@link #id} and
 * {@link #find} answer a key found ahead without a probe. A sweep forgets what was resolved ahead
 * (it may evict those keys), so the ids, and the order in which keys get them, are exactly those of
 * the same events looked up one by one.
 *
 * <p>Lookups allocate nothing; only growth, the first sweep at a size and the first batch at a size
 * do. Not thread-safe.
 */
final class KeyDictionary {

  /** Whoever holds ids: marks those still in use when the dictionary sweeps. */
  interface Users {
    /**
     * Sets bit {@code id & 63} of {@code live[id >>> 6]} for every id that a window not yet emitted
     * holds. The array covers every id below {@link KeyDictionary#idBound()}.
     */
    void markLive(long[] live);
  }

  private static final int MIN_CAPACITY = 16;

  private final Users users;

  // The hash table: key and id per slot, null key for an empty slot; linear probing.
  private Object[] slotKeys;
  private int[] slotIds;
  private int mask;
  private int size;

  // Per id.
  private Object[] keys;
  private int nextId;
  private int[] freeIds = new int[0];
  private int freeCount;

  /** The ids marked live by the last sweep, one bit each; reused from sweep to sweep. */
  private long[] live = new long[0];

  /** Whether a window was emitted since the last sweep: else a sweep could free nothing. */
  private boolean emittedSinceSweep;

  private boolean sweptOnce;

  /** The ids {@link #resolveAhead} found, in batch order, -1 for a key absent then. */
  private int[] aheadIds = new int[0];

  /** The number of ids in {@link #aheadIds} still valid: a sweep sets it to 0. */
  private int ahead;

  /** The key of the event being added in a batch, or null, and its id: see {@link #expect}. */
  private Object expectedKey;

  private int expectedId;

  /**
   * Creates an empty dictionary.
   *
   * @param users marks the ids in use when a sweep runs
   */
  KeyDictionary(Users users) {
    this.users = users;
    slotKeys = new Object[MIN_CAPACITY];
    slotIds = new int[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
    keys = new Object[MIN_CAPACITY];
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
    if (key == expectedKey) {
      return expectedId; // found ahead, and no sweep since
    }
    int i = probe(key);
    if (i >= 0) {
      return slotIds[i];
    }
    i = ~i;
    if (size + 1 > (slotKeys.length >>> 1) + (slotKeys.length >>> 2)) {
      makeRoom();
      i = slot(key);
      while (slotKeys[i] != null) {
        i = (i + 1) & mask;
      }
    }
    int id = freeCount > 0 ? freeIds[--freeCount] : newId();
    keys[id] = key;
    slotKeys[i] = key;
    slotIds[i] = id;
    size++;
    return id;
  }

  /**
   * Returns the id of {@code key}, or -1 if it is absent; adds nothing.
   *
   * @param key a non-null key, compared with {@code equals}
   */
  int find(Object key) {
    if (key == expectedKey) {
      return expectedId;
    }
    int i = probe(key);
    return i >= 0 ? slotIds[i] : -1;
  }

  /**
   * Finds the ids of {@code batch[from, to)} in one loop, -1 for an absent or null key, and adds
   * nothing. If a key's {@code hashCode} or {@code equals} throws, the ids before it stay found
   * ({@link #resolved()} says how many) and the exception propagates.
   *
   * @return the number of ids found, from {@code from} on
   */
  int resolveAhead(Object[] batch, int from, int to) {
    int n = to - from;
    if (aheadIds.length < n) {
      aheadIds = new int[Math.max(n, aheadIds.length * 2)];
    }
    int[] ids = aheadIds;
    ahead = 0;
    int i = 0;
    try {
      for (; i < n; i++) {
        Object key = batch[from + i];
        if (key == null) {
          ids[i] = -1; // not an event (a heartbeat record), or a null key that its add refuses
        } else {
          int slot = probe(key);
          ids[i] = slot >= 0 ? slotIds[slot] : -1;
        }
      }
    } finally {
      ahead = i;
    }
    return i;
  }

  /** Returns the ids found ahead, {@code [0, resolved())} valid, -1 for an absent key. */
  int[] aheadIds() {
    return aheadIds;
  }

  /** Returns the number of ids resolved ahead that are still valid (a sweep forgets them all). */
  int resolved() {
    return ahead;
  }

  /**
   * Names the key of the event being added: {@link #id} and {@link #find} of this very object
   * answer the id found ahead at {@code index} of the batch without a probe. Does nothing if the
   * key was absent then, or a sweep has run since, or {@code index} is beyond what was resolved.
   *
   * @param index the event's index in the batch, relative to its {@code from}
   */
  void expect(int index, Object key) {
    if (index < ahead && aheadIds[index] >= 0) {
      expectedKey = key;
      expectedId = aheadIds[index];
    } else {
      expectedKey = null;
    }
  }

  /** Ends a batch: forgets what was resolved ahead, and the caller's key. */
  void endAhead() {
    ahead = 0;
    expectedKey = null;
  }

  /** Returns the slot holding {@code key}, or {@code ~slot} of the free slot where it would go. */
  private int probe(Object key) {
    int i = slot(key);
    Object k;
    while ((k = slotKeys[i]) != null) {
      if (k == key || k.equals(key)) {
        return i;
      }
      i = (i + 1) & mask;
    }
    return ~i;
  }

  /** Returns a bound on the ids: every id handed out so far is below it. */
  int idBound() {
    return nextId;
  }

  /** Returns the key of a live id. */
  Object key(int id) {
    return keys[id];
  }

  /**
   * Declares that a window was emitted: the ids only it used may be evicted from now on. Cheap: the
   * work waits for the next sweep.
   */
  void emitted() {
    emittedSinceSweep = true;
  }

  /** Evicts what can be evicted, then grows the table if it is still more than half full. */
  private void makeRoom() {
    if (!sweptOnce || emittedSinceSweep) {
      sweep();
    }
    if (size + 1 > slotKeys.length >>> 1) {
      rehash(slotKeys.length * 2);
    }
  }

  /**
   * Frees every id that no window not yet emitted holds, in place: each evicted slot is closed by
   * moving back the later entries of its probe run, so that the sweep allocates nothing once its
   * bitset is as large as the id range.
   */
  private void sweep() {
    sweptOnce = true;
    emittedSinceSweep = false;
    int words = (nextId + 63) >>> 6;
    if (live.length < words) {
      live = new long[Math.max(words, live.length * 2)];
    } else {
      Arrays.fill(live, 0, words, 0L);
    }
    users.markLive(live);
    endAhead(); // the ids found ahead may be evicted here: the rest of the batch probes
    int i = 0;
    while (i < slotKeys.length) {
      int id = slotIds[i];
      if (slotKeys[i] != null && (live[id >>> 6] & (1L << id)) == 0) {
        free(id);
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
    }
    return nextId++;
  }

  private int slot(Object key) {
    int h = key.hashCode() * 0x9E37_79B9; // spreads the poor low bits of small hash codes
    return (h ^ (h >>> 16)) & mask;
  }
}
