package io.github.lowwater.window;

/**
 * An open-addressing hash map from {@code long} to non-null values, with linear probing and
 * backward-shift deletion: no boxing, no entry objects, no tombstones. Lookups allocate nothing;
 * only growth does. Not thread-safe.
 *
 * @param <T> the value type
 */
final class LongObjectMap<T> {

  private static final int MIN_CAPACITY = 16;

  private long[] keys;
  private Object[] values;
  private int mask;
  private int size;

  LongObjectMap() {
    keys = new long[MIN_CAPACITY];
    values = new Object[MIN_CAPACITY];
    mask = MIN_CAPACITY - 1;
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  T get(long key) {
    int i = index(key);
    Object v;
    while ((v = values[i]) != null) {
      if (keys[i] == key) {
        return (T) v;
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** Puts a value for a key that is not in the map. */
  void putNew(long key, T value) {
    if (size + 1 > (keys.length >>> 1) + (keys.length >>> 2)) { // load factor 0.75
      grow();
    }
    int i = index(key);
    while (values[i] != null) {
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
    size++;
  }

  /** Removes a key; returns whether it was present. */
  boolean remove(long key) {
    int i = index(key);
    Object v;
    while ((v = values[i]) != null) {
      if (keys[i] == key) {
        shiftBack(i);
        size--;
        return true;
      }
      i = (i + 1) & mask;
    }
    return false;
  }

  /** Closes the gap at {@code hole} by moving back later entries of the same probe run. */
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      if (values[i] == null) {
        break;
      }
      int home = index(keys[i]);
      // Move entry i into the hole unless its home lies cyclically in (hole, i].
      boolean homeBetween = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!homeBetween) {
        keys[hole] = keys[i];
        values[hole] = values[i];
        hole = i;
      }
    }
    values[hole] = null;
    keys[hole] = 0;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    int capacity = oldKeys.length * 2;
    keys = new long[capacity];
    values = new Object[capacity];
    mask = capacity - 1;
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldValues[i] != null) {
        @SuppressWarnings("unchecked")
        T v = (T) oldValues[i];
        putNew(oldKeys[i], v);
      }
    }
  }

  private int index(long key) {
    long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing: window starts differ in high bits
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
