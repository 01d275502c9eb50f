package io.github.lowwater.tuning;

import org.HdrHistogram.Histogram;

/**
 * An immutable distribution of non-negative {@code long} values (a lag in milliseconds, a gap in
 * nanoseconds), copied from a recorder's histogram: counts, percentiles and tail counts at the
 * histogram's resolution of two significant digits.
 *
 * <p>Immutable and thread-safe: it owns a private copy that nothing records into. Readings cost
 * O(histogram buckets) at most and allocate nothing.
 */
public final class Distribution {

  private final Histogram histogram;

  /** Takes ownership of {@code histogram}: the caller must not record into it afterwards. */
  Distribution(Histogram histogram) {
    this.histogram = histogram;
  }

  /**
   * Returns the number of recorded values.
   *
   * @return the count, {@code >= 0}
   */
  public long count() {
    return histogram.getTotalCount();
  }

  /**
   * Returns the largest recorded value, rounded up to the histogram's resolution; 0 when empty.
   *
   * @return the maximum
   */
  public long max() {
    return count() == 0 ? 0 : histogram.getMaxValue();
  }

  /**
   * Returns the value at or below which {@code percentile} percent of the recorded values lie,
   * rounded up to the histogram's resolution; 0 when empty.
   *
   * @param percentile a percentile in {@code [0, 100]}, such as {@code 99.9}
   * @return the value at that percentile
   * @throws IllegalArgumentException if {@code percentile} is outside {@code [0, 100]} or NaN
   */
  public long valueAtPercentile(double percentile) {
    if (!(percentile >= 0 && percentile <= 100)) {
      throw new IllegalArgumentException("percentile must be in [0, 100]: " + percentile);
    }
    return count() == 0 ? 0 : histogram.getValueAtPercentile(percentile);
  }

  /**
   * Returns an upper bound of how many recorded values are greater than {@code value}: the values
   * in every bucket that holds a value above it. A bucket that straddles {@code value} (a bucket of
   * four at 1,000 is [1000, 1003]) counts whole as above it, since its values may be; so the count
   * is exact when {@code value} is the top of its bucket ({@link
   * #smallestValueWithFractionAbove(double)} returns such values) and within the bucket otherwise.
   * No value is above the histogram's highest trackable value (larger ones were recorded as it).
   *
   * @param value a value; negative counts every value
   * @return at least the number of values above it
   */
  public long countAbove(long value) {
    if (value < 0) {
      return count();
    }
    if (value >= histogram.getHighestTrackableValue()) {
      return 0;
    }
    long atOrBelow =
        histogram.highestEquivalentValue(value) == value
            ? value
            : histogram.lowestEquivalentValue(value) - 1; // >= 0: the first bucket is of width 1
    return count() - histogram.getCountBetweenValues(0, atOrBelow);
  }

  /**
   * Returns an upper bound of the fraction of the recorded values greater than {@code value}
   * ({@link #countAbove(long)} over {@link #count()}); 0 when empty.
   *
   * @param value a value
   * @return a fraction in {@code [0, 1]}
   */
  public double fractionAbove(long value) {
    long n = count();
    return n == 0 ? 0 : (double) countAbove(value) / n;
  }

  /**
   * Returns the smallest value {@code v} with {@code fractionAbove(v) <= fraction}, the top of a
   * bucket: for a lag distribution, the smallest allowed lateness that leaves at most that fraction
   * of events behind it. For every {@code u}, {@code fractionAbove(u) <= fraction} if and only if
   * {@code u >= v}. 0 when empty.
   *
   * @param fraction a fraction in {@code [0, 1]}
   * @return the smallest such value
   * @throws IllegalArgumentException if {@code fraction} is outside {@code [0, 1]} or NaN
   */
  public long smallestValueWithFractionAbove(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in [0, 1]: " + fraction);
    }
    long n = count();
    long allowedAbove = allowedAbove(fraction, n);
    long atOrBelow = 0;
    for (var v : histogram.recordedValues()) {
      atOrBelow += v.getCountAtValueIteratedTo();
      if (n - atOrBelow <= allowedAbove) {
        return histogram.highestEquivalentValue(v.getValueIteratedTo());
      }
    }
    return 0;
  }

  /** How many of {@code n} values may lie above a bound for at most {@code fraction} of them. */
  static long allowedAbove(double fraction, long n) {
    return (long) Math.floor(fraction * n);
  }

  @Override
  public String toString() {
    return count() == 0
        ? "Distribution{empty}"
        : "Distribution{count="
            + count()
            + ", p50="
            + valueAtPercentile(50)
            + ", p99="
            + valueAtPercentile(99)
            + ", p99.9="
            + valueAtPercentile(99.9)
            + ", max="
            + max()
            + "}";
  }
}
