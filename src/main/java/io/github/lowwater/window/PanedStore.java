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
   */
  @SuppressWarnings("unchecked") // values reach the aggregator only through the kind's add
  PanedStore(
      KeyDictionary keys,
      WindowQueue<K, R> pool,
      WindowCounters counters,
      Aggregator<?, Object, R> aggregator,
      long earlyMillis,
      long graceMillis) {
    this.keys = keys;
    this.pool = pool;
    this.counters = counters;
    this.aggregator = (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    this.earlyMillis = earlyMillis;
    this.graceMillis = graceMillis;
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
   * @param watermark the watermark the event was admitted against
   */
  void accumulate(
      long firstStart,
      long firstEnd,
      long step,
      int count,
      Object key,
      Object value,
      long watermark,
      long writtenThrough,
      long newest) {
    int id = keys.id(key); // a key whose hashCode or equals throws changes nothing
    if (count == 1) {
      foldOne(firstStart, firstEnd, id, value);
    } else {
      foldEach(firstStart, firstEnd, step, count, id, value);
    }
    for (int i = 0; i < count; i++) {
      WindowEntries w = targets[i];
      targets[i] = null;
      placed(w, id, watermark, writtenThrough, newest);
    }
  }

  /** Folds into one window, opening it if needed; {@code targets[0]} is the window. */
  private void foldOne(long start, long end, int id, Object value) {
    WindowEntries w = byStart.get(start);
    boolean opened = w == null;
    if (opened) {
      w = pool.open(start, end, expectedKeys);
    }
    boolean newKey;
    try {
      newKey = w.foldValue(id, value, longFold, aggregator, keys.idBound());
    } catch (RuntimeException e) {
      if (opened) {
        pool.abandon(w);
      }
      throw e;
    }
    if (opened) {
      opened(w);
    }
    if (newKey) {
      counters.entryOpened();
    }
    targets[0] = w;
  }

  /**
   * Folds into several windows: every new accumulator first, none installed if one throws; then
   * each window opened if needed and its accumulator installed. {@code targets} holds the windows.
   */
  private void foldEach(
      long firstStart, long firstEnd, long step, int count, int id, Object value) {
    if (targets.length < count) {
      targets = new WindowEntries[count];
      found = new int[count];
      nextLongs = new long[count];
      nextObjects = new Object[count];
    }
    try {
      for (int i = 0; i < count; i++) {
        WindowEntries w = byStart.get(firstStart + i * step);
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
      WindowEntries w = targets[i];
      if (w == null) {
        w = pool.open(firstStart + i * step, firstEnd + i * step, expectedKeys);
        opened(w);
        targets[i] = w;
        found[i] = w.find(id); // empty: where the key goes
      }
      boolean newKey =
          longFold != null
              ? w.putLongFound(found[i], id, nextLongs[i], keys.idBound())
              : w.putObjectFound(found[i], id, nextObjects[i]);
      nextObjects[i] = null;
      if (newKey) {
        counters.entryOpened();
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
        rows.onTime(w, retires);
      }
      w.nextMarkMillis = WindowEntries.NO_MARK; // not open: no early row from now on
      if (retires) {
        retire(w);
      } else {
        inGrace.add(w);
      }
    }
    while ((w = inGrace.peek()) != null && TimeMath.saturatedAdd(w.end, graceMillis) <= watermark) {
      retire(inGrace.poll());
    }
  }

  /** Drops the rows produced from now on, while {@code on} (a replay). */
  void replaying(boolean on) {
    log.replaying = on;
  }

  /** A window's state goes for good; its rows stay in the log. */
  private void retire(WindowEntries w) {
    byStart.remove(w.start);
    counters.windowClosed(w.size());
    counters.windowRetired();
    keys.emitted();
    pool.recycle(w);
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
  }
}
