package io.github.lowwater.window;

import java.util.Arrays;

/**
 * A binary heap of {@link PanedSession}s by (key, first, sequence): the total order that makes the
 * order of rows depend only on the sessions, never on the order they were placed in. Each session
 * knows its position in each of the three heaps of {@link PanedSessions} ({@link #OPEN}, {@link
 * #GRACE}, {@link #MARK}), so that removing or re-keying one is {@code O(log n)}. The key is held
 * beside the session, so that the owner may keep it a lower bound of what it stands for and re-key
 * a stale top lazily. Allocation-free once the arrays are large enough. Not thread-safe.
 */
final class SessionHeap {

  /** Which position field of the session this heap keeps. */
  static final int OPEN = 0;

  static final int GRACE = 1;
  static final int MARK = 2;

  private final int which;
  private PanedSession[] sessions = new PanedSession[16];
  private long[] keys = new long[16];
  private int size;

  SessionHeap(int which) {
    this.which = which;
  }

  int size() {
    return size;
  }

  PanedSession at(int i) {
    return sessions[i];
  }

  /** The least session; the heap is not empty. */
  PanedSession peek() {
    return sessions[0];
  }

  /** The least session's key; the heap is not empty. */
  long peekKey() {
    return keys[0];
  }

  boolean contains(PanedSession s) {
    return position(s) >= 0;
  }

  void add(PanedSession s, long key) {
    if (size == sessions.length) {
      sessions = Arrays.copyOf(sessions, size * 2);
      keys = Arrays.copyOf(keys, size * 2);
    }
    place(s, key, size);
    size++;
    siftUp(size - 1);
  }

  /** Removes and returns the least session; the heap is not empty. */
  PanedSession poll() {
    PanedSession top = sessions[0];
    removeAt(0);
    return top;
  }

  /** Removes {@code s} if it is here. */
  void remove(PanedSession s) {
    int i = position(s);
    if (i >= 0) {
      removeAt(i);
    }
  }

  /** Gives the least session a key at least its current one. */
  void rekeyTop(long key) {
    keys[0] = key;
    siftDown(0);
  }

  /** Adds {@code s} with {@code key}, or moves it to {@code key} if it is here. */
  void put(PanedSession s, long key) {
    int i = position(s);
    if (i < 0) {
      add(s, key);
    } else {
      keys[i] = key;
      siftDown(siftUp(i));
    }
  }

  /** Restores the order around {@code s}, if it is here, after its first moved earlier. */
  void firstMovedEarlier(PanedSession s) {
    int i = position(s);
    if (i >= 0) {
      siftUp(i);
    }
  }

  private void removeAt(int i) {
    setPosition(sessions[i], -1);
    size--;
    if (i != size) {
      place(sessions[size], keys[size], i);
      sessions[size] = null;
      siftDown(siftUp(i));
    } else {
      sessions[size] = null;
    }
  }

  private static boolean before(long keyA, PanedSession a, long keyB, PanedSession b) {
    if (keyA != keyB) {
      return keyA < keyB;
    }
    if (a.first != b.first) {
      return a.first < b.first;
    }
    return a.sequence < b.sequence;
  }

  private int siftUp(int i) {
    PanedSession s = sessions[i];
    long key = keys[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(key, s, keys[parent], sessions[parent])) {
        break;
      }
      place(sessions[parent], keys[parent], i);
      i = parent;
    }
    place(s, key, i);
    return i;
  }

  private void siftDown(int i) {
    PanedSession s = sessions[i];
    long key = keys[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size
          && before(keys[child + 1], sessions[child + 1], keys[child], sessions[child])) {
        child++;
      }
      if (!before(keys[child], sessions[child], key, s)) {
        break;
      }
      place(sessions[child], keys[child], i);
      i = child;
    }
    place(s, key, i);
  }

  private void place(PanedSession s, long key, int i) {
    sessions[i] = s;
    keys[i] = key;
    setPosition(s, i);
  }

  private int position(PanedSession s) {
    return switch (which) {
      case OPEN -> s.openAt;
      case GRACE -> s.graceAt;
      default -> s.markAt;
    };
  }

  private void setPosition(PanedSession s, int i) {
    switch (which) {
      case OPEN -> s.openAt = i;
      case GRACE -> s.graceAt = i;
      default -> s.markAt = i;
    }
  }
}
