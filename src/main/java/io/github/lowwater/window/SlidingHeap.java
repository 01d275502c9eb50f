package io.github.lowwater.window;

import java.util.Arrays;

/**
 * The runs of {@link SlidingStore} that have something to do at a known event time, in a min-heap
 * by (that time, key id): the next candidate window to decide and, with panes, the next window or
 * record to retire. The two sort keys are kept in arrays beside the runs, so that a comparison
 * reads no run; each run knows its position ({@link SlidingStore.Run#heapIndex}), so that moving or
 * removing it costs {@code O(log runs)}. Allocates only when it grows. Not thread-safe.
 */
final class SlidingHeap {

  private SlidingStore.Run[] heap = new SlidingStore.Run[16];
  private long[] heapNext = new long[16];
  private int[] heapId = new int[16];
  private int size;

  /** Whether no run waits. */
  boolean isEmpty() {
    return size == 0;
  }

  /** The time of the first run; only when not empty. */
  long firstTime() {
    return heapNext[0];
  }

  /** The first run: the smallest (time, key id); only when not empty. */
  SlidingStore.Run first() {
    return heap[0];
  }

  /** Puts {@code run} in the heap at {@code next}, or moves it there. */
  void schedule(SlidingStore.Run run, long next) {
    if (run.heapIndex >= 0 && run.next == next) {
      return; // mostly so: a record in order does not move its key's next candidate
    }
    run.next = next;
    if (run.heapIndex < 0) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
        heapNext = Arrays.copyOf(heapNext, size * 2);
        heapId = Arrays.copyOf(heapId, size * 2);
      }
      place(run, size++);
      siftUp(run.heapIndex);
    } else {
      heapNext[run.heapIndex] = next;
      siftUp(run.heapIndex);
      siftDown(run.heapIndex);
    }
  }

  /** Takes {@code run} out of the heap, if it is in. */
  void remove(SlidingStore.Run run) {
    int i = run.heapIndex;
    if (i < 0) {
      return;
    }
    run.heapIndex = -1;
    int lastIndex = --size;
    SlidingStore.Run last = heap[lastIndex];
    heap[lastIndex] = null;
    if (i < size) {
      place(last, i);
      siftUp(i);
      siftDown(last.heapIndex);
    }
  }

  /** Puts {@code run} at heap position {@code i}, its sort keys beside it. */
  private void place(SlidingStore.Run run, int i) {
    heap[i] = run;
    heapNext[i] = run.next;
    heapId[i] = run.id;
    run.heapIndex = i;
  }

  private static boolean precedes(long next, int id, long otherNext, int otherId) {
    return next < otherNext || (next == otherNext && id < otherId);
  }

  private void siftUp(int i) {
    SlidingStore.Run run = heap[i];
    long next = heapNext[i];
    int id = heapId[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!precedes(next, id, heapNext[parent], heapId[parent])) {
        break;
      }
      place(heap[parent], i);
      i = parent;
    }
    place(run, i);
  }

  private void siftDown(int i) {
    SlidingStore.Run run = heap[i];
    long next = heapNext[i];
    int id = heapId[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size
          && precedes(heapNext[child + 1], heapId[child + 1], heapNext[child], heapId[child])) {
        child++;
      }
      if (!precedes(heapNext[child], heapId[child], next, id)) {
        break;
      }
      place(heap[child], i);
      i = child;
    }
    place(run, i);
  }
}
