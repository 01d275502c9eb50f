package io.github.lowwater.window;

import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The open slices of one window kind: fixed-width, aligned spans of event time ({@link
 * TumblingAssigner}), each a {@link WindowEntries} of (key, accumulator) entries. A tumbling window
 * is one slice; a hopping window is the slices of {@code gcd(size, advance)} it covers, combined
 * when it is emitted. The store folds events into their slice and hands the slices back oldest
 * first; what a closed slice becomes is the kind's decision. With early results or a grace period
 * the kinds keep whole windows in a {@link PanedStore} instead.
 *
 * <p>Not thread-safe. {@link #accumulate} costs one hash probe of the slice by start (none when the
 * event falls into the previous event's slice) and one of the key; it allocates nothing once the
 * slice is open and its arrays large enough.
 */
final class SliceStore {

  private final WindowAssigner assigner;
  private final KeyDictionary keys;
  private final WindowQueue<?, ?> queue;
  private final WindowCounters counters;

  /** The built-in long aggregator's primitive form, or null: then accumulators are objects. */
  private final LongFold longFold;

  private final Aggregator<Object, Object, ?> aggregator;

  /** Open slices by start. */
  private final LongObjectMap<WindowEntries> byStart = new LongObjectMap<>();

  /** Open slices, oldest first (slices have one width, so start and end order agree). */
  private final PriorityQueue<WindowEntries> oldestFirst =
      new PriorityQueue<>(WindowEntries.BY_START);

  /** The slice of the previous accepted event: consecutive events mostly share one. */
  private WindowEntries last;

  /** What {@link #touch} read: a sink that keeps its loads from being optimized away. */
  private long touched;

  /** The key count of the last closed slice: the next slice is presized to it. */
  private int expectedKeys;

  @SuppressWarnings("unchecked") // values reach the aggregator only through the kind's add
  SliceStore(
      WindowAssigner assigner,
      KeyDictionary keys,
      WindowQueue<?, ?> queue,
      WindowCounters counters,
      Aggregator<?, ?, ?> aggregator) {
    this.assigner = assigner;
    this.keys = keys;
    this.queue = queue;
    this.counters = counters;
    this.aggregator = (Aggregator<Object, Object, ?>) aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
  }

  /** Returns the end, exclusive, of the slice that holds {@code eventTimeMillis}. */
  long endOf(long eventTimeMillis) {
    WindowEntries w = last;
    if (w != null && eventTimeMillis >= w.start && eventTimeMillis < w.end) {
      return w.end; // the previous event's slice, as accumulate finds it: no division
    }
    return assigner.endOf(eventTimeMillis);
  }

  /**
   * Adds the value to its (slice, key) accumulator, opening the slice if needed; changes nothing if
   * the key's {@code hashCode} or {@code equals}, or the aggregator, throws.
   */
  void accumulate(long eventTimeMillis, Object key, Object value) {
    WindowEntries w = last;
    long start = 0;
    if (w == null || eventTimeMillis < w.start || eventTimeMillis >= w.end) {
      start = assigner.startOf(eventTimeMillis); // computed once, for the lookup and the opening
      w = byStart.get(start);
    }
    int id = keys.id(key); // a key whose hashCode or equals throws changes nothing
    boolean opened = w == null;
    if (opened) {
      w = queue.open(start, assigner.endOf(eventTimeMillis), expectedKeys);
    }
    boolean newKey;
    try {
      newKey = w.foldValue(id, value, longFold, aggregator, keys.idBound());
    } catch (RuntimeException e) {
      if (opened) {
        queue.abandon(w);
      }
      throw e;
    }
    if (opened) {
      byStart.putNew(w.start, w);
      oldestFirst.add(w);
      counters.windowOpened();
    }
    if (newKey) {
      counters.entryOpened();
    }
    last = w;
  }

  /**
   * Loads, ahead of a batch, the index slots its events will probe in the slice of its first event
   * (the batch's events are mostly of one slice): {@code ids[0, n)} are their key ids, negative for
   * a key not in the dictionary. Changes nothing.
   */
  void touch(long firstEventTimeMillis, int[] ids, int n) {
    WindowEntries w = last;
    if (w == null || firstEventTimeMillis < w.start || firstEventTimeMillis >= w.end) {
      w = byStart.get(assigner.startOf(firstEventTimeMillis));
    }
    if (w != null) {
      touched += w.touch(ids, n); // kept, so that the loads are not optimized away
    }
  }

  /** Returns the oldest open slice, or null. */
  WindowEntries oldest() {
    return oldestFirst.peek();
  }

  /** Returns the open slice starting at {@code start}, or null. */
  WindowEntries get(long start) {
    return byStart.get(start);
  }

  /** Closes the oldest open slice and returns it: the caller finalizes or recycles it. */
  WindowEntries closeOldest() {
    WindowEntries w = retireOldest();
    release(w);
    return w;
  }

  /**
   * Closes the oldest open slice but keeps it findable by {@link #get} until {@link #release}: a
   * pane that windows waiting for a drain still combine. No event reaches a retired slice (its
   * windows are all finalized, so its events are late).
   */
  WindowEntries retireOldest() {
    WindowEntries w = oldestFirst.poll();
    if (last == w) {
      last = null;
    }
    expectedKeys = w.size();
    counters.windowClosed(w.size());
    return w;
  }

  /** Forgets a retired slice: {@link #get} and {@link #accumulate} no longer find it. */
  void release(WindowEntries w) {
    byStart.remove(w.start);
  }

  /** Returns the number of slices {@link #get} finds: the open ones and the retired ones. */
  int findable() {
    return byStart.size();
  }

  /** Applies {@code action} to every open slice (the dictionary's sweep; a gathering walk). */
  void forEach(Consumer<WindowEntries> action) {
    oldestFirst.forEach(action);
  }
}
