package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;

/**
 * The records of {@link SlidingWindows}, by key, and the windows they decide.
 *
 * <p>Each key with records held has a {@link Run}: its records in time order (equal times in
 * arrival order), and the end through which its windows are decided. A window {@code [end - d - 1,
 * end)} of a key is a <em>candidate</em> when a record lies at {@code end - 1} (the window that
 * ends at it) or at {@code end - d - 2} (the window that starts just after it); the candidates of a
 * run are decided in ascending end order as the watermark passes them, and the runs wait in a
 * {@link SlidingHeap} by their next candidate, so a watermark rise costs {@code O(log runs)} per
 * decided window and nothing for the keys it does not reach.
 *
 * <p>A decided window is queued in {@link SlidingRows} and folded when it is drained, from the
 * records still held: so an aggregator's exception is a drain's, and leaves the row queued. Without
 * panes, a record that is not late lies at or after the watermark, so none that came after a window
 * closed is in it, and a record is let go once its last candidate ({@code t + d + 2}) is decided
 * and no row of its key waits.
 *
 * <p><b>With panes</b> (early results or a grace period, semantics rule 79) each row also notes the
 * arrival number of the newest record, and holds only the records that arrived by then; a window
 * remembers its rows in the key's {@link SlidingPanes} until it retires ({@code end + grace <=
 * watermark}), and a record is let go once every window that can hold it has retired. A run then
 * also waits in the heap for its next retirement. Early rows fire at the marks {@code kΔ} of event
 * time, for every open window a mark falls in.
 *
 * <p>Allocates only when a key's arrays or the queue grow, and for a run of a new key (runs of keys
 * that leave are reused). Not thread-safe.
 */
final class SlidingStore {

  private final long d;
  private final WindowCounters counters;
  private final long earlyMillis;
  private final long graceMillis;
  private final boolean paned;

  /** The runs by key id; null for a key without records or rows. */
  private Run[] runs = new Run[16];

  /** The most runs kept for reuse, and the largest arrays a kept run keeps. */
  static final int MAX_SPARE = 1_024;

  static final int MAX_SPARE_CAPACITY = 64;

  /** Runs of keys that left, for reuse. */
  private Run[] spare = new Run[16];

  private int spareCount;

  private final SlidingHeap heap = new SlidingHeap();

  private final SlidingRows rows;

  /** With panes: the arrival number of the newest record. */
  private long arrivals;

  /** With panes: rows are counted and indexed, and not queued (a replay). */
  private boolean replaying;

  /**
   * @param earlyMillis the period of early results, 0 for none
   * @param graceMillis the grace period, {@code >= 0}
   */
  SlidingStore(
      long timeDifferenceMillis, WindowCounters counters, long earlyMillis, long graceMillis) {
    this.d = timeDifferenceMillis;
    this.counters = counters;
    this.earlyMillis = earlyMillis;
    this.graceMillis = graceMillis;
    this.paned = earlyMillis > 0 || graceMillis > 0;
    this.rows = new SlidingRows(paned);
  }

  /** The records and the decisions of one key. */
  static final class Run {
    int id;
    long[] times = new long[4];
    Object[] values = new Object[4];

    /** With panes: each record's arrival number; else null. */
    long[] arrivals;

    int size;

    /** Every candidate window of this key ending at or before it is decided. */
    long decided;

    /** With panes: every window of this key ending at or before it is retired. */
    long retired;

    /** The heap's time; valid while in the heap. */
    long next;

    /** The position in the heap, or -1. */
    int heapIndex = -1;

    /** The rows of this key waiting for a drain. */
    int queued;

    /** The records dropped from the front of the arrays so far: absolute positions for the fold. */
    long dropped;

    /** With panes: the records inserted before others so far (absolute positions moved). */
    long insertedInside;

    /** With a built-in {@code long} aggregator: the key's windows folded in O(1) each; or null. */
    LongWindowFold longFold;

    /** With panes: the rows of the key's windows not retired; else null. */
    SlidingPanes panes;
  }

  /** The run of a key id, or null. */
  Run run(int id) {
    return id < runs.length ? runs[id] : null;
  }

