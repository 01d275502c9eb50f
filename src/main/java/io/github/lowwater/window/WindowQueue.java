package io.github.lowwater.window;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The emission of the kinds whose windows share one span per window ({@link TumblingWindows},
 * {@link HoppingWindows}): the finalized windows waiting for a drain, in the order they were
 * finalized, and the pool of emptied windows kept for reuse. Every {@link WindowEntries} of its
 * kind comes from {@link #open} and goes back through {@link #recycle}.
 *
 * <p>The pool: at most {@link #spareLimit} emptied windows, so that the windows opened after a
 * burst of finalized ones reuse them instead of allocating. A window is allocated only when the
 * pool is empty, so the windows held (open, waiting and spare) never outnumber the most that were
 * ever open or waiting at once. While events keep coming, the pool keeps as many as were held at
 * their recent peak (the most held at a drain in this epoch or the one before; an epoch ends after
 * twice that peak of windows opened), so that a stream whose state rises and falls in cycles, such
 * as a catch-up's laps, reuses the same windows at every peak; a drain with no event since the one
 * before (the stream went quiet) trims the pool to what is held. Not thread-safe; allocation-free
 * once the pool and the scratch array are large enough.
 */
final class WindowQueue<K, R> {

  private static final int SPARE_WINDOWS = 4;

  private final KeyDictionary keys;
  private final Aggregator<?, Object, R> aggregator;
  private final boolean primitive;
  private final boolean paned;
  private final WindowCounters counters;

  /** Finalized windows not emitted yet, in the order they were finalized. */
  private final ArrayDeque<WindowEntries> finalized = new ArrayDeque<>();

  /** Emptied windows kept for reuse. */
  private final ArrayDeque<WindowEntries> spare = new ArrayDeque<>();

  /**
   * The size of the pool: {@link #SPARE_WINDOWS}, or the windows not yet emitted when the last
   * drain began if there were more.
   */
  private int spareLimit = SPARE_WINDOWS;

  /** Windows opened since the last drain began: none means the spare pool may shrink. */
  private int windowsOpenedSinceDrain;

  /** The events counted when the last drain began: the same count means the stream went quiet. */
  private long eventsAtDrain;

  /** The most windows held (open or waiting) when a drain began, in this epoch. */
  private long epochPeak;

  /** The same, in the epoch before this one. */
  private long previousEpochPeak;

  /** Windows opened in this epoch: it ends once they reach twice the recent peak. */
  private long openedInEpoch;

  /** Scratch space of the drain: the key id of each entry position of a window. */
  private int[] idsByPosition = new int[16];

  WindowQueue(
      KeyDictionary keys,
      Aggregator<?, Object, R> aggregator,
      boolean primitive,
      WindowCounters counters) {
    this(keys, aggregator, primitive, false, counters);
  }

  /**
   * @param paned whether its windows' rows are panes: every window it opens has {@link PaneMarks}
   */
  WindowQueue(
      KeyDictionary keys,
      Aggregator<?, Object, R> aggregator,
      boolean primitive,
      boolean paned,
      WindowCounters counters) {
    this.keys = keys;
    this.aggregator = aggregator;
    this.primitive = primitive;
    this.paned = paned;
    this.counters = counters;
  }

  /** Returns an empty window {@code [start, end)}, from the pool if it has one. */
  WindowEntries open(long start, long end, int expectedKeys) {
    WindowEntries reused = spare.poll();
    windowsOpenedSinceDrain++;
    openedInEpoch++;
    return (reused != null ? reused : new WindowEntries(primitive, paned))
        .reset(start, end, expectedKeys, keys.idBound());
  }

  /** Queues a finalized window for the next drain. */
  void finalized(WindowEntries w) {
    finalized.add(w);
    counters.windowFinalized();
  }

  /** Returns whether no finalized window waits. */
  boolean isEmpty() {
    return finalized.isEmpty();
  }

  /** Returns the number of results the finalized windows hold. */
  int results() {
    int count = 0;
    for (WindowEntries w : finalized) {
      count += w.size();
    }
    return count;
  }

  /** Visits every finalized window and keeps them queued; see {@link #takeAll}. */
  void visitAll(ResultVisitor<? super K, ? super R> visitor) {
    for (WindowEntries w : finalized) {
      visit(w, visitor);
    }
  }

  /** Takes every finalized window off the queue, as emitted. */
  void takeAll() {
    sizeSparePool(counters.openWindows() + finalized.size());
    while (!finalized.isEmpty()) {
      emitted(finalized.poll());
    }
  }

  /**
   * Visits the finalized windows one by one, each taken off the queue once all its results were
   * visited; if the visitor throws, the window being visited stays at the head.
   *
   * @return the number of results visited
   */
  int drain(ResultVisitor<? super K, ? super R> visitor) {
    sizeSparePool(counters.openWindows() + finalized.size());
    int count = 0;
    WindowEntries w;
    while ((w = finalized.peek()) != null) {
      visit(w, visitor);
      count += w.size();
      emitted(finalized.poll());
    }
    return count;
  }

  /** Hands every result of one window to the visitor, in the order of each key's first event. */
  void visit(WindowEntries w, ResultVisitor<? super K, ? super R> visitor) {
    int size = w.size();
    if (idsByPosition.length < size) {
      idsByPosition = new int[Math.max(size, idsByPosition.length * 2)];
    }
    int[] ids = idsByPosition;
    w.idsByPosition(ids);
    for (int position = 0; position < size; position++) {
      @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
      K key = (K) keys.key(ids[position]);
      if (primitive) {
        visitor.visitLongPane(
            w.start, w.end, key, w.longAt(position, ids[position]), Timing.ON_TIME, 0, true);
      } else {
        visitor.visitPane(
            w.start, w.end, key, aggregator.result(w.objectAt(position)), Timing.ON_TIME, 0, true);
      }
    }
  }

  /** A window whose results were all handed out: its keys may go, its storage is kept for reuse. */
  private void emitted(WindowEntries w) {
    keys.emitted();
    recycle(w);
  }

  /** Gives back a window whose opening failed: as if {@link #open} had not been called. */
  void abandon(WindowEntries w) {
    windowsOpenedSinceDrain--;
    recycle(w);
  }

  /**
   * Gives back a window that will not be emitted (a pane whose windows were all emitted, a window
   * written elsewhere): its accumulators go, its storage is kept if the pool has room.
   */
  void recycle(WindowEntries w) {
    w.dropAccumulators();
    if (spare.size() < spareLimit) {
      spare.push(w);
    }
  }

  /**
   * At the start of a drain: room for every window not yet emitted ({@code held}: open or waiting),
   * if there are many, and, while events keep coming, for as many as were held at the recent peak,
   * for the windows that open when the state grows back to it. If no window opened since the
   * previous drain, the pool also gives back the spare windows beyond that; while windows keep
   * opening, it keeps them for the windows that open next, and shrinks only as they take them. A
   * drain with no event since the previous one (the stream went quiet after a burst) forgets the
   * peak: the pool keeps room for the windows held only.
   */
  void sizeSparePool(long held) {
    long events = counters.events();
    if (events == eventsAtDrain) {
      previousEpochPeak = 0; // quiet: nothing is coming to reuse what the peak needed
      epochPeak = 0;
    }
    eventsAtDrain = events;
    epochPeak = Math.max(epochPeak, held);
    long recentPeak = Math.max(epochPeak, previousEpochPeak);
    spareLimit = (int) Math.max(SPARE_WINDOWS, recentPeak); // at least held: the peak counts it
    if (windowsOpenedSinceDrain == 0) {
      while (spare.size() > spareLimit) {
        spare.pop(); // nothing reuses them: their memory goes back
      }
    }
    windowsOpenedSinceDrain = 0;
    if (openedInEpoch >= 2 * Math.max(SPARE_WINDOWS, recentPeak)) {
      previousEpochPeak = epochPeak; // a new epoch: a peak is remembered for two
      epochPeak = held;
      openedInEpoch = 0;
    }
  }

  /** Returns the number of emptied windows kept for reuse (for tests). */
  int spareWindows() {
    return spare.size();
  }

  /** Applies {@code action} to every finalized window (the dictionary's sweep). */
  void forEachFinalized(Consumer<WindowEntries> action) {
    finalized.forEach(action);
  }
}
