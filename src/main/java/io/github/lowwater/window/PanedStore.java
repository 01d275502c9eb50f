package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The windows of a fixed-shape kind with panes (early results or a grace period, rules 50 to 53):
 * each window whole, one {@link WindowEntries} per window start, from its first event until it
 * retires. The kind says which windows an event goes into (a tumbling window: one; a hopping
 * window: the windows it falls in that have not retired, up to {@code ceil(size / advance)}); this
 * store folds the event into them, fires their early marks as the newest event time rises, gives
 * them their on-time rows when the watermark reaches their end, keeps them through their grace
 * period, where each event gives a late update's row, and retires them. Every row goes into one
 * {@link PaneLog}, in the order it was produced, for the drain.
 *
 * <p>With a grace period and lateness judged per source (rule 72), late updates are held instead:
 * an event within its window's grace period goes into the window's {@link
 * WindowEntries#correction}, the on-time row holds the on-time events only, and each key with a
 * held update gets one final {@code LATE} row when the window retires, the correction merged in.
 *
 * <p>An event goes into its windows whole or not at all: into one window by a fold that changes
 * nothing if it throws; into several by computing every new accumulator first (a {@code long} from
 * the key's current one, an object as {@code add(merge(create(), current), value)}, so that the
 * current object stays as it was) and installing them only once none threw. Not thread-safe;
 * allocation-free at steady state with the built-in {@code long} aggregators, once the pool, the
 * log and the scratch arrays are large enough.
 */
final class PanedStore<K, R> {

  private final KeyDictionary keys;
  private final WindowQueue<K, R> pool;
  private final WindowCounters counters;
  private final LongFold longFold;
  private final Aggregator<Object, Object, ?> aggregator;
  private final long earlyMillis;
  private final long graceMillis;

  /**
   * Whether late updates are held until the window retires (a grace period with lateness judged per
   * source, rule 72): an event within its window's grace period for its own source goes into the
   * window's {@link WindowEntries#correction}, and its key gets one {@code LATE} row when the
   * window retires, instead of a row per event at once.
   */
  private final boolean deferred;

  /** Scratch space for a correction: its key ids by position, and the merged accumulators. */
  private int[] correctionIds = new int[16];

  private long[] correctionLongs = new long[16];
  private Object[] correctionObjects = new Object[16];

  /** The rows produced, in order. */
  private final PaneLog<K, R> log;

  private final PaneRows<K, R> rows;

  /** Every window not retired, by start. */
  private final LongObjectMap<WindowEntries> byStart = new LongObjectMap<>();

  /** The windows before their on-time row, oldest first (one width: by start is by end). */
  private final PriorityQueue<WindowEntries> open = new PriorityQueue<>(WindowEntries.BY_START);

  /** Windows past their on-time row and within their grace period, by end. */
  private final PriorityQueue<WindowEntries> inGrace = new PriorityQueue<>(WindowEntries.BY_END);

  /** The key count of the last window on time: the next window is presized to it. */
  private int expectedKeys;

  /** The smallest early mark of the open windows, or lower (a window closed since): rule 50. */
  private long nextFireMillis = WindowEntries.NO_MARK;

  // The windows of the event being folded in, for a fold into several.
  private WindowEntries[] targets = new WindowEntries[4];
  private int[] found = new int[4];
  private long[] nextLongs = new long[4];
  private Object[] nextObjects = new Object[4];

  // The open windows due to fire, gathered by collectDue.
  private WindowEntries[] due = new WindowEntries[8];
  private int dueCount;
  private long dueBy;
  private long notDueMark;

  private final Consumer<WindowEntries> collectDue =
      w -> {
        // NO_MARK is Long.MAX_VALUE: a window with no mark left never fires, even at N = MAX.
        if (w.nextMarkMillis <= dueBy && w.nextMarkMillis != WindowEntries.NO_MARK) {
          if (dueCount == due.length) {
            due = Arrays.copyOf(due, dueCount * 2);
          }
          due[dueCount++] = w;
        } else {
          notDueMark = Math.min(notDueMark, w.nextMarkMillis);
        }
      };

  /**
   * @param pool the kind's pool, opening windows with {@link PaneMarks}
   * @param earlyMillis the period of early results, 0 for none
   * @param graceMillis the grace period, {@code >= 0}
   * @param holdLateUpdates whether events are judged against their own source's watermark (rule
   *     72): with a grace period, late updates are then held until the window retires
   */
  @SuppressWarnings("unchecked") // values reach the aggregator only through the kind's add
  PanedStore(
      KeyDictionary keys,
      WindowQueue<K, R> pool,
      WindowCounters counters,
      Aggregator<?, Object, R> aggregator,
      long earlyMillis,
      long graceMillis,
      boolean holdLateUpdates) {
    this.keys = keys;
    this.pool = pool;
    this.counters = counters;
    this.aggregator = (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    this.earlyMillis = earlyMillis;
    this.graceMillis = graceMillis;
    this.deferred = holdLateUpdates && graceMillis > 0;
    this.log = new PaneLog<>(aggregator, longFold != null);
    this.rows = new PaneRows<>(log, keys, counters, longFold != null);
  }

  /**
   * Folds an admitted event into its {@code count} windows not retired, {@code [firstStart + i *
   * step, firstEnd + i * step)}, ascending; changes nothing if the key or the aggregator throws.
   * Each window in its grace period gives the key a {@code LATE} row (rule 52), unless it ends by
   * {@code writtenThrough} (written elsewhere); a window it opens before its end gets its first
   * early mark above {@code newest} (rule 50).
   *
   * <p>Held late updates (a grace period judged per source): a window that ends at or below {@code
   * watermark} takes the event into its held correction instead, and its key gets its {@code LATE}
   * row when the window retires ({@link #close}); a window opened that way past the shared
   * watermark has no on-time row.
   *
   * @param watermark the watermark the event was admitted against
   * @param sharedWatermark the shared watermark (the one windows close on), {@code <= watermark}
   */
  void accumulate(
      long firstStart,
      long firstEnd,
      long step,
      int count,
      Object key,
      Object value,
      long watermark,
      long sharedWatermark,
      long writtenThrough,
      long newest) {
    int id = keys.id(key); // a key whose hashCode or equals throws changes nothing
    // Held late updates: the windows ending by the watermark take the event as a correction.
    long correctionsThrough = deferred ? watermark : Long.MIN_VALUE;
    if (count == 1) {
      foldOne(firstStart, firstEnd, id, value, firstEnd <= correctionsThrough);
    } else {
      foldEach(firstStart, firstEnd, step, count, id, value, correctionsThrough);
    }
    for (int i = 0; i < count; i++) {
      WindowEntries w = targets[i];
      targets[i] = null;
      if (deferred) {
        placedHeld(w, w.end <= correctionsThrough, sharedWatermark);
      } else {
        placed(w, id, watermark, writtenThrough, newest);
      }
    }
  }

  /**
   * Folds into one window (or its held correction), opening either if needed; {@code targets[0]} is
   * the window.
   */
  private void foldOne(long start, long end, int id, Object value, boolean correction) {
    WindowEntries w = byStart.get(start);
    if (w != null && w.correction != null) {
      heldSumFits(correction ? w.correction : w, correction ? w : w.correction, id, value);
    }
    boolean opened = w == null;
    if (opened) {
      w = pool.open(start, end, expectedKeys);
    }
    WindowEntries into = w;
    boolean openedCorrection = false;
    if (correction) {
      into = w.correction;
      if (into == null) {
        into = pool.open(start, end, 0);
        openedCorrection = true;
      }
    }
    boolean newKey;
    try {
      newKey = into.foldValue(id, value, longFold, aggregator, keys.idBound());
    } catch (RuntimeException e) {
      if (openedCorrection) {
        pool.abandon(into);
      }
      if (opened) {
        pool.abandon(w);
      }
      throw e;
    }
    if (opened) {
      opened(w);
    }
    if (openedCorrection) {
      w.correction = into;
    }
    if (newKey && !correction) {
      counters.entryOpened(); // a correction's entries count when the window retires
    }
    targets[0] = w;
  }

  /**
   * Folds into several windows: every new accumulator first, none installed if one throws; then
   * each window opened if needed and its accumulator installed. {@code targets} holds the windows.
   * A window ending by {@code correctionsThrough} takes the event into its held correction.
   */
  private void foldEach(
      long firstStart,
      long firstEnd,
      long step,
      int count,
      int id,
      Object value,
      long correctionsThrough) {
    if (targets.length < count) {
      targets = new WindowEntries[count];
      found = new int[count];
      nextLongs = new long[count];
      nextObjects = new Object[count];
    }
    try {
      for (int i = 0; i < count; i++) {
        WindowEntries w = byStart.get(firstStart + i * step);
        if (w != null && w.correction != null) {
          boolean correction = firstEnd + i * step <= correctionsThrough;
          heldSumFits(correction ? w.correction : w, correction ? w : w.correction, id, value);
        }
        if (w != null && firstEnd + i * step <= correctionsThrough) {
          w = w.correction; // null until the window has one
        }
        targets[i] = w;
        int at = w == null ? -1 : w.find(id);
        found[i] = at;
        if (longFold != null) {
          nextLongs[i] = longFold.fold(at >= 0 ? w.longFound(at, id) : longFold.initial(), value);
        } else {
          Object start =
              at >= 0
                  ? aggregator.merge(aggregator.create(), w.objectFound(at))
                  : aggregator.create();
          nextObjects[i] = aggregator.add(start, value);
        }
      }
    } catch (RuntimeException e) {
      Arrays.fill(targets, 0, count, null);
      Arrays.fill(nextObjects, 0, count, null);
      throw e;
    }
    for (int i = 0; i < count; i++) {
      long start = firstStart + i * step;
      long end = firstEnd + i * step;
      boolean correction = end <= correctionsThrough;
      WindowEntries into = targets[i];
      WindowEntries w = correction ? byStart.get(start) : into;
      if (w == null) {
        w = pool.open(start, end, expectedKeys);
        opened(w);
      }
      if (into == null) {
        into = correction ? pool.open(start, end, 0) : w;
        if (correction) {
          w.correction = into;
        }
        found[i] = into.find(id); // empty: where the key goes
      }
      targets[i] = w;
      boolean newKey =
          longFold != null
              ? into.putLongFound(found[i], id, nextLongs[i], keys.idBound())
              : into.putObjectFound(found[i], id, nextObjects[i]);
      nextObjects[i] = null;
      if (newKey && !correction) {
        counters.entryOpened(); // a correction's entries count when the window retires
      }
    }
  }

  private void opened(WindowEntries w) {
    byStart.putNew(w.start, w);
    counters.windowOpened();
  }

  /** After the fold: the window's place (open, or in grace with a late row) and its early mark. */
  private void placed(WindowEntries w, int id, long watermark, long writtenThrough, long newest) {
    boolean fresh = w.nextMarkMillis == WindowEntries.MARK_UNSET;
    if (w.end <= watermark) { // a late update, within the grace period (rule 52)
      if (fresh) {
        // Opened by this event: past its end already, it never had an on-time row.
        w.nextMarkMillis = WindowEntries.NO_MARK;
        inGrace.add(w);
      }
      if (w.end > writtenThrough) {
        rows.late(w, id);
      }
    } else if (fresh) {
      open.add(w);
      w.nextMarkMillis =
          earlyMillis > 0
              ? PaneMarks.firstMarkAfter(w.start, w.end, earlyMillis, newest)
              : WindowEntries.NO_MARK;
      nextFireMillis = Math.min(nextFireMillis, w.nextMarkMillis);
    }
  }

  /**
   * Held late updates with a built-in {@code long} aggregator: throws, changing nothing, if folding
   * {@code value} into {@code into} would leave a key whose on-time value and held correction no
   * longer merge (a sum past the {@code long} range), so that a window never fails to retire.
   *
   * @throws ArithmeticException if they would not merge
   */
  private void heldSumFits(WindowEntries into, WindowEntries other, int id, Object value) {
    if (longFold == null) {
      return; // an object aggregator's merge is the user's: it may throw at retirement
    }
    int o = other.find(id);
    if (o < 0) {
      return;
    }
    int at = into.find(id);
    long next = longFold.fold(at >= 0 ? into.longFound(at, id) : longFold.initial(), value);
    longFold.merge(next, other.longFound(o, id));
  }

  /**
   * Held late updates, after the fold: a window opened now waits for its on-time row, or, opened by
   * a correction past the shared watermark, for its retirement only.
   */
  private void placedHeld(WindowEntries w, boolean correction, long sharedWatermark) {
    if (correction) {
      counters.lateUpdate();
    }
    if (w.nextMarkMillis == WindowEntries.MARK_UNSET) {
      w.nextMarkMillis = WindowEntries.NO_MARK; // no early results with held late updates
      if (w.end <= sharedWatermark) {
        inGrace.add(w); // opened by a correction, past its end: it never has an on-time row
      } else {
        open.add(w);
      }
    }
  }

  /** Rule 50: every open window with an early mark in {@code (previous, newest]} fires once. */
  void newestRose(long newest, long writtenThrough) {
    if (newest < nextFireMillis) {
      return; // the common case: no mark reached
    }
    dueBy = newest;
    notDueMark = WindowEntries.NO_MARK;
    open.forEach(collectDue);
    Arrays.sort(due, 0, dueCount, WindowEntries.BY_START);
    long next = notDueMark;
    for (int i = 0; i < dueCount; i++) {
      WindowEntries w = due[i];
      if (w.end > writtenThrough) {
        rows.early(w);
      }
      w.nextMarkMillis = PaneMarks.firstMarkAfter(w.start, w.end, earlyMillis, newest);
      next = Math.min(next, w.nextMarkMillis);
    }
    Arrays.fill(due, 0, dueCount, null);
    dueCount = 0;
    nextFireMillis = next;
  }

  /**
   * Each window the watermark reaches gets its on-time rows (rule 51), then retires (rule 52) or
   * waits in its grace period; the windows whose grace period the watermark passed retire. A window
   * that ends by {@code writtenThrough} (written elsewhere) gets no row.
   */
  void close(long watermark, long writtenThrough) {
    WindowEntries w;
    while ((w = open.peek()) != null && w.end <= watermark) {
      open.poll();
      expectedKeys = w.size();
      counters.windowFinalized();
      boolean retires = TimeMath.saturatedAdd(w.end, graceMillis) <= watermark;
      if (w.end > writtenThrough) {
        // Held late updates: a correction may follow until the window retires, so never final.
        rows.onTime(w, retires && !deferred);
      }
      w.nextMarkMillis = WindowEntries.NO_MARK; // not open: no early row from now on
      if (retires && !deferred) {
        retire(w, writtenThrough); // a correction retires below, where a merge that throws waits
      } else {
        inGrace.add(w);
      }
    }
    while ((w = inGrace.peek()) != null && TimeMath.saturatedAdd(w.end, graceMillis) <= watermark) {
      retire(w, writtenThrough); // leaves it first in the queue if a merge throws
      inGrace.poll();
    }
  }

  /** Drops the rows produced from now on, while {@code on} (a replay). */
  void replaying(boolean on) {
    log.replaying = on;
  }

  /**
   * A window's state goes for good; its rows stay in the log. With a held correction, its keys
   * first get their {@code LATE} row, final, with the window's whole value (unless the window ends
   * by {@code writtenThrough}).
   *
   * @throws RuntimeException if an object aggregator's {@code merge} throws: nothing changes, the
   *     window waits in its grace period and retires at the next rise of the watermark (a built-in
   *     {@code long} aggregator never throws here: a fold that would make the merge overflow is
   *     refused when it comes)
   */
  private void retire(WindowEntries w, long writtenThrough) {
    if (w.correction != null) {
      applyCorrection(w, writtenThrough);
    }
    byStart.remove(w.start);
    counters.windowClosed(w.size());
    counters.windowRetired();
    keys.emitted();
    pool.recycle(w);
  }

  /**
   * Merges the window's held correction into it, every merged accumulator computed before any is
   * installed (a merge that throws changes nothing), then gives each of its keys, in the order of
   * its first late update, a final {@code LATE} row with its next index.
   */
  private void applyCorrection(WindowEntries w, long writtenThrough) {
    WindowEntries c = w.correction;
    int size = c.size();
    if (correctionIds.length < size) {
      int length = Math.max(size, correctionIds.length * 2);
      correctionIds = new int[length];
      correctionLongs = new long[length];
      correctionObjects = new Object[length];
    }
    c.idsByPosition(correctionIds);
    try {
      for (int position = 0; position < size; position++) {
        int id = correctionIds[position];
        int at = w.find(id);
        if (longFold != null) {
          long onTime = at >= 0 ? w.longFound(at, id) : longFold.initial();
          correctionLongs[position] = longFold.merge(onTime, c.longAt(position, id));
        } else {
          Object merged = aggregator.create(); // a copy: the on-time row keeps its accumulator
          if (at >= 0) {
            merged = aggregator.merge(merged, w.objectFound(at));
          }
          correctionObjects[position] = aggregator.merge(merged, c.objectAt(position));
        }
      }
    } catch (RuntimeException e) {
      Arrays.fill(correctionObjects, 0, size, null);
      throw e;
    }
    for (int position = 0; position < size; position++) {
      int id = correctionIds[position];
      boolean newKey =
          longFold != null
              ? w.putLongFound(w.find(id), id, correctionLongs[position], keys.idBound())
              : w.putObjectFound(w.find(id), id, correctionObjects[position]);
      correctionObjects[position] = null;
      if (newKey) {
        counters.entryOpened();
      }
    }
    if (w.end > writtenThrough) {
      for (int position = 0; position < size; position++) {
        rows.correction(w, correctionIds[position]);
      }
    }
    w.correction = null;
    pool.recycle(c);
  }

  boolean noneReady() {
    return log.isEmpty();
  }

  int readyResults() {
    return log.size();
  }

  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    log.visitAll(visitor);
  }

  void takeReady() {
    pool.sizeSparePool(counters.openWindows());
    log.takeAll();
  }

  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    pool.sizeSparePool(counters.openWindows());
    return log.drain(visitor);
  }

  /** Applies {@code action} to every window not retired (the dictionary's sweep). */
  void forEach(Consumer<WindowEntries> action) {
    open.forEach(action);
    inGrace.forEach(action);
    if (deferred) {
      for (WindowEntries w : open) {
        if (w.correction != null) {
          action.accept(w.correction);
        }
      }
      for (WindowEntries w : inGrace) {
        if (w.correction != null) {
          action.accept(w.correction);
        }
      }
    }
  }
}