  /**
   * Holds a record that is not late ({@code t + 1 + grace > watermark}): every candidate of its key
   * ending by the watermark is decided already (a watermark rise decides them before the next
   * record comes). With panes, a record whose own window is complete ({@code t + 1 <= watermark})
   * is a late update: each window it changes or makes that is complete gets a {@code LATE} row.
   */
  void add(int id, long t, Object value, long watermark, long writtenThrough) {
    Run run = run(id);
    if (run == null) {
      run = newRun(id, watermark);
      counters.windowOpened();
    }
    run.decided = Math.max(run.decided, watermark);
    insert(run, t, value);
    counters.entryOpened();
    if (paned && TimeMath.saturatedAdd(t, 1) <= watermark) {
      lateRows(run, t, watermark, writtenThrough);
    }
    reschedule(run);
  }

  /**
   * Decides every candidate window ending at or before {@code watermark}, in ascending end order
   * (equal ends by key id): a window is queued unless it ends at or before {@code writtenThrough}.
   * With panes, also retires the windows and records that {@code watermark} retires.
   */
  void close(long watermark, long writtenThrough) {
    while (!heap.isEmpty() && heap.firstTime() <= watermark) {
      Run run = heap.first();
      if (paned) {
        step(run, watermark, writtenThrough);
      } else {
        long end = run.next;
        if (end > writtenThrough && defines(run, end)) {
          rows.add(run.id, end);
          run.queued++;
          counters.windowFinalized();
        }
        run.decided = end;
        if (run.queued == 0) {
          dropDecided(run, run.decided);
        }
      }
      if (!reschedule(run) && run.size == 0 && run.queued == 0 && noPanes(run)) {
        release(run);
      }
    }
  }

  /** With panes: the run's next candidate, or its next retirement if that comes first. */
  private void step(Run run, long watermark, long writtenThrough) {
    long candidate = nextCandidate(run);
    long retirement = nextRetirement(run);
    if (candidate != Long.MIN_VALUE
        && candidate <= watermark
        && (retirement == Long.MIN_VALUE || candidate <= retirement)) {
      if (candidate > writtenThrough && defines(run, candidate)) {
        boolean isFinal = TimeMath.saturatedAdd(candidate, graceMillis) <= watermark;
        produce(run, candidate, countIn(run, candidate), Timing.ON_TIME, isFinal);
        counters.windowFinalized();
      }
      run.decided = candidate;
      return;
    }
    // Every window and record due to retire here ends by the decided end: a later one would be a
    // candidate still to decide, and would have come first.
    long through = Math.min(retiredThrough(watermark), run.decided);
    for (int n = run.panes.retireThrough(through); n > 0; n--) {
      counters.windowRetired();
    }
    run.retired = Math.max(run.retired, through);
    if (run.queued == 0) {
      dropDecided(run, run.retired);
    }
  }

  /**
   * The {@code LATE} rows of a late update at {@code t}: every window ending in {@code [t + 1,
   * min(watermark, t + d + 2)]} that exists, is not retired, was not written elsewhere, and holds
   * the record or did not exist before it (a window that has had no row and is complete exists only
   * since this record: every other got its on-time row, and remembers it until it retires).
   */
  private void lateRows(Run run, long t, long watermark, long writtenThrough) {
    long to = Math.min(watermark, TimeMath.saturatedAdd(TimeMath.saturatedAdd(t, d), 2));
    long retiredThrough = retiredThrough(watermark);
    for (long end = candidateFrom(run, TimeMath.saturatedAdd(t, 1));
        end != Long.MIN_VALUE && end <= to;
        end = end == Long.MAX_VALUE ? Long.MIN_VALUE : candidateFrom(run, end + 1)) {
      if (end <= writtenThrough || end <= retiredThrough || !defines(run, end)) {
        continue;
      }
      boolean holds = startOf(end) <= t && (t < end || end == Long.MAX_VALUE);
      if (holds || run.panes.find(end) < 0) {
        produce(run, end, countIn(run, end), Timing.LATE, false);
        counters.lateUpdate();
      }
    }
  }

