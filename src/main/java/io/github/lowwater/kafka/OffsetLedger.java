package io.github.lowwater.kafka;

import java.util.Arrays;

/**
 * The offsets one partition still needs: for each window that holds records of the partition and
 * has not been returned yet, the offset of its oldest such record, with the partition's watermark
 * and frontier just before that record was read, its event time and the wall-clock time it was read
 * at (for the resume age, issue 33). The committable offset is the smallest held one (or the next
 * offset to read when none is held); the checkpoint committed with it carries the watermark and
 * frontier as of that offset, so that the next owner starts exactly where this one stood when it
 * read that record.
 *
 * <p>Not thread-safe. Windows are kept sorted by end in parallel arrays; a partition holds a few
 * windows at a time, so {@link #hold} is O(held) in the worst case and O(1) for the usual
 * newest-window append, {@link #release} O(held), and nothing allocates but array growth.
 */
final class OffsetLedger {

  private long[] ends = new long[4];
  private long[] offsets = new long[4];
  private long[] watermarks = new long[4];
  private long[] frontiers = new long[4];
  private long[] times = new long[4];
  private long[] readWalls = new long[4];
  private int size;

  /**
   * Notes that the record at {@code offset} went into the window ending at {@code windowEndMillis}.
   * The first record of a window is its oldest (offsets only grow within a partition), so a window
   * already held keeps its offset.
   *
   * @param windowEndMillis the end of the record's window
   * @param offset the record's offset
   * @param watermarkBefore the partition's watermark before the record was read
   * @param frontierBefore the partition's frontier before the record was read
   * @param eventTimeMillis the record's event time
   * @param readWallMillis the wall-clock time of the poll that read it
   */
  void hold(
      long windowEndMillis,
      long offset,
      long watermarkBefore,
      long frontierBefore,
      long eventTimeMillis,
      long readWallMillis) {
    int i = indexOf(windowEndMillis);
    if (i >= 0) {
      return;
    }
    int at = -i - 1;
    if (size == ends.length) {
      int capacity = size * 2;
      ends = Arrays.copyOf(ends, capacity);
      offsets = Arrays.copyOf(offsets, capacity);
      watermarks = Arrays.copyOf(watermarks, capacity);
      frontiers = Arrays.copyOf(frontiers, capacity);
      times = Arrays.copyOf(times, capacity);
      readWalls = Arrays.copyOf(readWalls, capacity);
    }
    int tail = size - at;
    if (tail > 0) {
      System.arraycopy(ends, at, ends, at + 1, tail);
      System.arraycopy(offsets, at, offsets, at + 1, tail);
      System.arraycopy(watermarks, at, watermarks, at + 1, tail);
      System.arraycopy(frontiers, at, frontiers, at + 1, tail);
      System.arraycopy(times, at, times, at + 1, tail);
      System.arraycopy(readWalls, at, readWalls, at + 1, tail);
    }
    ends[at] = windowEndMillis;
    offsets[at] = offset;
    watermarks[at] = watermarkBefore;
    frontiers[at] = frontierBefore;
    times[at] = eventTimeMillis;
    readWalls[at] = readWallMillis;
    size++;
  }

  /**
   * Forgets the windows ending at or before {@code returnedThroughMillis}: their results have been
   * returned.
   *
   * @param returnedThroughMillis every window ending at or before it has been returned
   */
  void release(long returnedThroughMillis) {
    int n = 0;
    while (n < size && ends[n] <= returnedThroughMillis) {
      n++;
    }
    if (n > 0) {
      int rest = size - n;
      System.arraycopy(ends, n, ends, 0, rest);
      System.arraycopy(offsets, n, offsets, 0, rest);
      System.arraycopy(watermarks, n, watermarks, 0, rest);
      System.arraycopy(frontiers, n, frontiers, 0, rest);
      System.arraycopy(times, n, times, 0, rest);
      System.arraycopy(readWalls, n, readWalls, 0, rest);
      size = rest;
    }
  }

  /** Forgets every window. */
  void clear() {
    size = 0;
  }

  /**
   * Returns the number of windows held.
   *
   * @return the number of held windows
   */
  int size() {
    return size;
  }

  /**
   * Returns the index of the held window with the smallest offset, or -1 when none is held.
   *
   * @return an index for {@link #offset}, {@link #watermarkBefore} and {@link #frontierBefore}
   */
  int oldest() {
    int oldest = -1;
    for (int i = 0; i < size; i++) {
      if (oldest < 0 || offsets[i] < offsets[oldest]) {
        oldest = i;
      }
    }
    return oldest;
  }

  long offset(int index) {
    return offsets[index];
  }

  long end(int index) {
    return ends[index];
  }

  long watermarkBefore(int index) {
    return watermarks[index];
  }

  long frontierBefore(int index) {
    return frontiers[index];
  }

  long eventTime(int index) {
    return times[index];
  }

  long readWallMillis(int index) {
    return readWalls[index];
  }

  /**
   * Returns the end of the newest held window, or {@code Long.MIN_VALUE} when none is held.
   *
   * @return the largest held window end
   */
  long newestEnd() {
    return size == 0 ? Long.MIN_VALUE : ends[size - 1];
  }

  private int indexOf(long end) {
    if (size > 0 && ends[size - 1] < end) {
      return -(size + 1); // the usual case: a newer window than every held one
    }
    return Arrays.binarySearch(ends, 0, size, end);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("OffsetLedger{");
    for (int i = 0; i < size; i++) {
      b.append(i == 0 ? "" : ", ").append(ends[i]).append('@').append(offsets[i]);
    }
    return b.append('}').toString();
  }
}
