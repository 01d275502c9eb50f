package io.github.lowwater;

import io.github.lowwater.WatermarkTracker.Source;
import java.util.Arrays;

/**
 * The active sources of a {@link WatermarkTracker} in a lazy binary min-heap, so that the minimum
 * contribution is found without scanning. Not thread-safe; confined to the tracker's writer thread,
 * which publishes {@link #size()} itself. O(log sources) per insert, removal and sift of the root;
 * no allocation but the growth of the two arrays.
 *
 * <p><b>Invariant.</b> The sources sit in {@code sources[0, size)} with their keys beside them in
 * {@code keys}: {@code keys[parent] <= keys[child]}, {@code sources[i].heapIndex == i}, and a
 * source outside the heap has {@code heapIndex == }{@link #NOT_IN_HEAP}. A key is a <em>lower
 * bound</em> of its source's contribution, not the contribution itself: the caller raises {@link
 * Source#contribution} without touching the heap (contributions only grow), and only the root is
 * brought up to date, by {@link #settleRoot()}. Once the root's key equals its contribution, that
 * contribution is the minimum over the heap, because every other contribution is at least its key,
 * which is at least the root's key. So raising a source that is not the slowest costs nothing here,
 * and each key is refreshed at most once per time its source reaches the root.
 *
 * <p>The keys live in a {@code long[]} beside the sources, so a sift compares contiguous longs and
 * touches a {@link Source} only to move it.
 */
final class SourceHeap {

  /** The {@link Source#heapIndex} of a source that is not in the heap: an idle or new one. */
  static final int NOT_IN_HEAP = -1;

  private Source[] sources = new Source[8];

  /** {@code keys[i]} is the key of {@code sources[i]}: a lower bound of its contribution. */
  private long[] keys = new long[8];

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
    return s.heapIndex != NOT_IN_HEAP;
  }

  /**
   * Returns whether a source is the root of this heap: the one whose contribution {@link
   * #settleRoot()} reads. Raising any other source's contribution leaves the minimum unchanged.
   *
   * @param s a source of the tracker that owns this heap
   * @return {@code true} if {@code s} is at the root
   */
  boolean isRoot(Source s) {
    return s.heapIndex == 0;
  }

  /**
   * Adds a source that is not in the heap, keyed by its contribution now.
   *
   * @param s a source whose {@code heapIndex} is {@link #NOT_IN_HEAP}
   */
  void insert(Source s) {
    if (size == sources.length) {
      sources = Arrays.copyOf(sources, size * 2);
      keys = Arrays.copyOf(keys, size * 2);
    }
    siftUp(size++, s, s.contribution);
  }

  /**
   * Takes a source out of the heap; its {@code heapIndex} becomes {@link #NOT_IN_HEAP}.
   *
   * @param s a source in this heap
   */
  void remove(Source s) {
    int index = s.heapIndex;
    int last = --size;
    Source moved = sources[last];
    long movedKey = keys[last];
    sources[last] = null;
    s.heapIndex = NOT_IN_HEAP;
    if (index != last) {
      siftDown(index, moved, movedKey);
      if (sources[index] == moved) {
        siftUp(index, moved, movedKey);
      }
    }
  }

  /**
   * Brings the root's key up to its contribution, sifting it down as long as it is not, and returns
   * the root: the source with the smallest contribution.
   *
   * @return the root, whose contribution is the minimum over the heap; the heap must not be empty
   */
  Source settleRoot() {
    Source root = sources[0];
    long contribution;
    while (keys[0] != (contribution = root.contribution)) {
      siftDown(0, root, contribution);
      root = sources[0];
    }
    return root;
  }

  private void siftUp(int index, Source s, long key) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      long parentKey = keys[parent];
      if (parentKey <= key) {
        break;
      }
      place(index, sources[parent], parentKey);
      index = parent;
    }
    place(index, s, key);
  }

  private void siftDown(int index, Source s, long key) {
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
      place(index, sources[child], childKey);
      index = child;
    }
    place(index, s, key);
  }

  private void place(int index, Source s, long key) {
    sources[index] = s;
    keys[index] = key;
    s.heapIndex = index;
  }
}