  /**
   * With early results: the newest event time rose from {@code previous} to {@code newest}. If a
   * mark {@code kΔ} lies in {@code (previous, newest]}, every open window with such a mark after
   * its start and before its end fires: an {@code EARLY} row if it has had no row or holds more
   * records than at its last one. Keys in id order, each key's windows in ascending end.
   */
  void fireEarly(long previous, long newest, long writtenThrough) {
    if (Math.floorDiv(newest, earlyMillis) == Math.floorDiv(previous, earlyMillis)) {
      return;
    }
    long to = TimeMath.saturatedAdd(newest, d); // a window that starts before newest
    for (Run run : runs) {
      if (run == null || run.size == 0 || run.decided == Long.MAX_VALUE) {
        continue;
      }
      // Open windows not written elsewhere, and with a mark above previous before their end
      // (end - 1 > previous): the windows of a lagging watermark that end by then are not visited.
      long from = Math.max(Math.max(run.decided, writtenThrough), previous + 1);
      if (from == Long.MAX_VALUE) {
        continue;
      }
      for (long end = candidateFrom(run, from + 1);
          end != Long.MIN_VALUE && end <= to;
          end = end == Long.MAX_VALUE ? Long.MIN_VALUE : candidateFrom(run, end + 1)) {
        long lo = Math.max(previous, startOf(end));
        long hi = Math.min(newest, end - 1);
        if (hi <= lo
            || Math.floorDiv(hi, earlyMillis) == Math.floorDiv(lo, earlyMillis)
            || !defines(run, end)) {
          continue;
        }
        int slot = run.panes.find(end);
        int count = countIn(run, end);
        if (slot < 0 || run.panes.count(slot) != count) {
          produce(run, end, count, Timing.EARLY, false);
          counters.earlyRow();
        }
      }
    }
  }

  /**
   * A row of the window ending at {@code end}, which holds {@code count} records now, with the
   * window's next index, remembered.
   */
  private void produce(Run run, long end, int count, Timing timing, boolean isFinal) {
    int index = run.panes.row(end, count);
    if (!replaying) {
      rows.add(run.id, end, timing, index, isFinal, arrivals);
      run.queued++;
    }
  }

  /** The end through which {@code watermark} retires windows: {@code watermark - grace}. */
  private long retiredThrough(long watermark) {
    return watermark == Long.MAX_VALUE
        ? Long.MAX_VALUE
        : TimeMath.saturatedSubtract(watermark, graceMillis);
  }

  /** With panes: while {@code on}, rows are counted and indexed but not queued (a replay). */
  void replaying(boolean on) {
    replaying = on;
  }

  /** The rows waiting. */
  int ready() {
    return rows.size();
  }

  /** The rows waiting, for their key, end and pane. */
  SlidingRows rows() {
    return rows;
  }

  /** The start of a window ending at {@code end}: {@code end - d - 1}, saturating. */
  long startOf(long end) {
    return TimeMath.saturatedSubtract(TimeMath.saturatedSubtract(end, d), 1);
  }

  /**
   * Folds the {@code i}-th waiting row with the built-in long aggregator, through the key's {@link
   * LongWindowFold}: without panes a key's windows are drained with starts and ends that only move
   * forward; with panes a key's rows come in forward runs (its early rows of one firing, its
   * on-time rows between firings), each row holding the records that arrived by its cutoff.
   */
  long foldLong(int i, LongFold fold) {
    Run run = runs[rows.key(i)];
    long end = rows.end(i);
    int from = firstAtOrAfter(run, startOf(end));
    int to = windowTo(run, end);
    if (run.longFold == null) {
      run.longFold = new LongWindowFold();
    }
    if (paned) {
      return run.longFold.foldArrived(
          fold,
          run.values,
          run.arrivals,
          rows.cutoff(i),
          run.insertedInside,
          run.dropped,
          from + run.dropped,
          to + run.dropped);
    }
    return run.longFold.fold(fold, run.values, run.dropped, from + run.dropped, to + run.dropped);
  }

  /** Folds the {@code i}-th waiting row with an object aggregator (see {@link #foldLong}). */
  Object fold(int i, Aggregator<Object, Object, ?> aggregator) {
    Run run = runs[rows.key(i)];
    long end = rows.end(i);
    long cutoff = rows.cutoff(i);
    Object acc = aggregator.create();
    for (int j = firstAtOrAfter(run, startOf(end)), to = windowTo(run, end); j < to; j++) {
      if (!paned || run.arrivals[j] <= cutoff) {
        acc = aggregator.add(acc, run.values[j]);
      }
    }
    return acc;
  }

