package io.github.lowwater.window;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTimer;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
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
 *   <li>The window of event time {@code t} starts at {@code floorDiv(t, size) * size} and ends
 *       (exclusive) {@code size} later; both saturate at the {@code long} bounds.
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
public final class TumblingWindows<K, V, R> {

  /** The source of {@link #add(long, Object, Object)}: one implicit, always-known source. */
  private static final Object IMPLICIT_SOURCE =
      new Object() {
        @Override
        public String toString() {
          return "TumblingWindows.IMPLICIT_SOURCE";
        }
      };

  private static final VarHandle ACCEPTED;
  private static final VarHandle LATE;
  private static final VarHandle OPEN_ENTRIES;
  private static final VarHandle FINALIZED_WINDOWS;
  private static final VarHandle OPEN_WINDOWS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      ACCEPTED = lookup.findVarHandle(TumblingWindows.class, "accepted", long.class);
      LATE = lookup.findVarHandle(TumblingWindows.class, "late", long.class);
      OPEN_ENTRIES = lookup.findVarHandle(TumblingWindows.class, "openEntries", long.class);
      FINALIZED_WINDOWS =
          lookup.findVarHandle(TumblingWindows.class, "finalizedWindows", long.class);
      OPEN_WINDOWS = lookup.findVarHandle(TumblingWindows.class, "openWindows", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long sizeMillis;

  /** The window of an event time. */
  private final TumblingAssigner assigner;

  private final Aggregator<? super V, Object, R> aggregator;
  private final LateEventHandler<? super V> lateEventHandler;

  /** The watermark, and the one future-timestamp guard. */
  private final WatermarkTracker tracker;

  private final FutureEventPolicy futureEventPolicy;

  /** Late and future counts per source, kept whether or not a late handler is set. */
  private final SourceCounts sourceCounts = new SourceCounts();

  /** The built-in long aggregator's primitive form, or null: then accumulators are objects. */
  private final LongFold longFold;

  /** Every key of an open or finalized window, by dense id. */
  private final KeyDictionary keys = new KeyDictionary(this::markLiveIds);

  /** Open windows by start. */
  private final LongObjectMap<WindowEntries> openByStart = new LongObjectMap<>();

  /** Open windows by end, earliest first: the next to finalize is at the head. */
  private final PriorityQueue<WindowEntries> openByEnd =
      new PriorityQueue<>((a, b) -> Long.compare(a.end, b.end));

  /** Finalized windows not emitted yet, in ascending end order. */
  private final ArrayDeque<WindowEntries> finalized = new ArrayDeque<>();

  /**
   * Emitted windows kept for reuse: at most {@link #spareLimit}, so that the windows opened after a
   * burst of finalized ones reuse them instead of allocating. A window is allocated only when the
   * pool is empty, so the windows held (open, waiting and spare) never outnumber the most that were
   * ever open or waiting at once.
   */
  private final ArrayDeque<WindowEntries> spare = new ArrayDeque<>();

  /** Whether a visitor or an aggregator's {@code result} is running: see requireNotEmitting. */
  private boolean emitting;

  private static final int SPARE_WINDOWS = 4;

  /**
   * The size of the pool: {@link #SPARE_WINDOWS}, or the windows not yet emitted when the last
   * drain began if there were more.
   */
  private int spareLimit = SPARE_WINDOWS;

  /** Windows opened since the last drain began: none means the spare pool may shrink. */
  private int windowsOpenedSinceDrain;

  /** Scratch space of the drain: the key id of each entry position of a window. */
  private int[] idsByPosition = new int[16];

  /** The key count of the last finalized window: the next window is presized to it. */
  private int expectedKeysPerWindow;

  /** The window of the previous accepted event: consecutive events mostly share one. */
  private WindowEntries lastWindow;

  // Counters: written by the owner with release semantics, read anywhere with acquire semantics.
  private long accepted;
  private long late;
  private long openWindows;
  private long openEntries;
  private long finalizedWindows;

  @SuppressWarnings("unchecked") // the accumulator type is captured once and stays consistent
  private TumblingWindows(Builder<? super V, R> builder) {
    this.sizeMillis = builder.sizeMillis;
    this.assigner = new TumblingAssigner(sizeMillis);
    this.aggregator = (Aggregator<? super V, Object, R>) builder.aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    this.lateEventHandler = (LateEventHandler<? super V>) builder.lateEventHandler;
    this.tracker = builder.tracker.build();
    this.futureEventPolicy =
        builder.futureEventPolicy == null ? FutureEventPolicy.ACCEPT : builder.futureEventPolicy;
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
   * Adds an event of {@code source}: into its window if the window is still open, otherwise to the
   * late path. Either way the event is then observed by the watermark, and windows the watermark
   * has passed are finalized for {@link #pollFinalized()}.
   *
   * @param source the event's source, for example a Kafka {@code TopicPartition}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param key the key; compared with {@code equals}
   * @param value the value
   * @return {@code true} if the event went into its window, {@code false} if it was late
   * @throws NullPointerException if {@code source}, {@code key} or {@code value} is null; nothing
   *     changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public boolean add(Object source, long eventTimeMillis, K key, V value) {
    Objects.requireNonNull(source, "source");
    if (source instanceof WatermarkTracker.Source) {
      return add((WatermarkTracker.Source) source, eventTimeMillis, key, value);
    }
    return add(source, null, eventTimeMillis, key, value);
  }

  /**
   * Adds an event of the source behind a handle from {@link #source(Object)}: the same as {@link
   * #add(Object, long, Object, Object)} without hashing the source key, the cheapest way to feed
   * the windows. The late handler and the per-source counts see the handle's key.
   *
   * @param source a handle from these windows' {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param key the key; compared with {@code equals}
   * @param value the value
   * @return {@code true} if the event went into its window, {@code false} if it was late
   * @throws NullPointerException if {@code source}, {@code key} or {@code value} is null; nothing
   *     changes
   * @throws IllegalArgumentException if {@code source} is a handle of other windows; nothing
   *     changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public boolean add(WatermarkTracker.Source source, long eventTimeMillis, K key, V value) {
    Objects.requireNonNull(source, "source");
    if (!source.belongsTo(tracker)) {
      throw new IllegalArgumentException("source handle belongs to other windows: " + source.key());
    }
    return add(source.key(), source, eventTimeMillis, key, value);
  }

  /**
   * Returns the handle of a source, registering it if it is unknown; see {@link
   * WatermarkTracker#source(Object)}. Keep it to call {@link #add(WatermarkTracker.Source, long,
   * Object, Object)}.
   *
   * @param source the source key
   * @return the source's handle
   * @throws NullPointerException if {@code source} is null
   */
  public WatermarkTracker.Source source(Object source) {
    return tracker.source(source);
  }

  /** The shared body of both {@code add}s: {@code handle} is null when only the key is known. */
  private boolean add(
      Object source, WatermarkTracker.Source handle, long eventTimeMillis, K key, V value) {
    requireNotEmitting("add");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    WindowEntries w = lastWindow;
    long start;
    long end;
    if (w != null && eventTimeMillis >= w.start && eventTimeMillis < w.end) {
      start = w.start; // the common case: the previous event's window, no division
      end = w.end;
    } else {
      start = assigner.startOf(eventTimeMillis);
      end = assigner.endOf(eventTimeMillis);
      w = null;
    }
    long watermark = tracker.watermark();
    long futureLimit = tracker.futureLimitMillis(); // the tracker's guard, read once per event
    if (eventTimeMillis > futureLimit) {
      return future(
          source, handle, eventTimeMillis, start, end, watermark, key, value, futureLimit);
    }
    if (end <= watermark) {
      return late(source, handle, eventTimeMillis, end, watermark, key, value, futureLimit);
    }
    accumulate(w, start, end, key, value);
    ACCEPTED.setRelease(this, accepted + 1);
    try {
      // A timer may throw: the event is in by now.
      observe(source, handle, eventTimeMillis, futureLimit);
    } finally {
      finalizeReady();
    }
    return true;
  }

  /** Observes through the handle when there is one: no hash lookup of the source. */
  private void observe(
      Object source, WatermarkTracker.Source handle, long eventTimeMillis, long futureLimit) {
    if (handle != null) {
      tracker.observe(handle, eventTimeMillis, futureLimit);
    } else {
      tracker.observe(source, eventTimeMillis, futureLimit);
    }
  }

  /**
   * The late path: count, observe (against {@code futureLimit}: an event beyond it is only counted
   * by the tracker), finalize what the observation passed, then hand over. A timer that throws
   * during the observation does not skip the count, the finalization or the handler: its exception
   * is rethrown after them (with the handler's, if that throws too, added as suppressed).
   */
  private boolean late(
      Object source,
      WatermarkTracker.Source handle,
      long eventTimeMillis,
      long end,
      long watermark,
      K key,
      V value,
      long futureLimit) {
    LATE.setRelease(this, late + 1);
    sourceCounts.late(source);
    RuntimeException timerFailure = null;
    try {
      observe(source, handle, eventTimeMillis, futureLimit);
    } catch (RuntimeException e) {
      timerFailure = e;
    }
    finalizeReady();
    if (lateEventHandler != null) {
      try {
        lateEventHandler.onLateEvent(source, eventTimeMillis, end, watermark, key, value);
      } catch (RuntimeException e) {
        if (timerFailure != null) {
          timerFailure.addSuppressed(e);
        } else {
          throw e;
        }
      }
    }
    if (timerFailure != null) {
      throw timerFailure;
    }
    return false;
  }

  /**
   * An event beyond the future-timestamp guard: neither activity nor a frontier move, whether or
   * not it is also behind the watermark; into its window under {@code ACCEPT} if that is still
   * open, else to the late path.
   */
  private boolean future(
      Object source,
      WatermarkTracker.Source handle,
      long eventTimeMillis,
      long start,
      long end,
      long watermark,
      K key,
      V value,
      long futureLimit) {
    boolean closed = end <= watermark; // a watermark ahead of the wall clock: its window is closed
    if (futureEventPolicy == FutureEventPolicy.ACCEPT && !closed) {
      accumulate(null, start, end, key, value);
      ACCEPTED.setRelease(this, accepted + 1);
    }
    sourceCounts.future(source);
    if (futureEventPolicy == FutureEventPolicy.LATE || closed) {
      return late(source, handle, eventTimeMillis, end, watermark, key, value, futureLimit);
    }
    try {
      // Counted by the tracker's guard: a re-evaluation, but no activity of the source.
      observe(source, handle, eventTimeMillis, futureLimit);
    } finally {
      finalizeReady();
    }
    return true;
  }

  /**
   * Returns the number of late events per source, since these windows were built, whether or not a
   * late handler is set (including future events routed to the late path). No side effect. Writer
   * thread only.
   *
   * @return a new map from source to its late count; sources without late events are absent
   */
  public Map<Object, Long> lateBySource() {
    return sourceCounts.lateBySource();
  }

  /**
   * Returns the number of events beyond the future-timestamp guard per source. No side effect.
   * Writer thread only.
   *
   * @return a new map from source to its future-event count; sources without any are absent
   */
  public Map<Object, Long> futureBySource() {
    return sourceCounts.futureBySource();
  }

  /**
   * Adds an event of the single implicit source, for a stream that is one ordered source. Mixing
   * this with {@link #add(Object, long, Object, Object)} makes the implicit source one source among
   * the others.
   *
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param key the key
   * @param value the value
   * @return {@code true} if the event went into its window, {@code false} if it was late
   * @throws NullPointerException if {@code key} or {@code value} is null; nothing changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public boolean add(long eventTimeMillis, K key, V value) {
    return add(IMPLICIT_SOURCE, eventTimeMillis, key, value);
  }

  /**
   * Returns the results of the windows finalized since the last call, each window exactly once, in
   * ascending end order, a result per key in the order of the key's first event. Returns an empty
   * list, without allocating, when there is none. The convenient form of {@link
   * #drainFinalized(ResultVisitor)}, which allocates nothing.
   *
   * <p>If the aggregator's {@code result} throws, the exception propagates and no window is taken
   * off the queue: the next call returns them all again (and calls {@code result} again).
   *
   * @return the new results; a fresh mutable list, or an immutable empty one
   */
  public List<WindowResult<K, R>> pollFinalized() {
    requireNotEmitting("pollFinalized");
    finalizeReady(); // a safety net: every call that moves the watermark finalizes already
    if (finalized.isEmpty()) {
      return List.of();
    }
    int count = 0;
    for (WindowEntries w : finalized) {
      count += w.size();
    }
    List<WindowResult<K, R>> results = new ArrayList<>(count);
    for (WindowEntries w : finalized) { // taken off the queue only once every result is computed
      visit(w, (start, end, key, value) -> results.add(new WindowResult<>(start, end, key, value)));
    }
    sizeSparePool();
    while (!finalized.isEmpty()) {
      emitted(finalized.poll());
    }
    return results;
  }

  /**
   * Hands the results of the windows finalized since the last call to {@code visitor}, each window
   * exactly once, in ascending end order, a result per key in the order of the key's first event:
   * the same results as {@link #pollFinalized()}, without allocating. With a built-in {@code long}
   * aggregator of {@link Aggregators}, each result goes to {@link ResultVisitor#visitLong}, as a
   * primitive; otherwise to {@link ResultVisitor#visit}.
   *
   * <p>A window is taken off the queue once all its results have been visited. If the visitor or
   * the aggregator's {@code result} throws, the exception propagates, the windows visited before
   * stay emitted, and the window being visited stays at the head of the queue: the next call visits
   * it again from its first result. A visitor that writes to an idempotent sink (an upsert) can
   * simply call again.
   *
   * @param visitor receives each result; called on this thread, before this method returns
   * @return the number of results visited
   * @throws NullPointerException if {@code visitor} is null
   */
  public int drainFinalized(ResultVisitor<? super K, ? super R> visitor) {
    requireNotEmitting("drainFinalized");
    Objects.requireNonNull(visitor, "visitor");
    finalizeReady(); // a safety net: every call that moves the watermark finalizes already
    sizeSparePool();
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
  private void visit(WindowEntries w, ResultVisitor<? super K, ? super R> visitor) {
    int size = w.size();
    if (idsByPosition.length < size) {
      idsByPosition = new int[Math.max(size, idsByPosition.length * 2)];
    }
    int[] ids = idsByPosition;
    w.idsByPosition(ids);
    emitting = true;
    try {
      for (int position = 0; position < size; position++) {
        @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
        K key = (K) keys.key(ids[position]);
        if (w.primitive()) {
          visitor.visitLong(w.start, w.end, key, w.longAt(position, ids[position]));
        } else {
          visitor.visit(w.start, w.end, key, aggregator.result(w.objectAt(position)));
        }
      }
    } finally {
      emitting = false;
    }
  }

  /**
   * Refuses a call made from a result visitor or an aggregator's {@code result} while these windows
   * hand out results: it would change the windows being emitted. Nothing has changed when it
   * throws; the drain then treats the exception as the visitor's own (the window being visited is
   * handed out again, from its first result, at the next drain).
   */
  private void requireNotEmitting(String call) {
    if (emitting) {
      throw new IllegalStateException(
          call
              + " called from a result visitor or an aggregator's result() while the windows"
              + " emit: return from the visitor, then call it");
    }
  }

  /** A window whose results were all handed out: its keys may go, its storage is kept for reuse. */
  private void emitted(WindowEntries w) {
    keys.emitted();
    w.dropAccumulators();
    keepSpare(w);
  }

  /** Returns the number of keys the dictionary holds, evictable ones included (for tests). */
  int dictionarySize() {
    return keys.size();
  }

  /**
   * At the start of a drain: room for every window about to be emitted, if there are many. If no
   * window opened since the previous drain (the stream went quiet after a burst), the pool also
   * gives back the spare windows beyond that; while windows keep opening, it keeps them for the
   * windows that open next, and shrinks only as they take them.
   */
  private void sizeSparePool() {
    spareLimit = (int) Math.max(SPARE_WINDOWS, openWindows + finalized.size());
    if (windowsOpenedSinceDrain == 0) {
      while (spare.size() > spareLimit) {
        spare.pop(); // nothing reuses them: their memory goes back
      }
    }
    windowsOpenedSinceDrain = 0;
  }

  /** Returns the number of emptied windows kept for reuse (for tests). */
  int spareWindows() {
    return spare.size();
  }

  /** Keeps an emptied window for reuse if the pool has room (see {@link #spare}). */
  private void keepSpare(WindowEntries w) {
    if (spare.size() < spareLimit) {
      spare.push(w);
    }
  }

  /**
   * Declares an expected source; see {@link WatermarkTracker#register(Object)}.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void register(Object source) {
    requireNotEmitting("register");
    tracker.register(source);
  }

  /**
   * Records activity of a source without an event and re-evaluates; see {@link
   * WatermarkTracker#heartbeat(Object)}.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void heartbeat(Object source) {
    requireNotEmitting("heartbeat");
    try {
      tracker.heartbeat(source);
    } finally {
      finalizeReady();
    }
  }

  /**
   * Returns the frontier of a source; see {@link WatermarkTracker#frontier(Object)}. Writer thread
   * only.
   *
   * @param source the source
   * @return the frontier, or {@link WatermarkTracker#UNSEEN} if unknown or unseen
   * @throws NullPointerException if {@code source} is null
   */
  public long frontier(Object source) {
    return tracker.frontier(source);
  }

  /**
   * Returns whether a source is known and active; see {@link WatermarkTracker#isActive(Object)}.
   * Writer thread only.
   *
   * @param source the source
   * @return {@code true} if the source is known and active
   * @throws NullPointerException if {@code source} is null
   */
  public boolean isActive(Object source) {
    return tracker.isActive(source);
  }

  /**
   * A punctuation: the source asserts its own watermark; see {@link
   * WatermarkTracker#punctuate(Object, long)}.
   *
   * @param source the source
   * @param watermarkMillis the source's own watermark in epoch milliseconds
   * @throws NullPointerException if {@code source} is null
   */
  public void punctuate(Object source, long watermarkMillis) {
    requireNotEmitting("punctuate");
    try {
      tracker.punctuate(source, watermarkMillis);
    } finally {
      finalizeReady();
    }
  }

  /**
   * Lookahead on a fetched batch of one source; see {@link WatermarkTracker#lookahead(Object, long,
   * long)}. Call it before adding the batch's events.
   *
   * @param source the source
   * @param minEventTimeMillis the smallest event time in the batch
   * @param maxEventTimeMillis the largest event time in the batch
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code minEventTimeMillis > maxEventTimeMillis}; nothing
   *     changes
   */
  public void lookahead(Object source, long minEventTimeMillis, long maxEventTimeMillis) {
    requireNotEmitting("lookahead");
    try {
      tracker.lookahead(source, minEventTimeMillis, maxEventTimeMillis);
    } finally {
      finalizeReady();
    }
  }

  /**
   * Registers an event-time timer; see {@link WatermarkTracker#registerTimer(long,
   * WatermarkTimer)}. A timer fires inside the call that moves the watermark, before that call
   * finalizes the windows the move closes: poll them after the call returns.
   *
   * @param timeMillis the event time to wait for, in epoch milliseconds
   * @param timer the callback
   * @throws NullPointerException if {@code timer} is null
   */
  public void registerTimer(long timeMillis, WatermarkTimer timer) {
    requireNotEmitting("registerTimer");
    tracker.registerTimer(timeMillis, timer);
  }

  /**
   * Returns how far the watermark trails the wall clock; see {@link
   * WatermarkTracker#watermarkLagMillis()}. Any thread.
   *
   * @return the watermark lag in milliseconds, {@link Long#MAX_VALUE} before the first watermark
   */
  public long watermarkLagMillis() {
    return tracker.watermarkLagMillis();
  }

  /**
   * Forgets a source and re-evaluates; see {@link WatermarkTracker#remove(Object)}.
   *
   * @param source the source
   * @return {@code true} if the source was known
   * @throws NullPointerException if {@code source} is null
   */
  public boolean remove(Object source) {
    requireNotEmitting("remove");
    try {
      return tracker.remove(source);
    } finally {
      finalizeReady();
    }
  }

  /** Re-evaluates idleness and the watermark now; see {@link WatermarkTracker#refresh()}. */
  public void refresh() {
    requireNotEmitting("refresh");
    try {
      tracker.refresh();
    } finally {
      finalizeReady();
    }
  }

  /**
   * The all-quiet hook; see {@link WatermarkTracker#advanceTo(long)}. Closes every window whose
   * {@code end + allowedLateness <= wallMillis}.
   *
   * @param wallMillis the wall-clock time in epoch milliseconds
   */
  public void advanceTo(long wallMillis) {
    requireNotEmitting("advanceTo");
    try {
      tracker.advanceTo(wallMillis);
    } finally {
      finalizeReady();
    }
  }

  /**
   * The end of the input; see {@link WatermarkTracker#finish()}. Every open window is finalized,
   * however large the allowed lateness and wherever its end, and every later event is late.
   */
  public void finish() {
    requireNotEmitting("finish");
    try {
      tracker.finish();
    } finally {
      finalizeReady();
    }
  }

  /**
   * Observes an event time of {@code source} without adding an event: the frontier, activity and
   * re-evaluation of {@link #add(Object, long, Object, Object)}, and nothing else (no window, no
   * count, no late path). For a record that is known to be in a window already written, such as a
   * redelivered one, so that the watermark still moves exactly as it did the first time.
   *
   * @param source the source, or a handle from {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} is a handle of other windows
   */
  public void observe(Object source, long eventTimeMillis) {
    requireNotEmitting("observe");
    Objects.requireNonNull(source, "source");
    Object key = keyOf(source);
    try {
      long futureLimit = tracker.futureLimitMillis();
      boolean observed =
          source instanceof WatermarkTracker.Source // keyOf checked it is these windows'
              ? tracker.observe((WatermarkTracker.Source) source, eventTimeMillis, futureLimit)
              : tracker.observe(source, eventTimeMillis, futureLimit);
      if (!observed) {
        sourceCounts.future(key); // beyond the guard: counted, not observed
      }
    } finally {
      finalizeReady();
    }
  }

  /** The key behind a source argument; a handle must be one of these windows'. */
  private Object keyOf(Object source) {
    if (source instanceof WatermarkTracker.Source) {
      WatermarkTracker.Source handle = (WatermarkTracker.Source) source;
      if (!handle.belongsTo(tracker)) {
        throw new IllegalArgumentException(
            "source handle belongs to other windows: " + handle.key());
      }
      return handle.key();
    }
    return source;
  }

  /**
   * Counts an event of {@code source} as late, whatever the watermark, and observes it as {@link
   * #observe(Object, long)} does: for an event the caller knows belongs to a window already written
   * (by a previous owner of a Kafka partition, say). Counted in {@link WindowStats#late()} and
   * {@link #lateBySource()}; the late handler is not called (there is no key or value).
   *
   * @param source the source, or a handle from {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds
   * @throws NullPointerException if {@code source} is null; nothing changes
   * @throws IllegalArgumentException if {@code source} is a handle of other windows; nothing
   *     changes
   */
  public void observeLate(Object source, long eventTimeMillis) {
    requireNotEmitting("observeLate");
    Objects.requireNonNull(source, "source");
    Object key = keyOf(source);
    LATE.setRelease(this, late + 1);
    sourceCounts.late(key);
    observe(source, eventTimeMillis);
  }

  /**
   * Returns the number of events added so far, in their window or to the late path ({@link
   * WindowStats#accepted()} plus {@link WindowStats#late()}), without allocating. Any thread. A
   * caller can tell from it whether an {@code add} that threw had taken its event: an exception
   * from the aggregator leaves it unchanged, one from a timer comes after the event was counted.
   *
   * @return the number of events added
   */
  public long events() {
    return (long) ACCEPTED.getAcquire(this) + (long) LATE.getAcquire(this);
  }

  /**
   * Seeds the watermark at start-up from the end of the newest window the sink has written, clamped
   * to {@code clock.wallMillis() - allowedLateness}; see {@link
   * WatermarkTracker#seedWatermark(long)}. Redelivered events of windows ending at or before the
   * seed are then late, so a written window is never overwritten with a partial one.
   *
   * <p>An empty sink has nothing to protect: skip the call, or pass {@link
   * WatermarkTracker#NO_WATERMARK}, which changes nothing.
   *
   * @param newestWindowEndMillis the end of the newest written window, in epoch milliseconds
   * @return the watermark after seeding
   */
  public long seedWatermark(long newestWindowEndMillis) {
    requireNotEmitting("seedWatermark");
    try {
      return tracker.seedWatermark(newestWindowEndMillis);
    } finally {
      finalizeReady();
    }
  }

  /**
   * Returns the watermark; no side effect, any thread. See {@link WatermarkTracker#watermark()}.
   *
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public long watermark() {
    return tracker.watermark();
  }

  /**
   * Returns the number of active sources; no side effect, any thread.
   *
   * @return the number of active sources
   */
  public int activeSources() {
    return tracker.activeSources();
  }

  /**
   * Returns the end, exclusive, of the window that holds an event time: {@code floorDiv(t, size) *
   * size + size}, saturating at {@code Long.MAX_VALUE} (rule 9). An event is late iff this is
   * {@code <= watermark()}.
   *
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @return the window's end in epoch milliseconds
   */
  public long windowEnd(long eventTimeMillis) {
    WindowEntries w = lastWindow;
    if (w != null && eventTimeMillis >= w.start && eventTimeMillis < w.end) {
      return w.end; // the previous event's window, as add finds it: no division
    }
    return assigner.endOf(eventTimeMillis);
  }

  /**
   * Returns the allowed lateness in milliseconds.
   *
   * @return the allowed lateness, {@code >= 0}
   */
  public long allowedLatenessMillis() {
    return tracker.allowedLatenessMillis();
  }

  /**
   * Returns the window size in milliseconds.
   *
   * @return the window size, {@code >= 1}
   */
  public long sizeMillis() {
    return sizeMillis;
  }

  /**
   * Returns a snapshot of the counters; no side effect, any thread (see {@link WindowStats} for
   * what a snapshot taken on another thread guarantees).
   *
   * @return the counters
   */
  public WindowStats stats() {
    return new WindowStats(
        (long) ACCEPTED.getAcquire(this),
        (long) LATE.getAcquire(this),
        tracker.futureEvents(),
        (long) OPEN_WINDOWS.getAcquire(this),
        (long) OPEN_ENTRIES.getAcquire(this),
        (long) FINALIZED_WINDOWS.getAcquire(this),
        tracker.watermark());
  }

  @Override
  public String toString() {
    return "TumblingWindows{sizeMillis=" + sizeMillis + ", " + stats() + "}";
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Adds the value to its (window, key) accumulator; changes nothing if the aggregator throws.
   *
   * @param w the event's open window if already known, else null
   */
  private void accumulate(WindowEntries w, long start, long end, K key, V value) {
    if (w == null) {
      w = openByStart.get(start);
    }
    int id = keys.id(key); // a key whose hashCode or equals throws changes nothing
    boolean opened = w == null;
    if (opened) {
      WindowEntries reused = spare.poll();
      w =
          (reused != null ? reused : new WindowEntries(longFold != null))
              .reset(start, end, expectedKeysPerWindow, keys.idBound());
    }
    boolean newKey;
    try {
      newKey =
          longFold != null
              ? w.fold(id, value, longFold, keys.idBound())
              : w.fold(id, value, objectAggregator());
    } catch (RuntimeException e) {
      if (opened) {
        keepSpare(w);
      }
      throw e;
    }
    if (opened) {
      windowsOpenedSinceDrain++;
      openByStart.putNew(start, w);
      openByEnd.add(w);
      OPEN_WINDOWS.setRelease(this, openWindows + 1);
    }
    if (newKey) {
      OPEN_ENTRIES.setRelease(this, openEntries + 1);
    }
    lastWindow = w;
  }

  /**
   * The dictionary's sweep: every window not yet emitted, open or finalized, keeps its ids. Walks
   * the queues with {@code forEach} and a visitor made once, so that a sweep allocates nothing.
   */
  private void markLiveIds(long[] live) {
    sweepMarks = live;
    try {
      openByEnd.forEach(markIds);
      finalized.forEach(markIds);
    } finally {
      sweepMarks = null;
    }
  }

  /** The marks of the sweep in progress, for {@link #markIds}. */
  private long[] sweepMarks;

  private final Consumer<WindowEntries> markIds = w -> w.markIds(sweepMarks);

  @SuppressWarnings("unchecked") // values reach the aggregator only through add(..., V value)
  private Aggregator<Object, Object, ?> objectAggregator() {
    return (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
  }

  /** Moves every open window whose end the watermark has reached to the finalized queue. */
  private void finalizeReady() {
    long watermark = tracker.watermark();
    WindowEntries w;
    while ((w = openByEnd.peek()) != null && w.end <= watermark) {
      openByEnd.poll();
      openByStart.remove(w.start);
      if (lastWindow == w) {
        lastWindow = null;
      }
      finalized.add(w);
      OPEN_WINDOWS.setRelease(this, openWindows - 1);
      OPEN_ENTRIES.setRelease(this, openEntries - w.size());
      FINALIZED_WINDOWS.setRelease(this, finalizedWindows + 1);
      expectedKeysPerWindow = w.size();
    }
  }

  /**
   * Configures {@link TumblingWindows}. Every option is optional and may be set at most once:
   * setting one twice throws {@link IllegalStateException}. A rejected call leaves the builder
   * unchanged. Not thread-safe.
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> {
    private final long sizeMillis;
    private final Aggregator<? super V, ?, R> aggregator;
    private final WatermarkTracker.Builder tracker = WatermarkTracker.builder();
    private LateEventHandler<? super V> lateEventHandler;
    private FutureEventPolicy futureEventPolicy;

    private Builder(Duration size, Aggregator<? super V, ?, R> aggregator) {
      Objects.requireNonNull(size, "size");
      Objects.requireNonNull(aggregator, "aggregator");
      long millis = TimeMath.toMillisSaturated(size);
      if (millis < 1) {
        throw new IllegalArgumentException("size must be >= 1 ms: " + size);
      }
      this.sizeMillis = millis;
      this.aggregator = aggregator;
    }

    /**
     * Sets the allowed lateness; see {@link WatermarkTracker.Builder#allowedLateness(Duration)}.
     * Default 120 seconds.
     *
     * @param allowedLateness the allowed lateness, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if {@code allowedLateness} is negative
     * @throws IllegalStateException if the allowed lateness was already set
     */
    public Builder<V, R> allowedLateness(Duration allowedLateness) {
      tracker.allowedLateness(allowedLateness);
      return this;
    }

    /**
     * Sets the idle timeout; see {@link WatermarkTracker.Builder#idleTimeout(Duration)}. Default
     * 120 seconds.
     *
     * @param idleTimeout the idle timeout, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code idleTimeout} is null
     * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
     * @throws IllegalStateException if the idle timeout was already set
     */
    public Builder<V, R> idleTimeout(Duration idleTimeout) {
      tracker.idleTimeout(idleTimeout);
      return this;
    }

    /**
     * Sets the clock. Default {@link Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder<V, R> clock(Clock clock) {
      tracker.clock(clock);
      return this;
    }

    /**
     * Sets the watermark strategy; see {@link WatermarkTracker.Builder#strategy}. Default {@link
     * WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}.
     *
     * @param strategy the strategy
     * @return this builder
     * @throws NullPointerException if {@code strategy} is null
     * @throws IllegalStateException if the strategy was already set
     */
    public Builder<V, R> strategy(WatermarkStrategy strategy) {
      tracker.strategy(strategy);
      return this;
    }

    /**
     * Turns on the future-timestamp guard: an event more than {@code maxFutureSkew} ahead of the
     * clock's wall time does not move its source's frontier, is counted, and is handled by the
     * {@link #futureEventPolicy(FutureEventPolicy) policy}. Off by default; costs one wall-clock
     * read per event when on (use a {@link io.github.lowwater.CachedClock}).
     *
     * @param maxFutureSkew how far ahead of the wall clock an event may be, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code maxFutureSkew} is null
     * @throws IllegalArgumentException if {@code maxFutureSkew} is negative
     * @throws IllegalStateException if the guard was already set
     */
    public Builder<V, R> maxFutureSkew(Duration maxFutureSkew) {
      tracker.maxFutureSkew(maxFutureSkew); // one guard, the tracker's
      return this;
    }

    /**
     * Sets what happens to an event beyond the future-timestamp guard. Default {@link
     * FutureEventPolicy#ACCEPT}. Has no effect without {@link #maxFutureSkew(Duration)}.
     *
     * @param futureEventPolicy the policy
     * @return this builder
     * @throws NullPointerException if {@code futureEventPolicy} is null
     * @throws IllegalStateException if the policy was already set
     */
    public Builder<V, R> futureEventPolicy(FutureEventPolicy futureEventPolicy) {
      Objects.requireNonNull(futureEventPolicy, "futureEventPolicy");
      Checks.requireUnset(
          this.futureEventPolicy == null, "futureEventPolicy", this.futureEventPolicy);
      this.futureEventPolicy = futureEventPolicy;
      return this;
    }

    /**
     * Sets the late path. Without one, late events are only counted ({@link WindowStats#late()}).
     *
     * @param lateEventHandler receives every late event
     * @return this builder
     * @throws NullPointerException if {@code lateEventHandler} is null
     * @throws IllegalStateException if a late-event handler was already set
     */
    public Builder<V, R> lateEventHandler(LateEventHandler<? super V> lateEventHandler) {
      Objects.requireNonNull(lateEventHandler, "lateEventHandler");
      Checks.requireUnset(this.lateEventHandler == null, "lateEventHandler", this.lateEventHandler);
      this.lateEventHandler = lateEventHandler;
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
     */
    public <K, W extends V> TumblingWindows<K, W, R> build() {
      return new TumblingWindows<K, W, R>(this);
    }
  }
}
