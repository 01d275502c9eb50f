package io.github.lowwater.window;

import io.github.lowwater.WatermarkTracker;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The sliced path of {@link HoppingWindows} (without early results and grace, semantics rules 39 to
 * 41): events fold into panes, the slices of {@code gcd(size, advance)}, and a finalized window
 * combines its panes with {@link Aggregator#merge} once, when it is drained (or earlier, when a
 * partially late event is about to change one of its panes). A pane is freed once the last window
 * that holds it is drained. Not thread-safe; allocation-free at steady state with the built-in
 * {@code long} aggregators, once the pool and the scratch arrays are large enough.
 */
final class HoppingSlices<K, R> {

  private final HoppingAssigner shape;
  private final KeyDictionary keys;
  private final WindowCounters counters;
  private final LongFold longFold;
  private final Aggregator<Object, Object, ?> aggregator;

  /** The pool of emptied panes and windows, and the visit. */
  private final WindowQueue<K, R> pool;

  /** The panes: open ones, and retired ones that finalized windows still combine. */
  private final SliceStore panes;

  /** Retired panes, oldest first, released once the windows holding them are drained. */
  private final ArrayDeque<WindowEntries> retired = new ArrayDeque<>();

  /**
   * Finalized windows, in ascending start order: each combined when drained, or earlier when a
   * partially late event is about to change one of its panes.
   */
  private final ArrayDeque<WindowEntries> finalized = new ArrayDeque<>();

  /** The start of the first window not finalized yet. */
  private long nextStart = Long.MIN_VALUE;

  private int[] idsByPosition = new int[16];
  private WindowEntries[] gathered = new WindowEntries[16];
  private int expectedKeysPerWindow;

