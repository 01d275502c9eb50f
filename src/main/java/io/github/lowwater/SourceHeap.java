package io.github.lowwater;

import io.github.lowwater.WatermarkTracker.Source;
import java.util.Arrays;

/**
 * The active sources of a {@link WatermarkTracker} in a lazy binary min-heap, so that the minimum
 * contribution is found without scanning. Not thread-safe; confined to the tracker's writer thread,
 * which publishes {@link #size()} itself. O(log sources) per insert, removal and sift of the root;
 * no allocation but the growth of the arrays.
 *
 * <p><b>Layout.</b> A source in the heap has a dense heap id, {@link Source#heapId} in {@code [0,
 * size)}, and the heap itself is primitive arrays: {@code ids[i]} and {@code keys[i]} the id and
 * key at position {@code i}, {@code positionOf[id]} the way back, {@code byId[id]} the source. A
 * sift moves ints and longs and never touches a {@link Source}: at 16,384 sources, where each
 * source object is a cache miss, writing a moved source's position into its object cost a miss per
 * level (issue 20). Ids stay compact: a removal gives the freed id to the source holding the last
 * one.
 *
 * <p><b>Invariant.</b> {@code keys[parent] <= keys[child]}; {@code positionOf[ids[i]] == i}; {@code
 * byId[id].heapId == id}; a source outside the heap has {@code heapId ==} {@link #NOT_IN_HEAP}. A
 * key is a <em>lower bound</em> of its source's contribution, not the contribution itself: the
 * caller raises {@link Source#contribution} without touching the heap (contributions only grow),
 * and only the root is brought up to date, by {@link #settleRoot()}. Once the root's key equals its
 * contribution, that contribution is the minimum over the heap, because every other contribution is
 * at least its key, which is at least the root's key. So raising a source that is not the slowest
 * costs nothing here, and each key is refreshed at most once per time its source reaches the root.
 */
final class SourceHeap {

  /** The {@link Source#heapId} of a source that is not in the heap: an idle or new one. */
  static final int NOT_IN_HEAP = -1;

  /** {@code ids[i]}: the heap id of the source at position {@code i}. */
  private int[] ids = new int[8];

  /**
   * {@code keys[i]}: the key of the source at position {@code i}, a lower bound of its
   * contribution.
   */
  private long[] keys = new long[8];

  /** {@code positionOf[id]}: the position of the source with heap id {@code id}. */
  private int[] positionOf = new int[8];

  /** {@code byId[id]}: the source with heap id {@code id}. */
  private Source[] byId = new Source[8];

  private int size;

  /**
   * Returns the number of sources in the heap.
   *
   * @return the size, {@code >= 0}
   */
  int size() {
    return size;
  }

  /**
   * Returns whether a source is in this heap, that is, active.
   *
   * @param s a source of the tracker that owns this heap
   * @return {@code true} if {@code s} is in the heap
   */
  boolean contains(Source s) {
    return s.heapId != NOT_IN_HEAP;
  }

  /**
   * Returns whether a source is the root of this heap: the one whose contribution {@link
   * #settleRoot()} reads. Raising any other source's contribution leaves the minimum unchanged.
   *
   * @param s a source of the tracker that owns this heap
   * @return {@code true} if {@code s} is at the root
   */
  boolean isRoot(Source s) {
    int id = s.heapId;
    return id != NOT_IN_HEAP && ids[0] == id; // in the heap: not empty
  }

  /**
   * Returns the position of a source in the heap, or {@link #NOT_IN_HEAP} (for the tests).
   *
   * @param s a source of the tracker that owns this heap
   * @return its position in {@code [0, size())}, or {@code NOT_IN_HEAP}
   */
  int positionOf(Source s) {
    int id = s.heapId;
    return id == NOT_IN_HEAP ? NOT_IN_HEAP : positionOf[id];
  }

  /**
   * Adds a source that is not in the heap, keyed by its contribution now.
   *
   * @param s a source whose {@code heapId} is {@link #NOT_IN_HEAP}
   */
  void insert(Source s) {
    if (size == ids.length) {
      int capacity = size * 2;
      ids = Arrays.copyOf(ids, capacity);
      keys = Arrays.copyOf(keys, capacity);
      positionOf = Arrays.copyOf(positionOf, capacity);
      byId = Arrays.copyOf(byId, capacity);
    }
    int id = size; // ids are compact: [0, size)
    s.heapId = id;
    byId[id] = s;
    siftUp(size++, id, s.contribution);
  }

  /**
   * Takes a source out of the heap; its {@code heapId} becomes {@link #NOT_IN_HEAP}.
   *
   * @param s a source in this heap
   */
  void remove(Source s) {
    int id = s.heapId;
    int index = positionOf[id];
    int last = --size;
    int moved = ids[last];
    long movedKey = keys[last];
    if (index != last) {
      siftDown(index, moved, movedKey);
      if (ids[index] == moved) {
        siftUp(index, moved, movedKey);
      }
    }
    // The freed id goes to the source that holds the last one, so that ids stay in [0, size).
    if (id != last) {
      Source relabelled = byId[last];
      relabelled.heapId = id;
      byId[id] = relabelled;
      int position = positionOf[last];
      positionOf[id] = position;
      ids[position] = id;
    }
    byId[last] = null;
    s.heapId = NOT_IN_HEAP;
  }

  /**
   * Brings the root's key up to its contribution, sifting it down as long as it is not, and returns
   * the root: the source with the smallest contribution.
   *
   * @return the root, whose contribution is the minimum over the heap; the heap must not be empty
   */
  Source settleRoot() {
    Source root = byId[ids[0]];
    long contribution;
    while (keys[0] != (contribution = root.contribution)) {
      siftDown(0, ids[0], contribution);
      root = byId[ids[0]];
    }
    return root;
  }

  private void siftUp(int index, int id, long key) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      long parentKey = keys[parent];
      if (parentKey <= key) {
        break;
      }
      place(index, ids[parent], parentKey);
      index = parent;
    }
    place(index, id, key);
  }

  private void siftDown(int index, int id, long key) {
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      long childKey = keys[child];
      int right = child + 1;
      if (right < size && keys[right] < childKey) {
        child = right;
        childKey = keys[right];
      }
      if (key <= childKey) {
        break;
      }
      place(index, ids[child], childKey);
      index = child;
    }
    place(index, id, key);
  }

  private void place(int index, int id, long key) {
    ids[index] = id;
    keys[index] = key;
    positionOf[id] = index;
  }
}
