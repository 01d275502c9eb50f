package io.github.lowwater.window;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Keyed hopping (sliding) event-time windows: windows of {@code size} that start every {@code
 * advance}, {@code [k·advance + offset, k·advance + offset + size)}, so that an event belongs to
 * {@code size / advance} windows (rounded either way). With {@code advance == size} they are
 * exactly {@link TumblingWindows}.
 *
 * <p><b>One update per event, not {@code size / advance}.</b> Events are folded into panes, the
 * slices of {@code gcd(size, advance)} that every window is made of, and a window combines its
 * panes with {@link Aggregator#merge} once, when it is drained (Flink SQL and Hazelcast Jet slice
 * this way). A pane is freed once the last window that holds it is drained. The aggregator must
 * merge: {@code build()} refuses one that does not.
 *
 * <p><b>With early results or a grace period</b> ({@link #builder builder}{@code
 * .earlyResults(period)}, {@code .grace(grace)}: semantics rule 55) each window is kept whole
 * instead, as a tumbling window is, so that it can give rows while it is open and after its on-time
 * row: an event folds into each of its windows that has not retired, up to {@code ceil(size /
 * advance)} folds per event, all or none (into several windows, every new accumulator is computed
 * before any is kept; for an aggregator that is not a built-in {@code long} one that is a copy of
 * the key's accumulator per window and event). Within a window the keys then come in the order of
 * their first event in it. Rules 2 to 4 below then read with the grace period {@code G}: late iff
 * the last window's {@code end + G <= watermark}, partially late if a window of the event retired
 * ({@code end + G <= watermark}); and the rows are those of semantics rules 49 to 55.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread.</b> Without panes
 * {@code add} costs what {@link TumblingWindows#add} costs, and a drain, per window, its panes'
 * entries; with panes, {@code add} costs a fold per window of the event. No allocation at steady
 * state with the built-in {@code long} aggregators. No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>Event times must lie in {@code [Long.MIN_VALUE + size, Long.MAX_VALUE - size]}, so that
 *       every window of the event fits in a {@code long}; {@code add} refuses another with {@link
 *       IllegalArgumentException}, and nothing changes.
 *   <li>An event is <em>late</em> iff the end of its last window is {@code <= watermark} at its
 *       arrival (every window it belongs to is finalized): counted once, handed to the late handler
 *       once, with that end as {@code windowEnd}.
 *   <li>An event whose first windows are finalized but whose last one is open goes into its open
 *       windows only, and is counted in {@link WindowStats#partiallyLate()} (and in {@code
 *       accepted}); it never reaches the late handler.
 *   <li>A window is finalized once the watermark reaches its end, in ascending end order, each
 *       exactly once, and only if one of its panes holds an event; within a window, the keys come
 *       in the order of the window's panes, oldest first, and within a pane in the order of their
 *       first event.
 *   <li>If {@link Aggregator#merge} or {@code result} throws during a drain, the window being
 *       combined stays at the head of the queue, unchanged, and the next drain combines it again.
 * </ol>
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <R> the result type
 */
public final class HoppingWindows<K, V, R> extends EventTimeWindows<K, V, R> {

  private final HoppingAssigner shape;

  /** The pool of emptied panes and windows. */
  private final WindowQueue<K, R> pool;

  /** Without panes: the slices, and the windows combined from them; null with panes. */
  private final HoppingSlices<K, R> slices;

  private long[] sweepMarks;
  private final Consumer<WindowEntries> markIds = w -> w.markIds(sweepMarks);

  /** With panes (early results or a grace period): the windows, each whole; null without. */
  private final PanedStore<K, R> whole;

  private HoppingWindows(Builder<? super V, R> builder) {
    super(builder);
    this.shape =
        new HoppingAssigner(builder.sizeMillis, builder.advanceMillis, builder.offsetMillis);
    // Judged per source (rule 72), an event must stay out of the windows its own source has
    // passed while the shared watermark has not: only whole windows can keep it out of some.
    boolean paned = builder.paned() || builder.perSourceLatenessSet();
    this.pool = new WindowQueue<>(keys, aggregator, longFold != null, paned, counters);
    this.whole =
        paned
            ? new PanedStore<>(
                keys,
                pool,
                counters,
                aggregator,
                earlyMillis,
                graceMillis,
                perSourceLateness() && builder.holdLateUpdates)
            : null;
    this.slices = paned ? null : new HoppingSlices<>(shape, keys, pool, counters, aggregator);
  }

  /**
   * Returns a builder for hopping windows folded with the given aggregator.
   *
   * @param size the window size, at least one millisecond; converted to milliseconds once,
   *     saturating (sub-millisecond parts are dropped)
   * @param advance how far apart windows start, at least one millisecond and at most {@code size}
   * @param aggregator folds the values of one key, and {@linkplain Aggregator#merge merges} panes
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code size} or {@code advance} is shorter than one
   *     millisecond, or {@code advance > size}
   */
  public static <V, R> Builder<V, R> builder(
      Duration size, Duration advance, Aggregator<? super V, ?, R> aggregator) {
    return new Builder<>(size, advance, aggregator);
  }

  /**
   * Returns the window size in milliseconds.
   *
   * @return the size, {@code >= 1}
   */
  public long sizeMillis() {
    return shape.sizeMillis();
  }

  /**
   * Returns the advance in milliseconds.
   *
   * @return the advance, {@code 1 <= advance <= size}
   */
  public long advanceMillis() {
    return shape.advanceMillis();
  }

  @Override
  public String toString() {
    return "HoppingWindows{sizeMillis="
        + shape.sizeMillis()
        + ", advanceMillis="
        + shape.advanceMillis()
        + ", "
        + stats()
        + "}";
  }

  /** Returns the number of emptied panes and windows kept for reuse (for tests). */
  int spareWindows() {
    return pool.spareWindows();
  }

  @Override
  boolean fits(long eventTimeMillis) {
    return shape.fits(eventTimeMillis);
  }

  @Override
  long lateEnd(long eventTimeMillis) {
    if (!shape.fits(eventTimeMillis)) {
      throw new IllegalArgumentException(
          "eventTimeMillis must lie in [Long.MIN_VALUE + size, Long.MAX_VALUE - size] for hopping"
              + " windows of size "
              + shape.sizeMillis()
              + " ms: "
              + eventTimeMillis);
    }
    return shape.lastEnd(eventTimeMillis);
  }

  @Override
  void touchAhead(long firstEventTimeMillis, int[] ids, int n) {
    if (slices != null) {
      slices.touch(firstEventTimeMillis, ids, n);
    }
  }

  @Override
  void accumulate(long eventTimeMillis, K key, V value, long watermark) {
    if (whole != null) {
      accumulateWhole(eventTimeMillis, key, value, watermark);
      return;
    }
    slices.accumulate(eventTimeMillis, key, value, watermark);
  }

  /**
   * With panes: into each window of the event that has not retired ({@code end + grace >
   * watermark}), one {@code advance} after the other; partially late if a window of it retired.
   */
  private void accumulateWhole(long eventTimeMillis, K key, V value, long watermark) {
    long first = shape.firstStart(eventTimeMillis);
    // The windows ending by watermark - grace are retired: the first one left starts after that.
    long firstLeft =
        Math.max(first, shape.firstStart(TimeMath.saturatedSubtract(watermark, graceMillis)));
    long advance = shape.advanceMillis();
    int count = (int) ((shape.lastStart(eventTimeMillis) - firstLeft) / advance) + 1;
    whole.accumulate(
        firstLeft,
        firstLeft + shape.sizeMillis(),
        advance,
        count,
        key,
        value,
        watermark,
        tracker.watermark(),
        writtenThroughMillis,
        newestMillis());
    if (firstLeft != first) {
      counters.partiallyLate();
    }
  }

  /** Rule 50, with panes: every open window with an early mark reached fires once. */
  @Override
  void newestRose(long previous, long newest) {
    whole.newestRose(newest, writtenThroughMillis); // called only with early results
  }

  @Override
  void closeReady(long watermark) {
    if (whole != null) {
      whole.close(watermark, writtenThroughMillis);
      return;
    }
    slices.close(watermark, writtenThroughMillis);
  }

  @Override
  boolean noneReady() {
    return whole != null ? whole.noneReady() : slices.noneReady();
  }

  @Override
  int readyResults() {
    return whole != null ? whole.readyResults() : slices.readyResults();
  }

  @Override
  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    if (whole != null) {
      whole.visitReady(visitor);
    } else {
      slices.visitReady(visitor);
    }
  }

  @Override
  void takeReady() {
    if (whole != null) {
      whole.takeReady();
    } else {
      slices.takeReady();
    }
  }

  @Override
  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    return whole != null ? whole.drainReady(visitor) : slices.drainReady(visitor);
  }

  @Override
  void markLiveIds(long[] live) {
    sweepMarks = live;
    try {
      if (whole != null) {
        whole.forEach(markIds);
      } else {
        slices.forEach(markIds);
      }
    } finally {
      sweepMarks = null;
    }
  }

  /**
   * Configures {@link HoppingWindows}: the size, the advance, the offset and the aggregator, and
   * the options every kind shares ({@link WindowOptions}).
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> extends WindowOptions<V, R, Builder<V, R>> {
    /**
     * With early results or a grace period, the most windows an event may fall into: each one is a
     * fold per event and a slot of the fold's scratch arrays ({@code size / advance} beyond that is
     * refused at {@link #build()}).
     */
    public static final int MAX_WINDOWS_PER_EVENT = 1 << 20;

    private final long sizeMillis;
    private final long advanceMillis;
    private long offsetMillis;
    private boolean offsetSet;

    private Builder(Duration size, Duration advance, Aggregator<? super V, ?, R> aggregator) {
      super(aggregator);
      this.sizeMillis = Checks.requireMillis(size, "size");
      long advanceMillis = Checks.requireMillis(advance, "advance");
      if (advanceMillis > sizeMillis) {
        throw new IllegalArgumentException("advance must be <= size (" + size + "): " + advance);
      }
      this.advanceMillis = advanceMillis;
    }

    /**
     * Shifts the windows: they start at {@code k·advance + offset}. Default 0 (windows aligned on
     * the epoch). Only {@code offset} modulo {@code advance} matters.
     *
     * @param offset the offset, any duration; converted to milliseconds, saturating
     * @return this builder
     * @throws NullPointerException if {@code offset} is null
     * @throws IllegalStateException if the offset was already set
     */
    public Builder<V, R> offset(Duration offset) {
      Objects.requireNonNull(offset, "offset");
      Checks.requireUnset(!offsetSet, "offset", Duration.ofMillis(offsetMillis));
      this.offsetMillis = TimeMath.toMillisSaturated(offset);
      this.offsetSet = true;
      return this;
    }

    /**
     * Builds the windows, with no source, no open window and no watermark.
     *
     * @param <K> the key type
     * @param <W> the value type: the builder's, or a subtype
     * @return new windows
     * @throws IllegalArgumentException if the aggregator does not implement {@link
     *     Aggregator#merge}, or, with early results or a grace period, if an event would fall into
     *     more than {@link #MAX_WINDOWS_PER_EVENT} windows ({@code ceil(size / advance)})
     */
    public <K, W extends V> HoppingWindows<K, W, R> build() {
      checkPerSourceLateness("hopping windows", true, true);
      requireMerging("hopping windows");
      long windowsPerEvent =
          (sizeMillis + advanceMillis - 1) / advanceMillis; // no overflow: <= size
      if ((paned() || perSourceLatenessSet()) && windowsPerEvent > MAX_WINDOWS_PER_EVENT) {
        throw new IllegalArgumentException(
            "with early results, a grace period or perSourceLateness an event folds into each of its"
                + " windows, at most "
                + MAX_WINDOWS_PER_EVENT
                + ": size / advance is "
                + windowsPerEvent
                + " (size "
                + Duration.ofMillis(sizeMillis)
                + ", advance "
                + Duration.ofMillis(advanceMillis)
                + "); use a longer advance");
      }
      return new HoppingWindows<K, W, R>(this);
    }
  }

  @Override
  void replayRows(boolean on) {
    if (whole != null) {
      whole.replaying(on);
    }
  }
}