  @SuppressWarnings("unchecked") // values reach the aggregator only through the kind's add
  HoppingSlices(
      HoppingAssigner shape,
      KeyDictionary keys,
      WindowQueue<K, R> pool,
      WindowCounters counters,
      Aggregator<?, Object, R> aggregator) {
    this.shape = shape;
    this.keys = keys;
    this.pool = pool;
    this.counters = counters;
    this.aggregator = (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    this.panes =
        new SliceStore(
            new TumblingAssigner(shape.paneMillis(), shape.paneOffsetMillis()),
            keys,
            pool,
            counters,
            aggregator);
  }

  /** Folds an admitted event into its pane; partially late if its first window is finalized. */
  void accumulate(long eventTimeMillis, Object key, Object value, long watermark) {
    boolean partiallyLate = shape.firstEnd(eventTimeMillis) <= watermark;
    if (partiallyLate) {
      combineFinalizedHolding(eventTimeMillis); // they must not see this event
    }
    panes.accumulate(eventTimeMillis, key, value);
    if (partiallyLate) {
      counters.partiallyLate();
    }
  }

  /** Combines now every finalized window that holds {@code eventTimeMillis}, newest first. */
  private void combineFinalizedHolding(long eventTimeMillis) {
    long firstStart = shape.firstStart(eventTimeMillis);
    var it = finalized.descendingIterator();
    while (it.hasNext()) {
      WindowEntries w = it.next();
      if (w.start < firstStart) {
        break;
      }
      combine(w);
    }
  }

  /**
   * Finalizes every window the watermark closes, skipping those that end by {@code writtenThrough}
   * (written elsewhere).
   */
  void close(long watermark, long writtenThrough) {
    if (writtenThrough != WatermarkTracker.NO_WATERMARK) {
      nextStart = Math.max(nextStart, shape.firstStart(writtenThrough)); // markWritten
    }
    WindowEntries oldest;
    while ((oldest = panes.oldest()) != null) {
      long start = Math.max(nextStart, shape.firstStart(oldest.start));
      long end = start + shape.sizeMillis();
      if (end > watermark) {
        break;
      }
      WindowEntries w = pool.open(start, end, expectedKeysPerWindow);
      w.combined = false;
      finalized.add(w);
      counters.windowFinalized();
      nextStart =
          start > Long.MAX_VALUE - shape.advanceMillis()
              ? Long.MAX_VALUE
              : start + shape.advanceMillis();
      while ((oldest = panes.oldest()) != null && shape.lastStart(oldest.start) <= start) {
        retired.add(panes.retireOldest());
      }
    }
    nextStart = Math.max(nextStart, shape.firstStart(watermark)); // the first left open
  }

  /** Fills a finalized window with its panes' combination, once; unchanged if a merge throws. */
  private void combine(WindowEntries w) {
    if (w.combined) {
      return;
    }
    w.reset(w.start, w.end, expectedKeysPerWindow, keys.idBound());
    try {
      int count = gatherPanes(w.start);
      for (int i = 0; i < count; i++) {
        WindowEntries pane = gathered[i];
        if (idsByPosition.length < pane.size()) {
          idsByPosition = new int[Math.max(pane.size(), idsByPosition.length * 2)];
        }
        w.mergeAll(pane, idsByPosition, longFold, aggregator, keys.idBound());
      }
    } catch (RuntimeException e) {
      w.reset(w.start, w.end, 0, keys.idBound()); // empty again: the next drain combines anew
      throw e;
    } finally {
      Arrays.fill(gathered, null);
    }
    w.combined = true;
    expectedKeysPerWindow = w.size();
  }

  /**
   * Collects the panes of the window starting at {@code start}, oldest first, into {@link
   * #gathered}: by probing each pane start if the window has fewer panes than are held, else by
   * filtering the held panes.
   *
   * @return the number of panes collected
   */
  private int gatherPanes(long start) {
    long paneMillis = shape.paneMillis();
    long panesPerWindow = shape.sizeMillis() / paneMillis;
    int count = 0;
    if (panesPerWindow <= panes.findable()) {
      for (long i = 0, s = start; i < panesPerWindow; i++, s += paneMillis) {
        WindowEntries pane = panes.get(s);
        if (pane != null) {
          count = gather(pane, count);
        }
      }
      return count;
    }
    gatherFrom = start;
    gatherTo = start + shape.sizeMillis(); // fits: the window's events do
    gatherCount = count;
    retired.forEach(gatherInRange);
    panes.forEach(gatherInRange);
    Arrays.sort(gathered, 0, gatherCount, WindowEntries.BY_START);
    return gatherCount;
  }

  /** The window being gathered by filtering, for {@link #gatherInRange}. */
  private long gatherFrom;

  private long gatherTo;

  private int gatherCount;

  /** Gathers a held pane if it lies in {@code [gatherFrom, gatherTo)}; made once. */
  private final Consumer<WindowEntries> gatherInRange =
      pane -> {
        if (pane.start >= gatherFrom && pane.start < gatherTo) {
          gatherCount = gather(pane, gatherCount);
        }
      };

  private int gather(WindowEntries pane, int count) {
    if (count == gathered.length) {
      gathered = Arrays.copyOf(gathered, count * 2);
    }
    gathered[count] = pane;
    return count + 1;
  }

  boolean noneReady() {
    return finalized.isEmpty();
  }

  int readyResults() {
    return finalized.size() * Math.max(1, expectedKeysPerWindow);
  }

  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    for (WindowEntries w : finalized) {
      combine(w);
      pool.visit(w, visitor);
    }
  }

  void takeReady() {
    pool.sizeSparePool(counters.openWindows() + retired.size() + finalized.size());
    while (!finalized.isEmpty()) {
      emitted(finalized.peek());
    }
  }

  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    pool.sizeSparePool(counters.openWindows() + retired.size() + finalized.size());
    int count = 0;
    WindowEntries w;
    while ((w = finalized.peek()) != null) {
      combine(w);
      pool.visit(w, visitor);
      count += w.size();
      emitted(w);
    }
    return count;
  }

  /** The head window was handed out: it goes back to the pool, with the panes only it held. */
  private void emitted(WindowEntries w) {
    finalized.poll();
    keys.emitted();
    WindowEntries pane;
    while ((pane = retired.peek()) != null && shape.lastStart(pane.start) <= w.start) {
      retired.poll();
      panes.release(pane);
      pool.recycle(pane);
    }
    pool.recycle(w);
  }

  /** Loads ahead what a batch's folds will read in the slice of its first event; see SliceStore. */
  void touch(long firstEventTimeMillis, int[] ids, int n) {
    panes.touch(firstEventTimeMillis, ids, n);
  }

  /** Applies {@code action} to every pane and window held (the dictionary's sweep). */
  void forEach(Consumer<WindowEntries> action) {
    panes.forEach(action);
    retired.forEach(action);
    finalized.forEach(action);
  }
}
