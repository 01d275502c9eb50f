package io.github.lowwater.window;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Keyed tumbling event-time windows on top of a {@link WatermarkTracker}: events go into the window
 * {@code [start, start + size)} that contains their event time, a window is finalized once the
 * watermark reaches its end, and events that arrive behind the watermark are counted and handed to
 * a late path instead of being silently dropped.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread</b> (the polling
 * thread). {@link #watermark()}, {@link #activeSources()} and {@link #stats()} may be read from any
 * thread. {@link #add} reads the clock once, costs O(1) plus the watermark's amortised O(log
 * sources) when the event's source is the slowest, and allocates nothing once its (window, key) is
 * open and its source known (with the built-in {@link Aggregators}). No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>The window of event time {@code t} starts at {@code floorDiv(t - offset, size) * size +
 *       offset} and ends (exclusive) {@code size} later; both saturate at the {@code long} bounds.
 *       Calendar windows ({@link #builder(CalendarPeriod, Aggregator)}) are the day, week or month
 *       of {@code t} in a time zone instead (docs/semantics.md, rule 75).
 *   <li>An event is <em>late</em> iff its window's end {@code <= watermark} at its arrival, judged
 *       before the event itself is observed. A late event is counted ({@link WindowStats#late()}),
 *       still counts as activity of its source, and is handed to the {@link LateEventHandler} if
 *       one is set.
 *   <li>A window is finalized when {@code watermark >= end}. {@link #pollFinalized()} returns each
 *       finalized window exactly once, in ascending end order; within a window, keys come in the
 *       order of their first event.
 *   <li>The watermark follows the rules of {@link WatermarkTracker}.
 * </ol>
 *
 * <h2>Example</h2>
 *
 * <pre>{@code
 * TumblingWindows<String, Long, Long> windows =
 *     TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
 *         .allowedLateness(Duration.ofMinutes(2))
 *         .idleTimeout(Duration.ofMinutes(2))
 *         .build();
 * for (ConsumerRecord<String, Long> r : consumer.poll(timeout)) {
 *   windows.add(new TopicPartition(r.topic(), r.partition()), r.timestamp(), r.key(), r.value());
 * }
 * for (WindowResult<String, Long> result : windows.pollFinalized()) {
 *   sink.write(result.start(), result.end(), result.key(), result.value());
 * }
 * }</pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <R> the result type
 */
public final class TumblingWindows<K, V, R> extends EventTimeWindows<K, V, R> {

  private final long sizeMillis;

  /** The calendar period of calendar windows, or null for fixed-size windows. */
  private final CalendarPeriod period;

  /** The open windows: each is one slice of {@code size}. */
  private final SliceStore windows;

  /** The finalized windows and the pool of emptied ones. */
  private final WindowQueue<K, R> queue;

  /** The marks of the sweep in progress, for {@link #markIds}. */
  private long[] sweepMarks;

  private final Consumer<WindowEntries> markIds = w -> w.markIds(sweepMarks);

  /** With panes (early results or a grace period): the windows and their rows; null without. */
  private final PanedStore<K, R> panes;

  /** The window of an event, with panes (without, the slice store assigns). */
  private final WindowAssigner assigner;

  private TumblingWindows(Builder<? super V, R> builder) {
    super(builder);
    this.period = builder.period;
    this.assigner =
        period != null
            ? new CalendarAssigner(period)
            : new TumblingAssigner(builder.sizeMillis, builder.offsetMillis);
    this.sizeMillis = assigner.maxSizeMillis();
    boolean primitive = longFold != null;
    boolean paned = builder.paned();
    this.queue = new WindowQueue<>(keys, aggregator, primitive, paned, counters);
    this.windows = new SliceStore(assigner, keys, queue, counters, aggregator);
    this.panes =
        paned
            ? new PanedStore<>(
                keys,
                queue,
                counters,
                aggregator,
                earlyMillis,
                graceMillis,
                perSourceLateness() && builder.holdLateUpdates)
            : null;
  }

  /**
   * Returns a builder for windows of the given size folded with the given aggregator.
   *
   * @param size the window size, at least one millisecond; converted to milliseconds once,
   *     saturating (sub-millisecond parts are dropped)
   * @param aggregator folds the values of one key in one window
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code size} or {@code aggregator} is null
   * @throws IllegalArgumentException if {@code size} is shorter than one millisecond
   */
  public static <V, R> Builder<V, R> builder(
      Duration size, Aggregator<? super V, ?, R> aggregator) {
    return new Builder<>(size, aggregator);
  }

  /**
   * Returns a builder for calendar windows: the days, weeks or months of a time zone, each window
   * as long as the zone's clocks make it (a day of 23 or 25 hours when daylight saving time starts
   * or ends), with every option of fixed-size windows (docs/semantics.md, rule 75). With {@code
   * earlyResults(Duration.ofHours(1))} a daily window gives "today so far" every hour (Flink's
   * cumulate windows).
   *
   * @param period the calendar period, for example {@code CalendarPeriod.days(ZoneId.of(
   *     "America/New_York"))}
   * @param aggregator folds the values of one key in one window
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   */
  public static <V, R> Builder<V, R> builder(
      CalendarPeriod period, Aggregator<? super V, ?, R> aggregator) {
    return new Builder<>(period, aggregator);
  }

  /**
   * Returns the end, exclusive, of the window that holds an event time: {@code floorDiv(t - offset,
   * size) * size + offset + size}, or the end of its calendar period, saturating at {@code
   * Long.MAX_VALUE} (rules 9, 75 and 76). An event is late iff this is {@code <= watermark()}.
   *
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @return the window's end in epoch milliseconds
   */
  public long windowEnd(long eventTimeMillis) {
    return windows.endOf(eventTimeMillis);
  }

  /**
   * Returns the window size in milliseconds; for calendar windows, a bound on the longest window
   * (the period's nominal length plus the largest change of a zone's offset, 36 hours).
   *
   * @return the window size, {@code >= 1}
   */
  public long sizeMillis() {
    return sizeMillis;
  }

  /**
   * Returns the calendar period of calendar windows.
   *
   * @return the period, or {@code null} for fixed-size windows
   */
  public CalendarPeriod calendarPeriod() {
    return period;
  }

  @Override
  public String toString() {
    return "TumblingWindows{"
        + (period != null ? period.toString() : "sizeMillis=" + sizeMillis)
        + ", "
        + stats()
        + "}";
  }

  /** Returns the number of emptied windows kept for reuse (for tests). */
  int spareWindows() {
    return queue.spareWindows();
  }

  @Override
  long lateEnd(long eventTimeMillis) {
    return windows.endOf(eventTimeMillis);
  }

  @Override
  void touchAhead(long firstEventTimeMillis, int[] ids, int n) {
    if (panes == null) {
      windows.touch(firstEventTimeMillis, ids, n);
    }
  }

  @Override
  void accumulate(long eventTimeMillis, K key, V value, long watermark) {
    if (panes != null) {
      panes.accumulate(
          assigner.startOf(eventTimeMillis),
          assigner.endOf(eventTimeMillis),
          0,
          1,
          key,
          value,
          watermark,
          tracker.watermark(),
          writtenThroughMillis,
          newestMillis());
      return;
    }
    windows.accumulate(eventTimeMillis, key, value);
  }

  /** Rule 50: every open window with an early mark in {@code (previous, newest]} fires once. */
  @Override
  void newestRose(long previous, long newest) {
    panes.newestRose(newest, writtenThroughMillis); // called only with early results
  }

  @Override
  void closeReady(long watermark) {
    if (panes != null) {
      panes.close(watermark, writtenThroughMillis);
      return;
    }
    WindowEntries w;
    while ((w = windows.oldest()) != null && w.end <= watermark) {
      windows.closeOldest();
      if (w.end <= writtenThroughMillis) {
        queue.recycle(w); // written elsewhere (markWritten): never emitted again
      } else {
        queue.finalized(w);
      }
    }
  }

  @Override
  boolean noneReady() {
    return panes != null ? panes.noneReady() : queue.isEmpty();
  }

  @Override
  int readyResults() {
    return panes != null ? panes.readyResults() : queue.results();
  }

  @Override
  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    if (panes != null) {
      panes.visitReady(visitor);
    } else {
      queue.visitAll(visitor);
    }
  }

  @Override
  void takeReady() {
    if (panes != null) {
      panes.takeReady();
    } else {
      queue.takeAll();
    }
  }

  @Override
  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    if (panes != null) {
      return panes.drainReady(visitor);
    }
    return queue.drain(visitor);
  }

  /**
   * The dictionary's sweep: every window not yet emitted, open or finalized, keeps its ids. Walks
   * with a visitor made once, so that a sweep allocates nothing.
   */
  @Override
  void markLiveIds(long[] live) {
    sweepMarks = live;
    try {
      windows.forEach(markIds);
      queue.forEachFinalized(markIds);
      if (panes != null) {
        panes.forEach(markIds);
      }
    } finally {
      sweepMarks = null;
    }
  }

  /**
   * Configures {@link TumblingWindows}: the window size and the aggregator, and the options every
   * kind shares ({@link WindowOptions}).
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> extends WindowOptions<V, R, Builder<V, R>> {
    private final long sizeMillis;
    private final CalendarPeriod period;
    private long offsetMillis;
    private boolean offsetSet;

    private Builder(Duration size, Aggregator<? super V, ?, R> aggregator) {
      super(aggregator);
      this.sizeMillis = Checks.requireMillis(size, "size");
      this.period = null;
    }

    private Builder(CalendarPeriod period, Aggregator<? super V, ?, R> aggregator) {
      super(aggregator);
      this.period = Objects.requireNonNull(period, "period");
      this.sizeMillis = 0;
    }

    /**
     * Shifts the windows: they start at {@code k·size + offset} (hourly windows on the half hour:
     * {@code offset(Duration.ofMinutes(30))}). Default 0 (windows aligned on the epoch). Only
     * {@code offset} modulo {@code size} matters, so an offset larger than the size, or negative,
     * is allowed (rule 76).
     *
     * @param offset the offset, any duration; converted to milliseconds, saturating
     * @return this builder
     * @throws NullPointerException if {@code offset} is null
     * @throws IllegalStateException if the offset was already set, or the windows are calendar
     *     windows (they start at the start of a day in their zone)
     */
    public Builder<V, R> offset(Duration offset) {
      Objects.requireNonNull(offset, "offset");
      if (period != null) {
        throw new IllegalStateException(
            "offset: calendar windows (" + period + ") start at the start of a day in their zone");
      }
      Checks.requireUnset(!offsetSet, "offset", Duration.ofMillis(offsetMillis));
      this.offsetMillis = TimeMath.toMillisSaturated(offset);
      this.offsetSet = true;
      return this;
    }

    /**
     * Builds the windows, with no source, no open window and no watermark. Both type parameters are
     * inferred from the assignment, {@code count()} included: {@code TumblingWindows<String, Long,
     * Long> w = TumblingWindows.builder(size, Aggregators.count()).build();}
     *
     * @param <K> the key type
     * @param <W> the value type: the builder's, or a subtype (a {@code count()} counts any values)
     * @return new windows
     * @throws IllegalArgumentException with early results or a grace period, if the aggregator is
     *     not a built-in {@code long} one and does not implement {@link Aggregator#merge} (a row
     *     keeps a copy of the accumulator, made by merging it into a new one)
     */
    public <K, W extends V> TumblingWindows<K, W, R> build() {
      checkPerSourceLateness("tumbling windows", true, true);
      if (paned() && !(aggregator instanceof LongFold)) {
        requireMerging("early results and a grace period");
      }
      return new TumblingWindows<K, W, R>(this);
    }
  }

  @Override
  void replayRows(boolean on) {
    if (panes != null) {
      panes.replaying(on);
    }
  }
}
