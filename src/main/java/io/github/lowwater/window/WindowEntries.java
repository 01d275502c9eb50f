package io.github.lowwater.window;

import java.util.Arrays;

/**
 * One window's bounds and its (key, accumulator) entries: an {@link IdIndex} from key id to
 * position, and the accumulators by position, in the order of each key's first event. The
 * accumulators of a built-in {@code long} aggregator ({@link LongFold}) are a {@code long[]}, 8
 * bytes an entry; those of any other {@link Aggregator} are objects in an {@code Object[]}.
 *
 * <p>An instance is reused for window after window ({@link #reset}); once its arrays are large
 * enough, opening, filling and emitting a window allocates nothing. Not thread-safe.
 */
final class WindowEntries {

  long start;
  long end;

  private final IdIndex index;
  private long[] longs;
  private Object[] objects;

  /**
   * Creates an empty window.
   *
   * @param primitive whether the accumulators are {@code long}s ({@link LongFold})
   * @param expectedKeys the number of keys to size for
   */
  WindowEntries(boolean primitive, int expectedKeys) {
    index = new IdIndex(expectedKeys);
    int length = Math.max(16, expectedKeys);
    if (primitive) {
      longs = new long[length];
    } else {
      objects = new Object[length];
    }
  }

  /** Makes this the empty window {@code [start, end)}, sized for {@code expectedKeys}. */
  WindowEntries reset(long start, long end, int expectedKeys) {
    dropAccumulators();
    index.clear(expectedKeys);
    this.start = start;
    this.end = end;
    return this;
  }

  /** Lets the accumulator objects go, so that a window kept for reuse holds no garbage. */
  void dropAccumulators() {
    if (objects != null) {
      Arrays.fill(objects, 0, index.size(), null);
    }
  }

  /** Returns the number of keys. */
  int size() {
    return index.size();
  }

  /**
   * Folds {@code value} into the {@code long} accumulator of key {@code id}; nothing changes if the
   * fold throws.
   *
   * @return whether the key is new in this window
   */
  boolean fold(int id, Object value, LongFold fold) {
    int position = index.positionOf(id);
    if (position >= 0) {
      longs[position] = fold.fold(longs[position], value);
      return false;
    }
    long accumulator = fold.fold(fold.initial(), value);
    position = index.insert(id, position);
    if (position == longs.length) {
      longs = Arrays.copyOf(longs, position + (position >>> 1));
    }
    longs[position] = accumulator;
    return true;
  }

  /**
   * Folds {@code value} into the accumulator object of key {@code id}; nothing changes if the
   * aggregator throws.
   *
   * @return whether the key is new in this window
   */
  boolean fold(int id, Object value, Aggregator<Object, Object, ?> aggregator) {
    int position = index.positionOf(id);
    if (position >= 0) {
      objects[position] = aggregator.add(objects[position], value);
      return false;
    }
    Object accumulator = aggregator.add(aggregator.create(), value);
    position = index.insert(id, position);
    if (position == objects.length) {
      objects = Arrays.copyOf(objects, position + (position >>> 1));
    }
    objects[position] = accumulator;
    return true;
  }

  /** Writes the key id of each position into {@code idsByPosition}, which holds {@link #size()}. */
  void idsByPosition(int[] idsByPosition) {
    index.idsByPosition(idsByPosition);
  }

  /** Returns the {@code long} accumulator at {@code position}. */
  long longAt(int position) {
    return longs[position];
  }

  /** Returns the accumulator object at {@code position}. */
  Object objectAt(int position) {
    return objects[position];
  }

  /** Returns whether the accumulators are {@code long}s. */
  boolean primitive() {
    return longs != null;
  }
}
