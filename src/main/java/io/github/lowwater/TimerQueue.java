package io.github.lowwater;

import java.util.Arrays;

/**
 * The pending event-time timers of a {@link WatermarkTracker}: a binary min-heap over three
 * parallel arrays (time, registration sequence, callback), so that registering a timer allocates
 * nothing but array growth. Not thread-safe; confined to the tracker's writer thread. O(log timers)
 * per {@link #add} and {@link #removeFirst}, O(1) for {@link #hasDue}.
 *
 * <p><b>Invariant.</b> Entries {@code [0, size)} form a heap ordered by (time, sequence): no entry
 * comes before its parent. Sequences are given out in registration order and never repeat, so the
 * order is total and timers of equal time come out in registration order. Slots from {@code size}
 * on hold no callback, so a fired timer is not kept reachable.
 */
final class TimerQueue {

  private long[] times = new long[0];
  private long[] sequences = new long[0];
  private WatermarkTimer[] callbacks = new WatermarkTimer[0];
  private int size;
  private long nextSequence;

  /**
   * Returns the number of pending timers.
   *
   * @return the size, {@code >= 0}
   */
  int size() {
    return size;
  }

  /**
   * Adds a timer after every timer of the same time already added.
   *
   * @param timeMillis the event time it waits for
   * @param timer the callback, not null
   */
  void add(long timeMillis, WatermarkTimer timer) {
    if (size == times.length) {
      int capacity = Math.max(8, size * 2);
      times = Arrays.copyOf(times, capacity);
      sequences = Arrays.copyOf(sequences, capacity);
      callbacks = Arrays.copyOf(callbacks, capacity);
    }
    siftUp(size++, timeMillis, nextSequence++, timer);
  }

  /**
   * Returns whether the first timer is due at {@code watermarkMillis}: its time is at or below it.
   *
   * @param watermarkMillis the watermark
   * @return {@code true} if a timer is pending with a time {@code <= watermarkMillis}
   */
  boolean hasDue(long watermarkMillis) {
    return size != 0 && times[0] <= watermarkMillis;
  }

  /**
   * Returns the time of the first timer.
   *
   * @return the smallest pending time; the queue must not be empty
   */
  long firstTime() {
    return times[0];
  }

  /**
   * Removes the first timer (the smallest time, the earliest registered among equals).
   *
   * @return its callback; the queue must not be empty
   */
  WatermarkTimer removeFirst() {
    WatermarkTimer first = callbacks[0];
    int last = --size;
    long lastTime = times[last];
    long lastSequence = sequences[last];
    WatermarkTimer lastTimer = callbacks[last];
    callbacks[last] = null;
    if (last > 0) {
      siftDown(0, lastTime, lastSequence, lastTimer);
    }
    return first;
  }

  private static boolean before(long time, long sequence, long otherTime, long otherSequence) {
    return time < otherTime || (time == otherTime && sequence < otherSequence);
  }

  private void siftUp(int index, long time, long sequence, WatermarkTimer timer) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      if (!before(time, sequence, times[parent], sequences[parent])) {
        break;
      }
      set(index, times[parent], sequences[parent], callbacks[parent]);
      index = parent;
    }
    set(index, time, sequence, timer);
  }

  private void siftDown(int index, long time, long sequence, WatermarkTimer timer) {
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      int right = child + 1;
      if (right < size && before(times[right], sequences[right], times[child], sequences[child])) {
        child = right;
      }
      if (!before(times[child], sequences[child], time, sequence)) {
        break;
      }
      set(index, times[child], sequences[child], callbacks[child]);
      index = child;
    }
    set(index, time, sequence, timer);
  }

  private void set(int index, long time, long sequence, WatermarkTimer timer) {
    times[index] = time;
    sequences[index] = sequence;
    callbacks[index] = timer;
  }
}