  /**
   * The index after the last record of the window ending at {@code end}: the first at or after it,
   * or every record for a saturated window, which holds the records through it.
   */
  private static int windowTo(Run run, long end) {
    return end == Long.MAX_VALUE ? run.size : firstAtOrAfter(run, end);
  }

  /** The records the window ending at {@code end} holds now. */
  private int countIn(Run run, long end) {
    return windowTo(run, end) - firstAtOrAfter(run, startOf(end));
  }

  /** Takes the oldest waiting row off the queue, and lets go of what only it needed. */
  void take() {
    Run run = runs[rows.take()];
    if (--run.queued == 0) {
      dropDecided(run, paned ? run.retired : run.decided);
      if (run.size == 0 && run.heapIndex < 0 && noPanes(run)) {
        release(run);
      }
    }
  }

  /** Sets the bit of every key id with records held, rows waiting or windows not retired. */
  void markIds(long[] live) {
    for (Run r : runs) {
      if (r != null) {
        live[r.id >>> 6] |= 1L << r.id;
      }
    }
  }

  private boolean noPanes(Run run) {
    return run.panes == null || run.panes.isEmpty();
  }

  /**
   * Whether the candidate window ending at {@code end} exists: it holds a record (a candidate is
   * made by a record at {@code end - 1}, which it holds, or by one at {@code end - d - 2}, which
   * makes it only with a record in it). A saturated end ({@code Long.MAX_VALUE}) stands for every
   * window whose end would pass it: it exists if one of them does, that is if a record lies at or
   * after {@code MAX - 1}, or two records of different times at or after {@code MAX - d - 2} (a
   * window that starts just after the first holds the second: they are at most {@code d} apart).
   */
  private boolean defines(Run run, long end) {
    if (end == Long.MAX_VALUE) {
      if (firstAtOrAfter(run, Long.MAX_VALUE - 1) < run.size) {
        return true;
      }
      int first =
          firstAtOrAfter(
              run, TimeMath.saturatedSubtract(TimeMath.saturatedSubtract(Long.MAX_VALUE, d), 2));
      return first < run.size && run.times[run.size - 1] > run.times[first];
    }
    return firstAtOrAfter(run, startOf(end)) < windowTo(run, end);
  }

  /** The next candidate end above {@code decided}, or {@code Long.MIN_VALUE} for none. */
  private long nextCandidate(Run run) {
    return run.decided == Long.MAX_VALUE ? Long.MIN_VALUE : candidateFrom(run, run.decided + 1);
  }

  /**
   * The smallest candidate end at or above {@code from}: the smallest of {@code t + 1} and {@code t
   * + d + 2} over the records, saturating (so that a candidate past {@code Long.MAX_VALUE} is
   * decided at it, with the others there); {@code Long.MIN_VALUE} for none.
   */
  private long candidateFrom(Run run, long from) {
    long next = Long.MIN_VALUE;
    int left = firstAtOrAfter(run, TimeMath.saturatedSubtract(from, 1));
    if (left < run.size) {
      long end = TimeMath.saturatedAdd(run.times[left], 1);
      if (end >= from) {
        next = end;
      }
    }
    int right =
        firstAtOrAfter(run, TimeMath.saturatedSubtract(TimeMath.saturatedSubtract(from, d), 2));
    if (right < run.size) {
      long end = TimeMath.saturatedAdd(TimeMath.saturatedAdd(run.times[right], d), 2);
      if (end >= from && (next == Long.MIN_VALUE || end < next)) {
        next = end;
      }
    }
    return next;
  }

  /**
   * With panes: when the next window or record of the run retires ({@code end + grace}, {@code t +
   * d + 2 + grace}), or {@code Long.MIN_VALUE} for none.
   */
  private long nextRetirement(Run run) {
    long next = Long.MIN_VALUE;
    if (!run.panes.isEmpty()) {
      next = TimeMath.saturatedAdd(run.panes.oldestEnd(), graceMillis);
    }
    if (run.retired != Long.MAX_VALUE) {
      int first = firstAtOrAfter(run, startOf(run.retired)); // t + d + 2 > retired
      if (first < run.size) {
        long t = run.times[first];
        long end =
            TimeMath.saturatedAdd(
                TimeMath.saturatedAdd(TimeMath.saturatedAdd(t, d), 2), graceMillis);
        next = next == Long.MIN_VALUE ? end : Math.min(next, end);
      }
    }
    return next;
  }

