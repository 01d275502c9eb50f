package io.github.lowwater.cli;

import java.util.Arrays;

/**
 * A growable list of {@code long} samples with exact nearest-rank percentiles. Not thread-safe.
 * Amortised O(1) per sample; a percentile sorts a copy.
 */
final class LongSamples {

  private long[] values = new long[64];
  private int size;

  void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  int size() {
    return size;
  }

  /**
   * Returns the nearest-rank percentile: the smallest sample with at least {@code percentile}
   * percent of the samples at or below it; -1 without a sample.
   */
  long percentile(double percentile) {
    if (size == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(values, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(percentile / 100 * size);
    return sorted[Math.max(rank, 1) - 1];
  }
}
