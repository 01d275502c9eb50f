package io.github.lowwater.window;

import java.util.Arrays;

/**
 * A set of key ids in insertion order, for a window that holds most of the ids of its {@link
 * KeyDictionary}: a bitset over the ids (one bit per id of the dictionary, so it stays in cache)
 * and the ids in the order they were added. Membership is one bit test; there is no removal, only
 * {@link #clear()}, which costs the number of ids added. Allocates only to grow. Not thread-safe.
 */
final class IdSet {

  private long[] bits;
  private int[] order;
  private int size;

  /** Creates a set sized for ids below {@code idBound} and {@code expectedSize} members. */
  IdSet(int idBound, int expectedSize) {
    bits = new long[Math.max(1, (idBound + 63) >>> 6)];
    order = new int[Math.max(16, expectedSize)];
  }

  /** Returns the number of ids. */
  int size() {
    return size;
  }

  /** Returns whether {@code id} (any non-negative int) is in the set. */
  boolean contains(int id) {
    int word = id >>> 6;
    return word < bits.length && (bits[word] & (1L << id)) != 0;
  }

  /** Adds an id that is not in the set; its position is {@link #size()} before the call. */
  void add(int id) {
    mark(id);
    if (size == order.length) {
      order = Arrays.copyOf(order, size + (size >>> 1));
    }
    order[size++] = id;
  }

  /** Fills an empty set with the ids of {@code index}, in the order of their positions. */
  void addAll(IdIndex index) {
    int n = index.size();
    if (order.length < n) {
      order = new int[n + (n >>> 1)];
    }
    index.idsByPosition(order);
    for (int i = 0; i < n; i++) {
      mark(order[i]);
    }
    size = n;
  }

  private void mark(int id) {
    int word = id >>> 6;
    if (word >= bits.length) {
      bits = Arrays.copyOf(bits, Math.max(word + 1, bits.length + (bits.length >>> 1)));
    }
    bits[word] |= 1L << id;
  }

  /** Returns the id added at {@code position}. */
  int idAt(int position) {
    return order[position];
  }

  /** Sets bit {@code id & 63} of {@code marks[id >>> 6]} for each id in the set. */
  void markIds(long[] marks) {
    for (int i = 0; i < size; i++) {
      int id = order[i];
      marks[id >>> 6] |= 1L << id;
    }
  }

  /** Empties the set, keeping its arrays. */
  void clear() {
    for (int i = 0; i < size; i++) {
      bits[order[i] >>> 6] = 0;
    }
    size = 0;
  }

  /** Returns the bytes of the arrays, for the memory model. */
  long footprintBytes() {
    return 8L * bits.length + 4L * order.length;
  }
}