  /** Puts the run in the heap at its next time, or out of it; returns whether it is in. */
  private boolean reschedule(Run run) {
    long next = nextCandidate(run);
    if (paned) {
      long retirement = nextRetirement(run);
      if (next == Long.MIN_VALUE || (retirement != Long.MIN_VALUE && retirement < next)) {
        next = retirement;
      }
    }
    if (next == Long.MIN_VALUE) {
      heap.remove(run);
      return false;
    }
    heap.schedule(run, next);
    return true;
  }

  /**
   * Lets go of the records whose last candidate ends by {@code through} ({@code t + d + 2 <=
   * through}, every record once it is {@code Long.MAX_VALUE}), once they are half the run or all of
   * it: amortized O(1) per record, where a copy of the rest at every drain would cost the run's
   * length. Until then they stay at the front, where no candidate, window or fold reaches them
   * (each searches from a start later than theirs).
   */
  private void dropDecided(Run run, long through) {
    int n = through == Long.MAX_VALUE ? run.size : firstAtOrAfter(run, startOf(through));
    if (n == 0 || (n < run.size && n * 2 < run.size)) {
      return;
    }
    int rest = run.size - n;
    System.arraycopy(run.times, n, run.times, 0, rest);
    System.arraycopy(run.values, n, run.values, 0, rest);
    if (run.arrivals != null) {
      System.arraycopy(run.arrivals, n, run.arrivals, 0, rest);
    }
    Arrays.fill(run.values, rest, run.size, null);
    run.size = rest;
    run.dropped += n;
    counters.entriesClosed(n);
  }

  /** Inserts a record at its place in time order, after the records of the same time. */
  private void insert(Run run, long t, Object value) {
    if (run.size == run.times.length) {
      int capacity = run.size * 2;
      run.times = Arrays.copyOf(run.times, capacity);
      run.values = Arrays.copyOf(run.values, capacity);
      if (paned) {
        run.arrivals = Arrays.copyOf(run.arrivals, capacity);
      }
    }
    int at = run.size;
    while (at > 0 && run.times[at - 1] > t) {
      at--; // mostly none: records come nearly in order
    }
    int moved = run.size - at;
    if (moved > 0) {
      run.insertedInside++;
      System.arraycopy(run.times, at, run.times, at + 1, moved);
      System.arraycopy(run.values, at, run.values, at + 1, moved);
      if (paned) {
        System.arraycopy(run.arrivals, at, run.arrivals, at + 1, moved);
      }
    }
    run.times[at] = t;
    run.values[at] = value;
    if (paned) {
      run.arrivals[at] = ++arrivals;
    }
    run.size++;
  }

  /** The index of the first record at or after {@code t}: a binary search. */
  private static int firstAtOrAfter(Run run, long t) {
    int lo = 0;
    int hi = run.size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (run.times[mid] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private Run newRun(int id, long watermark) {
    if (id >= runs.length) {
      runs = Arrays.copyOf(runs, Math.max(id + 1, runs.length * 2));
    }
    Run run = spareCount > 0 ? spare[--spareCount] : new Run();
    run.id = id;
    run.decided = watermark;
    run.retired = Long.MIN_VALUE;
    run.dropped = 0;
    if (run.longFold != null) {
      run.longFold.reset();
    }
    if (paned) {
      if (run.panes == null) {
        run.panes = new SlidingPanes();
        run.arrivals = new long[run.times.length];
      }
      run.panes.clear();
    }
    runs[id] = run;
    return run;
  }

  /**
   * A key without records, rows or windows not retired: its run is kept for reuse (its arrays cut
   * back if a dense key grew them, and no more than {@link #MAX_SPARE} runs kept), its id left to
   * the dictionary.
   */
  private void release(Run run) {
    runs[run.id] = null;
    counters.windowClosed(0);
    if (spareCount == MAX_SPARE) {
      return;
    }
    if (run.times.length > MAX_SPARE_CAPACITY) {
      run.times = new long[4];
      run.values = new Object[4];
      run.arrivals = null;
      run.panes = null; // made again, small, when the run is reused
    }
    if (spareCount == spare.length) {
      spare = Arrays.copyOf(spare, spareCount * 2);
    }
    spare[spareCount++] = run;
  }
}
