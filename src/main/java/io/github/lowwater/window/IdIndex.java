package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The index of one window's accumulators: a map from a key's dense id (see {@link KeyDictionary})
 * to the position of its accumulator, positions being handed out 0, 1, 2, ... in insertion order.
 *
 * <p>One open-addressing {@code long[]} with linear probing: a slot holds {@code (id + 1) << 32 |
 * position}, 0 when empty, so that a probe compares ids without touching a second array. There is
 * no removal: a window's index only grows until the window is emitted, then it is {@link
 * #clear(int) cleared} and reused for another window. The load factor stays at or below 3/4, so a
 * slot costs 8 bytes and an entry between 10.7 and 21.3 bytes. Lookups allocate nothing; only
 * growth does. Not thread-safe.
 */
final class IdIndex {

  private static final int MIN_CAPACITY = 16;

  /** The high half of a slot that holds no id. */
  private static final long EMPTY = 0L;

  private long[] slots;

  /** {@code 32 - log2(slots.length)}: the Fibonacci hash keeps the top bits. */
  private int shift;

  private int size;

  /** Creates an index sized to hold {@code expectedSize} ids without growing. */
  IdIndex(int expectedSize) {
    int capacity = capacityFor(expectedSize);
    slots = new long[capacity];
    shift = 32 - Integer.numberOfTrailingZeros(capacity);
  }

  /** Returns the number of ids, which is also the next position. */
  int size() {
    return size;
  }

  /** Returns the number of slots (for the memory model and its test). */
  int capacity() {
    return slots.length;
  }

  /**
   * Returns the position of {@code id}, or a negative number if it is absent: then {@code ~result}
   * is the slot where {@link #insert(int, int)} can put it.
   */
  int positionOf(int id) {
    long tag = (long) (id + 1) << 32;
    int mask = slots.length - 1;
    int i = slot(id);
    long s;
    while ((s = slots[i]) != EMPTY) {
      if ((s & 0xFFFF_FFFF_0000_0000L) == tag) {
        return (int) s;
      }
      i = (i + 1) & mask;
    }
    return ~i;
  }

  /**
   * Reads the home slot of each id of {@code ids[0, n)} that is not negative, and returns a value
   * made of them: only so that their cache lines are loaded together, ahead of the lookups that
   * follow ({@link #positionOf}), instead of one miss after another.
   */
  long touch(int[] ids, int n) {
    long[] s = slots;
    long sum = 0;
    for (int j = 0; j < n; j++) {
      int id = ids[j];
      if (id >= 0) {
        sum += s[slot(id)];
      }
    }
    return sum;
  }

  /**
   * Inserts an absent id and returns its position, {@link #size()} before the call.
   *
   * @param id an id in {@code [0, Integer.MAX_VALUE - 1]} that is not in the index
   * @param absent the negative result of {@link #positionOf(int)} for {@code id}, with no insert
   *     since
   */
  int insert(int id, int absent) {
    int i = ~absent;
    if (growsOnNextInsert()) {
      grow();
      i = ~positionOf(id);
    }
    int position = size++;
    slots[i] = (long) (id + 1) << 32 | position;
    return position;
  }

  /** Returns whether the next {@link #insert} grows the table. */
  boolean growsOnNextInsert() {
    return size + 1 > (slots.length >>> 1) + (slots.length >>> 2);
  }

  /** Writes each position's id into {@code idsByPosition[position]}, for positions below size. */
  void idsByPosition(int[] idsByPosition) {
    for (long s : slots) {
      if (s != EMPTY) {
        idsByPosition[(int) s] = (int) (s >>> 32) - 1;
      }
    }
  }

  /** Sets bit {@code id & 63} of {@code bits[id >>> 6]} for each id in the index. */
  void markIds(long[] bits) {
    for (long s : slots) {
      if (s != EMPTY) {
        int id = (int) (s >>> 32) - 1;
        bits[id >>> 6] |= 1L << id;
      }
    }
  }

  /**
   * Empties the index for reuse, sized for {@code expectedSize} ids: the slot array is kept if it
   * is large enough and not more than four times too large, else replaced.
   */
  void clear(int expectedSize) {
    int capacity = capacityFor(expectedSize);
    if (slots.length < capacity || slots.length > 4 * capacity) {
      slots = new long[capacity];
      shift = 32 - Integer.numberOfTrailingZeros(capacity);
    } else {
      Arrays.fill(slots, EMPTY);
    }
    size = 0;
  }

  private void grow() {
    long[] old = slots;
    slots = new long[old.length * 2];
    shift--;
    int mask = slots.length - 1;
    for (long s : old) {
      if (s != EMPTY) {
        int i = slot((int) (s >>> 32) - 1);
        while (slots[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        slots[i] = s;
      }
    }
  }

  private int slot(int id) {
    return (id * 0x9E37_79B9) >>> shift; // Fibonacci hashing: dense ids spread over the table
  }

  /** The smallest power of two, at least 16, that holds {@code expectedSize} at load 3/4. */
  static int capacityFor(int expectedSize) {
    long needed = Math.max(MIN_CAPACITY, (long) Math.ceil(expectedSize / 0.75));
    if (needed > 1 << 30) {
      return 1 << 30;
    }
    return Integer.highestOneBit((int) needed - 1) << 1;
  }
}
