package io.github.lowwater.window;

/**
 * The fold of one key's sliding windows with a built-in {@code long} aggregator, amortized O(1) per
 * window instead of a fold of every record in it: a two-stack queue over the key's records in time
 * order. The records {@code [from, to)} of a window are the suffix aggregates of an older part,
 * computed once when the window's start passes the previous split, combined with the running fold
 * of the newer part. Windows of one key are drained with starts and ends that only move forward; a
 * window that does not (a drain visited again after an exception) is folded record by record and
 * changes nothing.
 *
 * <p>Positions are absolute: the index of a record in the key's arrays plus the number of records
 * dropped from their front before it, so that dropping the oldest records moves nothing here.
 * Records are only ever inserted after the newest one a window held (a record that is not late lies
 * at or after the watermark, and every window drained ends by it). An exception from the aggregator
 * resets the state, so that the next window starts over, and the window is folded again in time
 * order, which gives its value or the exception of the fold the rules define: a {@code sumLong}
 * that overflows part-way in one grouping of its additions may not in another. Allocates only when
 * the suffix array grows. Not thread-safe.
 *
 * <p><b>With panes</b> ({@link #foldArrived}) a row holds only the records that arrived by its
 * cutoff, and a record may be inserted inside windows already folded (a late update, or a record of
 * a window whose early row waits). The state then also remembers the cutoff it was built with, the
 * run's count of such inserts (its <em>epoch</em>), and whether it left out a record; it starts
 * over when the epoch changed, when a later cutoff would take a record it left out, and when the
 * windows move backwards (a key's early rows, then its next on-time rows), instead of folding
 * record by record: a key's rows come in forward runs, each paying one fold of its first window.
 */
final class LongWindowFold {

  /** {@code suffix[k]}: the fold of the records {@code [splitFrom + k, split)}. */
  private long[] suffix = new long[8];

  private long splitFrom;
  private long split;

  /** The newer part: the fold of the records {@code [split, to)}. */
  private long newer;

  private long to;

  /** The start of the last window folded. */
  private long from;

  private boolean started;

  // With panes: the records taken are those whose arrival is at or below the cutoff.
  private long[] arrivals;
  private long cutoff = Long.MAX_VALUE;
  private long epoch;
  private boolean leftOut;

  /** Forgets every window: the next one starts over. */
  void reset() {
    started = false;
  }

  /**
   * Returns the fold of the records at the absolute positions {@code [from, to)}.
   *
   * @param values the key's values; the record at absolute position {@code p} is {@code values[p -
   *     dropped]}
   * @param dropped the number of records dropped from the front of {@code values} so far
   */
  long fold(LongFold fold, Object[] values, long dropped, long from, long to) {
    arrivals = null;
    if (started && (from < this.from || to < this.to)) {
      return plain(fold, values, dropped, from, to); // not forward: a visit again
    }
    return grouped(fold, values, dropped, from, to);
  }

  /**
   * With panes: returns the fold of the records at the absolute positions {@code [from, to)} whose
   * arrival number is at most {@code cutoff}.
   *
   * @param arrivals the key's arrival numbers, beside {@code values}
   * @param epoch the key's count of records inserted before others so far
   */
  long foldArrived(
      LongFold fold,
      Object[] values,
      long[] arrivals,
      long cutoff,
      long epoch,
      long dropped,
      long from,
      long to) {
    if (started
        && (epoch != this.epoch
            || cutoff < this.cutoff
            || (cutoff != this.cutoff && leftOut)
            || from < this.from
            || to < this.to)) {
      started = false; // start over: a new forward run
    }
    if (!started) {
      leftOut = false;
    }
    this.arrivals = arrivals;
    this.cutoff = cutoff;
    this.epoch = epoch;
    return grouped(fold, values, dropped, from, to);
  }

  /**
   * The two-stack fold, or, if it throws, the fold in time order: a {@code sumLong} that overflows
   * part-way in one grouping of the additions may not in another, and the rows are defined by the
   * fold in time order, which then returns the value or throws itself.
   */
  private long grouped(LongFold fold, Object[] values, long dropped, long from, long to) {
    try {
      return forward(fold, values, dropped, from, to);
    } catch (RuntimeException e) {
      started = false; // the suffix may be half rewritten
      return plain(fold, values, dropped, from, to);
    }
  }

  private long forward(LongFold fold, Object[] values, long dropped, long from, long to) {
    if (!started) {
      splitFrom = from;
      split = from;
      this.to = from;
      newer = fold.initial();
      started = true;
    }
    if (from >= split) {
      // Every record before the window may have been let go: only [from, to) is read.
      return splitAt(fold, values, dropped, from, to);
    }
    long newerAcc = newer;
    for (long p = Math.max(this.to, split); p < to; p++) {
      if (takes(p - dropped)) {
        newerAcc = fold.fold(newerAcc, values[(int) (p - dropped)]);
      }
    }
    long result = fold.merge(suffix[(int) (from - splitFrom)], newerAcc);
    this.newer = newerAcc;
    this.to = to;
    this.from = from;
    return result;
  }

  /** Whether the record at array index {@code i} is in the row: it arrived by the cutoff. */
  private boolean takes(long i) {
    if (arrivals == null || arrivals[(int) i] <= cutoff) {
      return true;
    }
    leftOut = true;
    return false;
  }

  /** The window's start passed the split: its records become the older part, as suffixes. */
  private long splitAt(LongFold fold, Object[] values, long dropped, long from, long to) {
    int n = (int) (to - from);
    if (n > suffix.length) {
      suffix = new long[Math.max(n, suffix.length * 2)];
    }
    started = false; // until the suffixes are whole
    long acc = fold.initial();
    for (int k = n - 1; k >= 0; k--) {
      if (takes(from + k - dropped)) {
        acc = fold.merge(fold.fold(fold.initial(), values[(int) (from + k - dropped)]), acc);
      }
      suffix[k] = acc;
    }
    splitFrom = from;
    split = to;
    newer = fold.initial();
    this.to = to;
    this.from = from;
    started = true;
    return acc;
  }

  /** The fold in time order of the records {@code [from, to)} taken (with panes: by the cutoff). */
  private long plain(LongFold fold, Object[] values, long dropped, long from, long to) {
    long acc = fold.initial();
    for (long p = from; p < to; p++) {
      if (arrivals == null || arrivals[(int) (p - dropped)] <= cutoff) {
        acc = fold.fold(acc, values[(int) (p - dropped)]);
      }
    }
    return acc;
  }
}
