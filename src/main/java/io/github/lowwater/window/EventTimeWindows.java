package io.github.lowwater.window;

import io.github.lowwater.WatermarkTimer;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.KeyLookAhead;
import io.github.lowwater.internal.TimeMath;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What every window kind shares: keyed event-time windows on top of a {@link WatermarkTracker},
 * where an event goes into the windows that hold its event time, a window is finalized once the
 * watermark reaches its end, and events that arrive behind the watermark are counted and handed to
 * a late path instead of being silently dropped. The kinds are {@link TumblingWindows}, {@link
 * HoppingWindows}, {@link SessionWindows} and {@link SlidingWindows}; each says which windows an
 * event belongs to and when it is late, and nothing else differs.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread</b> (the polling
 * thread). {@link #watermark()}, {@link #activeSources()}, {@link #events()} and {@link #stats()}
 * may be read from any thread. {@code add} reads the clock once and allocates nothing once its
 * (window, key) is open and its source known (with the built-in {@link Aggregators}). No threads
 * are started.
 *
 * <p>A mutating call made from a result visitor or an aggregator's {@code result} while the windows
 * emit throws {@link IllegalStateException} and changes nothing.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <R> the result type
 */
public abstract class EventTimeWindows<K, V, R> {

  static {
    KeyLookAhead.install(
        new KeyLookAhead() {
          @Override
          public void lookAhead(
              Object windows, Object[] keys, long[] eventTimesMillis, int from, int to) {
            ((EventTimeWindows<?, ?, ?>) windows).lookAhead(keys, eventTimesMillis, from, to);
          }

          @Override
          public void expect(Object windows, int index, Object key) {
            ((EventTimeWindows<?, ?, ?>) windows).expectKey(index, key);
          }

          @Override
          public void end(Object windows) {
            ((EventTimeWindows<?, ?, ?>) windows).endLookAhead();
          }
        });
  }

  /**
   * The source of {@link #add(long, Object, Object)}: one implicit, always-known source, named
   * after the kind ({@code TumblingWindows.IMPLICIT_SOURCE}) for the late handler and the counts.
   */
  private final Object implicitSource;

  /** The watermark, and the one future-timestamp guard. */
  final WatermarkTracker tracker;

  /** Every key of a window not yet emitted, by dense id. */
  final KeyDictionary keys = new KeyDictionary(this::markLiveIds);

  final WindowCounters counters = new WindowCounters();

  final Aggregator<? super V, Object, R> aggregator;

  /** The built-in long aggregator's primitive form, or null: then accumulators are objects. */
  final LongFold longFold;

  private final LatePath<? super V> latePath;
  private final FutureEventPolicy futureEventPolicy;

  /** Whether a drain is running (a visitor or an aggregator's result): see requireNotEmitting. */
  private boolean emitting;

  /** Windows ending at or before this were written elsewhere: see {@link #markWritten(long)}. */
  long writtenThroughMillis = WatermarkTracker.NO_WATERMARK;

  /** The period of early results in milliseconds, 0 for none (rule 50). */
  final long earlyMillis;

  /** The grace period in milliseconds (rule 52): a window takes events until {@code end + G}. */
  final long graceMillis;

  /** Whether each event is judged against its own source's watermark (rule 72). */
  private final boolean perSourceLateness;

  /**
   * The dictionary size from which a batch looks its keys up ahead: below it the dictionary's
   * arrays stay in the CPU caches and a second pass over the keys costs more than it saves
   * (docs/benchmarks.md, issue 20). Package-private and mutable for the tests, which set it to 0 to
   * exercise the lookahead at any size.
   */
  int lookAheadMinKeys = LOOK_AHEAD_MIN_KEYS;

  static final int LOOK_AHEAD_MIN_KEYS = 16_384;

  /**
   * The newest event time these windows have seen (rule 50): of every event added, observed or
   * counted late within the future guard; never decreases.
   */
  private long newestMillis = WatermarkTracker.NO_WATERMARK;

  @SuppressWarnings("unchecked") // the accumulator type is captured once and stays consistent
  EventTimeWindows(WindowOptions<? super V, R, ?> options) {
    String implicitName = getClass().getSimpleName() + ".IMPLICIT_SOURCE";
    this.implicitSource =
        new Object() {
          @Override
          public String toString() {
            return implicitName;
          }
        };
    this.aggregator = (Aggregator<? super V, Object, R>) options.aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    // Windows close when the watermark rises, in the call that raised it, before its timers fire.
    this.tracker = options.trackerBuilder().build(watermark -> closeReady(watermark));
    this.latePath = new LatePath<>((LateEventHandler<? super V>) options.lateEventHandler);
    this.futureEventPolicy = options.futureEventPolicyOrDefault();
    this.earlyMillis = options.earlyMillis();
    this.graceMillis = options.graceMillis();
    this.perSourceLateness = options.perSourceLatenessSet();
    if (options.paned()) {
      counters.retireApart(); // a window retires after its grace period, not when finalized
    }
  }

  // The kind: which windows an event belongs to, and what closing them means.

  /**
   * Returns the end that decides whether an event is late: late iff it is {@code <= watermark} and
   * {@link #joinsOpen} says no. Also the {@code windowEnd} the late handler receives.
   */
  abstract long lateEnd(long eventTimeMillis);

  /**
   * Whether an event whose {@link #lateEnd} the watermark has passed still joins an open window (a
   * session it overlaps); changes nothing. The fixed-shape kinds say no.
   */
  boolean joinsOpen(long eventTimeMillis, K key) {
    return false;
  }

  /**
   * Adds an admitted event to its windows; changes nothing if the key or the aggregator throws.
   *
   * @param watermark the watermark the event was admitted against
   */
  abstract void accumulate(long eventTimeMillis, K key, V value, long watermark);

  /** Finalizes every window that {@code watermark} closes, for the next drain. */
  abstract void closeReady(long watermark);

  /** Returns whether no finalized result waits. */
  abstract boolean noneReady();

  /** Returns the number of finalized results waiting. */
  abstract int readyResults();

  /** Visits every finalized result and keeps them all queued. */
  abstract void visitReady(ResultVisitor<? super K, ? super R> visitor);

  /** Takes every finalized result off the queue, as emitted. */
  abstract void takeReady();

  /**
   * Visits the finalized results, each window taken off the queue once all its results were
   * visited.
   *
   * @return the number of results visited
   */
  abstract int drainReady(ResultVisitor<? super K, ? super R> visitor);

  /** The dictionary's sweep: sets the bit of every key id that a window not yet emitted holds. */
  abstract void markLiveIds(long[] live);

  /**
   * With early results: the newest event time rose from {@code previous} to {@code newest}, after
   * the event was folded in and before the watermark observes it; the kind fires the windows that
   * have an early mark in {@code (previous, newest]} (rule 50). Never called without early results.
   */
  void newestRose(long previous, long newest) {}

  // ---------------------------------------------------------------------------------------------

  /**
   * Adds an event of {@code source}: into its windows if they are still open, otherwise to the late
   * path (each kind states when an event is late). Either way the event is then observed by the
   * watermark, and windows the watermark has passed are finalized for {@link #pollFinalized()}.
   *
   * @param source the event's source, for example a Kafka {@code TopicPartition}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param key the key; compared with {@code equals}
   * @param value the value
   * @return {@code true} if the event went into a window, {@code false} if it was late
   * @throws NullPointerException if {@code source}, {@code key} or {@code value} is null; nothing
   *     changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public final boolean add(Object source, long eventTimeMillis, K key, V value) {
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
   * @return {@code true} if the event went into a window, {@code false} if it was late
   * @throws NullPointerException if {@code source}, {@code key} or {@code value} is null; nothing
   *     changes
   * @throws IllegalArgumentException if {@code source} is a handle of other windows; nothing
   *     changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public final boolean add(WatermarkTracker.Source source, long eventTimeMillis, K key, V value) {
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
  public final WatermarkTracker.Source source(Object source) {
    return tracker.source(source);
  }

  /**
   * Returns the number of late events per source, since these windows were built, whether or not a
   * late handler is set (including future events routed to the late path). No side effect. Writer
   * thread only.
   *
   * @return a new map from source to its late count; sources without late events are absent
   */
  public final Map<Object, Long> lateBySource() {
    return latePath.lateBySource();
  }

  /**
   * Returns the number of events beyond the future-timestamp guard per source. No side effect.
   * Writer thread only.
   *
   * @return a new map from source to its future-event count; sources without any are absent
   */
  public final Map<Object, Long> futureBySource() {
    return latePath.futureBySource();
  }

  /**
   * Adds an event of the single implicit source, for a stream that is one ordered source. Mixing
   * this with {@link #add(Object, long, Object, Object)} makes the implicit source one source among
   * the others.
   *
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param key the key
   * @param value the value
   * @return {@code true} if the event went into a window, {@code false} if it was late
   * @throws NullPointerException if {@code key} or {@code value} is null; nothing changes
   * @throws ArithmeticException if the aggregator overflows; nothing changes
   */
  public final boolean add(long eventTimeMillis, K key, V value) {
    return add(implicitSource, eventTimeMillis, key, value);
  }

  /**
   * Adds the events {@code [from, to)} of one source, in order: the same as calling {@link
   * #add(WatermarkTracker.Source, long, Object, Object) add(source, eventTimesMillis[i], keys[i],
   * values[i])} for each, with the same results, counts, late path and timers, only faster at many
   * keys. The batch looks up every key first, in one tight loop that adds none, so that the cache
   * misses of consecutive keys overlap instead of each waiting for the previous event's; then it
   * adds the events one by one, each against the watermark the events before it left (the watermark
   * may rise, and windows close, in the middle of a batch). Allocates nothing once the batch's size
   * and its keys have been seen.
   *
   * <p>An event is added whole or not at all, as by {@code add}. If the add of the event at {@code
   * i} throws (a null key or value, a key whose {@code hashCode} or {@code equals} throws, the
   * aggregator, the late handler, a timer), the events before {@code i} are added, none after it
   * is, and the exception propagates; {@link #events()} tells whether event {@code i} itself was
   * taken (a timer may throw after it was): the events taken are {@code events()} after, less
   * before. The caller may then go on with the first event not taken. A key whose {@code hashCode}
   * or {@code equals} throws in the lookup ahead is asked again by the add of its event, which
   * decides as {@code add} would. A call from a callback of a batch of the same windows (a timer,
   * the late handler) is served one event at a time.
   *
   * @param source a handle from these windows' {@link #source(Object)}
   * @param eventTimesMillis the event times in epoch milliseconds
   * @param keys the keys, compared with {@code equals}; not kept beyond the windows' own use
   * @param values the values
   * @param from the index of the first event, inclusive
   * @param to the index of the last event, exclusive
   * @return the number of events that went into a window; the others were late
   * @throws NullPointerException if {@code source} or an array is null (nothing changes), or an
   *     event's key or value is (the events before it are added)
   * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of every array; nothing
   *     changes
   * @throws IllegalArgumentException if {@code source} is a handle of other windows; nothing
   *     changes
   * @throws ArithmeticException if the aggregator overflows; the events before are added
   */
  public final int addAll(
      WatermarkTracker.Source source,
      long[] eventTimesMillis,
      K[] keys,
      V[] values,
      int from,
      int to) {
    requireNotEmitting("addAll");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(eventTimesMillis, "eventTimesMillis");
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    if (from < 0
        || from > to
        || to > eventTimesMillis.length
        || to > keys.length
        || to > values.length) {
      throw new IndexOutOfBoundsException(
          "from "
              + from
              + " and to "
              + to
              + " must satisfy 0 <= from <= to <= the length of every array (eventTimesMillis "
              + eventTimesMillis.length
              + ", keys "
              + keys.length
              + ", values "
              + values.length
              + ")");
    }
    if (!source.belongsTo(tracker)) {
      throw new IllegalArgumentException("source handle belongs to other windows: " + source.key());
    }
    Object sourceKey = source.key();
    lookAhead(keys, eventTimesMillis, from, to);
    try {
      int accepted = 0;
      for (int i = from; i < to; i++) {
        K key = keys[i];
        expectKey(i - from, key);
        if (add(sourceKey, source, eventTimesMillis[i], key, values[i])) {
          accepted++;
        }
      }
      return accepted;
    } finally {
      endLookAhead();
    }
  }

  /**
   * Looks up the keys of the events about to be added, {@code keys[from, to)} with their times
   * {@code eventTimesMillis[from, to)}, in one loop that adds none: the adds that follow, in the
   * same order, each named by {@link #expectKey}, find a key found here without a probe, until
   * {@link #endLookAhead()} or a sweep of the dictionary. A null key is skipped. A key whose {@code
   * hashCode} or {@code equals} throws ends the lookup there: the add of its event asks again and
   * decides, as it would one by one (a late event of a fixed-shape kind never asks). An
   * optimization only: every result is the same without it.
   */
  final void lookAhead(Object[] keys, long[] eventTimesMillis, int from, int to) {
    if (this.keys.size() < lookAheadMinKeys) {
      return; // a small dictionary stays in cache: its probes do not miss, and the pass would cost
    }
    int found;
    try {
      found = this.keys.resolveAhead(keys, from, to);
    } catch (RuntimeException | Error e) {
      // the keys before it are found; its event's add throws or not, as one by one
      found = this.keys.resolved();
    }
    if (found > 0) {
      touchAhead(eventTimesMillis[from], this.keys.aheadIds(), found);
    }
  }

  /**
   * Loads, ahead of a batch, what its events' folds will read in the window of its first event, so
   * that those misses overlap too; changes nothing. The kinds without such a window do nothing.
   *
   * @param ids the key ids of the batch's events, {@code [0, n)}, -1 for a key absent then
   */
  void touchAhead(long firstEventTimeMillis, int[] ids, int n) {}

  /** Names the event about to be added: {@code index} from the {@code from} of the lookahead. */
  final void expectKey(int index, Object key) {
    keys.expect(index, key);
  }

  /** Ends a lookahead: forgets its ids and the caller's keys. */
  final void endLookAhead() {
    keys.endAhead();
  }

  /** The shared body of every {@code add}: {@code handle} is null when only the key is known. */
  private boolean add(
      Object source, WatermarkTracker.Source handle, long eventTimeMillis, K key, V value) {
    requireNotEmitting("add");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    long lateEnd = lateEnd(eventTimeMillis);
    long watermark = judgedAgainst(handle != null ? handle : source);
    long futureLimit = tracker.futureLimitMillis(); // the tracker's guard, read once per event
    if (eventTimeMillis > futureLimit) {
      return future(source, handle, eventTimeMillis, lateEnd, watermark, key, value, futureLimit);
    }
    if (closed(eventTimeMillis, key, lateEnd, watermark)) {
      late(source, handle, eventTimeMillis, lateEnd, watermark, key, value, futureLimit);
      return false;
    }
    accumulate(eventTimeMillis, key, value, watermark);
    counters.accepted();
    raiseNewest(eventTimeMillis);
    // A timer may throw: the event is in by now.
    observe(source, handle, eventTimeMillis, futureLimit);
    return true;
  }

  /**
   * Returns whether {@link #add} would hand an event at this time, of this key, to the late path
   * now: the kind's rule against the watermark (an event whose windows have all retired, or for
   * sessions, whose gap ends by the watermark less the grace period and that joins no open session;
   * with panes, joining or not, rule 56), or the {@link FutureEventPolicy#LATE} policy for an event
   * beyond the future-timestamp guard. Changes nothing; {@code add} decides by the same rule. For a
   * caller that must act on a late event before the windows count it (the Kafka driver hands its
   * record to the late-record handler first); the answer holds until the watermark, the open
   * sessions or the clock move.
   *
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param key the key; compared with {@code equals}
   * @return {@code true} if {@code add} would count the event late
   * @throws NullPointerException if {@code key} is null
   */
  public final boolean isLate(long eventTimeMillis, K key) {
    return isLate(implicitSource, eventTimeMillis, key);
  }

  /**
   * Returns whether {@link #add(Object, long, Object, Object)} would hand an event of {@code
   * source} at this time, of this key, to the late path now: as {@link #isLate(long, Object)}, the
   * event judged against its own source's watermark with {@link
   * EventTimeOptions#perSourceLateness()} (rule 72). Changes nothing.
   *
   * @param source the event's source, or its handle from {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param key the key; compared with {@code equals}
   * @return {@code true} if {@code add} would count the event late
   * @throws NullPointerException if {@code source} or {@code key} is null
   */
  public final boolean isLate(Object source, long eventTimeMillis, K key) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(key, "key");
    if (closed(eventTimeMillis, key, lateEnd(eventTimeMillis), judgedAgainst(source))) {
      return true;
    }
    return futureEventPolicy == FutureEventPolicy.LATE
        && eventTimeMillis > tracker.futureLimitMillis();
  }

  /**
   * The kind's lateness rule: every window of the event is retired (finalized, and past its grace
   * period), and it joins none open.
   */
  private boolean closed(long eventTimeMillis, K key, long lateEnd, long watermark) {
    return TimeMath.saturatedAdd(lateEnd, graceMillis) <= watermark
        && !joinsOpen(eventTimeMillis, key);
  }

  /**
   * The watermark an event of {@code source} is judged against: the shared one, or with {@link
   * EventTimeOptions#perSourceLateness()} the source's own if that is higher (rule 72).
   */
  private long judgedAgainst(Object source) {
    long shared = tracker.watermark();
    return perSourceLateness ? Math.max(shared, tracker.sourceWatermark(source)) : shared;
  }

  /**
   * Returns the watermark an event of {@code source} is judged against now: the shared {@link
   * #watermark()}, or with {@link EventTimeOptions#perSourceLateness()} the source's own if that is
   * higher (rule 72). No side effect. Writer thread only.
   *
   * @param source the source, or its handle from {@link #source(Object)}
   * @return the watermark in epoch milliseconds
   * @throws NullPointerException if {@code source} is null
   */
  public final long watermarkFor(Object source) {
    Objects.requireNonNull(source, "source");
    return judgedAgainst(source);
  }

  /**
   * Returns whether each event is judged against its own source's watermark ({@link
   * EventTimeOptions#perSourceLateness()}, rule 72).
   *
   * @return {@code true} if set when built
   */
  public final boolean perSourceLateness() {
    return perSourceLateness;
  }

  /** Raises the newest event time seen, firing early results if it rose (rule 50). */
  private void raiseNewest(long eventTimeMillis) {
    if (eventTimeMillis > newestMillis) {
      long previous = newestMillis;
      newestMillis = eventTimeMillis;
      if (earlyMillis > 0) {
        newestRose(previous, eventTimeMillis);
      }
    }
  }

  /** Returns the newest event time these windows have seen (rule 50). Writer thread only. */
  final long newestMillis() {
    return newestMillis;
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
  private void late(
      Object source,
      WatermarkTracker.Source handle,
      long eventTimeMillis,
      long end,
      long watermark,
      K key,
      V value,
      long futureLimit) {
    latePath.countLate(source);
    counters.late();
    if (eventTimeMillis <= futureLimit) {
      raiseNewest(eventTimeMillis);
    }
    RuntimeException timerFailure = null;
    try {
      observe(source, handle, eventTimeMillis, futureLimit);
    } catch (RuntimeException e) {
      timerFailure = e;
    }
    latePath.handOver(source, eventTimeMillis, end, watermark, key, value, timerFailure);
  }

  /**
   * An event beyond the future-timestamp guard: neither activity nor a frontier move, whether or
   * not it is also behind the watermark; into its windows under {@code ACCEPT} if they are still
   * open, else to the late path.
   */
  private boolean future(
      Object source,
      WatermarkTracker.Source handle,
      long eventTimeMillis,
      long lateEnd,
      long watermark,
      K key,
      V value,
      long futureLimit) {
    // A watermark ahead of the wall clock: its windows may be closed.
    boolean closed = closed(eventTimeMillis, key, lateEnd, watermark);
    if (futureEventPolicy == FutureEventPolicy.ACCEPT && !closed) {
      accumulate(eventTimeMillis, key, value, watermark);
      counters.accepted();
    }
    latePath.countFuture(source);
    if (futureEventPolicy == FutureEventPolicy.LATE || closed) {
      late(source, handle, eventTimeMillis, lateEnd, watermark, key, value, futureLimit);
      return false;
    }
    // Counted by the tracker's guard: a re-evaluation, but no activity of the source.
    observe(source, handle, eventTimeMillis, futureLimit);
    return true;
  }

  /**
   * Returns the results of the windows finalized since the last call, each window exactly once, in
   * the order they were finalized (ascending end), a result per key in the order the kind states.
   * Returns an empty list, without allocating, when there is none. The convenient form of {@link
   * #drainFinalized(ResultVisitor)}, which allocates nothing.
   *
   * <p>If the aggregator's {@code result} throws, the exception propagates and no window is taken
   * off the queue: the next call returns them all again (and calls {@code result} again).
   *
   * @return the new results; a fresh mutable list, or an immutable empty one
   */
  public final List<WindowResult<K, R>> pollFinalized() {
    requireNotEmitting("pollFinalized");
    if (noneReady()) {
      return List.of();
    }
    List<WindowResult<K, R>> results = new ArrayList<>(readyResults());
    emitting = true;
    try { // taken off the queue only once every result is computed
      visitReady(new RowCollector<>(results));
    } finally {
      emitting = false;
    }
    takeReady();
    return results;
  }

  /**
   * Hands the results of the windows finalized since the last call to {@code visitor}: the same
   * results as {@link #pollFinalized()}, in the same order, without allocating. With a built-in
   * {@code long} aggregator of {@link Aggregators}, each result goes to {@link
   * ResultVisitor#visitLong}, as a primitive; otherwise to {@link ResultVisitor#visit}.
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
  public final int drainFinalized(ResultVisitor<? super K, ? super R> visitor) {
    requireNotEmitting("drainFinalized");
    Objects.requireNonNull(visitor, "visitor");
    emitting = true;
    try {
      return drainReady(visitor);
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
  final void requireNotEmitting(String call) {
    if (emitting) {
      throw new IllegalStateException(
          call
              + " called from a result visitor or an aggregator's result() while the windows"
              + " emit: return from the visitor, then call it");
    }
  }

  /** Returns the number of keys the dictionary holds, evictable ones included (for tests). */
  final int dictionarySize() {
    return keys.size();
  }

  /**
   * Declares an expected source; see {@link WatermarkTracker#register(Object)}.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public final void register(Object source) {
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
  public final void heartbeat(Object source) {
    requireNotEmitting("heartbeat");
    tracker.heartbeat(source);
  }

  /**
   * Returns the frontier of a source; see {@link WatermarkTracker#frontier(Object)}. Writer thread
   * only.
   *
   * @param source the source
   * @return the frontier, or {@link WatermarkTracker#UNSEEN} if unknown or unseen
   * @throws NullPointerException if {@code source} is null
   */
  public final long frontier(Object source) {
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
  public final boolean isActive(Object source) {
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
  public final void punctuate(Object source, long watermarkMillis) {
    requireNotEmitting("punctuate");
    tracker.punctuate(source, watermarkMillis);
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
  public final void lookahead(Object source, long minEventTimeMillis, long maxEventTimeMillis) {
    requireNotEmitting("lookahead");
    tracker.lookahead(source, minEventTimeMillis, maxEventTimeMillis);
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
  public final void registerTimer(long timeMillis, WatermarkTimer timer) {
    requireNotEmitting("registerTimer");
    tracker.registerTimer(timeMillis, timer);
  }

  /**
   * Returns how far the watermark trails the wall clock; see {@link
   * WatermarkTracker#watermarkLagMillis()}. Any thread.
   *
   * @return the watermark lag in milliseconds, {@link Long#MAX_VALUE} before the first watermark
   */
  public final long watermarkLagMillis() {
    return tracker.watermarkLagMillis();
  }

  /**
   * Forgets a source and re-evaluates; see {@link WatermarkTracker#remove(Object)}.
   *
   * @param source the source
   * @return {@code true} if the source was known
   * @throws NullPointerException if {@code source} is null
   */
  public final boolean remove(Object source) {
    requireNotEmitting("remove");
    return tracker.remove(source);
  }

  /** Re-evaluates idleness and the watermark now; see {@link WatermarkTracker#refresh()}. */
  public final void refresh() {
    requireNotEmitting("refresh");
    tracker.refresh();
  }

  /**
   * The all-quiet hook; see {@link WatermarkTracker#advanceTo(long)}. Closes every window whose
   * {@code end + allowedLateness <= wallMillis}.
   *
   * @param wallMillis the wall-clock time in epoch milliseconds
   */
  public final void advanceTo(long wallMillis) {
    requireNotEmitting("advanceTo");
    tracker.advanceTo(wallMillis);
  }

  /**
   * The end of the input; see {@link WatermarkTracker#finish()}. Every open window is finalized,
   * however large the allowed lateness and wherever its end, and every later event is late.
   */
  public final void finish() {
    requireNotEmitting("finish");
    tracker.finish();
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
  public final void observe(Object source, long eventTimeMillis) {
    requireNotEmitting("observe");
    Objects.requireNonNull(source, "source");
    Object key = keyOf(source);
    long futureLimit = tracker.futureLimitMillis();
    if (eventTimeMillis <= futureLimit) {
      raiseNewest(eventTimeMillis);
    }
    boolean observed =
        source instanceof WatermarkTracker.Source // keyOf checked it is these windows'
            ? tracker.observe((WatermarkTracker.Source) source, eventTimeMillis, futureLimit)
            : tracker.observe(source, eventTimeMillis, futureLimit);
    if (!observed) {
      latePath.countFuture(key); // beyond the guard: counted, not observed
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
  public final void observeLate(Object source, long eventTimeMillis) {
    requireNotEmitting("observeLate");
    Objects.requireNonNull(source, "source");
    Object key = keyOf(source);
    counters.late();
    latePath.countLate(key);
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
  public final long events() {
    return counters.events();
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
  public final long seedWatermark(long newestWindowEndMillis) {
    requireNotEmitting("seedWatermark");
    return tracker.seedWatermark(newestWindowEndMillis);
  }

  /**
   * Restores the newest event time a previous reader of these sources had seen (rule 50), as a
   * Kafka checkpoint carries it: an early mark at or behind it never fires, so that the windows
   * re-read from the checkpoint's offset fire exactly where the previous reader's did. Fires
   * nothing itself; monotone: a value at or below the newest event time changes nothing.
   *
   * @param eventTimeMillis the newest event time seen before, or {@link
   *     WatermarkTracker#NO_WATERMARK} for none
   */
  public final void restoreNewestEventTime(long eventTimeMillis) {
    requireNotEmitting("restoreNewestEventTime");
    newestMillis = Math.max(newestMillis, eventTimeMillis);
  }

  /**
   * Returns the watermark; no side effect, any thread. See {@link WatermarkTracker#watermark()}.
   *
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public final long watermark() {
    return tracker.watermark();
  }

  /**
   * Returns the number of active sources; no side effect, any thread.
   *
   * @return the number of active sources
   */
  public final int activeSources() {
    return tracker.activeSources();
  }

  /**
   * Returns the allowed lateness in milliseconds.
   *
   * @return the allowed lateness, {@code >= 0}
   */
  public final long allowedLatenessMillis() {
    return tracker.allowedLatenessMillis();
  }

  /**
   * Returns the period of early results in milliseconds (rule 50), 0 without.
   *
   * @return the period, {@code >= 0}
   */
  public final long earlyResultsMillis() {
    return earlyMillis;
  }

  /**
   * Returns the grace period in milliseconds (rule 52): a window retires at {@code end + grace}.
   *
   * @return the grace period, {@code >= 0}
   */
  public final long graceMillis() {
    return graceMillis;
  }

  /**
   * Returns a snapshot of the counters; no side effect, any thread (see {@link WindowStats} for
   * what a snapshot taken on another thread guarantees).
   *
   * @return the counters
   */
  public final WindowStats stats() {
    return counters.snapshot(tracker.futureEvents(), tracker.watermark());
  }

  /**
   * Returns the end that decides whether an event at this time is late: late once the watermark
   * reaches it plus the grace period; its window's end (tumbling), its last window's end (hopping),
   * {@code t + gap} (sessions, where without panes an event that joins an open session is not late
   * even then, rule 43, and with panes is, rule 56). No side effect.
   *
   * @param eventTimeMillis the event time in epoch milliseconds
   * @return that end in epoch milliseconds
   * @throws IllegalArgumentException if the kind refuses the event time (hopping windows' range)
   */
  public final long lastWindowEnd(long eventTimeMillis) {
    return lateEnd(eventTimeMillis);
  }

  /**
   * Returns the end of the last window an event at this time can change, by being in it or by
   * defining it: {@link #lastWindowEnd} for every kind but {@link SlidingWindows}, where it is one
   * more ({@code t + d + 2}: the window that starts just after the event exists only if the event
   * does). Until the window ending there is emitted, a reader that starts over must read the event
   * again. No side effect.
   *
   * @param eventTimeMillis the event time in epoch milliseconds
   * @return that end in epoch milliseconds, saturating
   * @throws IllegalArgumentException if the kind refuses the event time (hopping windows' range)
   */
  public final long lastAffectedWindowEnd(long eventTimeMillis) {
    return affectedEnd(eventTimeMillis);
  }

  /** The kind's {@link #lastAffectedWindowEnd}: {@link #lateEnd} unless it says otherwise. */
  long affectedEnd(long eventTimeMillis) {
    return lateEnd(eventTimeMillis);
  }

  /**
   * Returns whether an event at this time can go into windows of this kind at all: every {@code
   * long} for tumbling and session windows; for hopping windows, a time whose every window fits in
   * the {@code long} range, which {@link #add} refuses otherwise. For a caller that must route such
   * an event elsewhere before {@code add} throws (the Kafka driver hands its record to the late
   * path: a record that can never be windowed must not make every poll fail). No side effect.
   *
   * @param eventTimeMillis the event time in epoch milliseconds
   * @return {@code false} if {@link #add} and {@link #lastWindowEnd} refuse the time
   */
  public final boolean windowable(long eventTimeMillis) {
    return fits(eventTimeMillis);
  }

  /** The kind's range of event times; every {@code long} unless the kind says otherwise. */
  boolean fits(long eventTimeMillis) {
    return true;
  }

  /**
   * Declares that every window ending at or before {@code endMillis} was already written elsewhere
   * (by a previous owner of these sources, as a Kafka checkpoint says): a window finalized from now
   * on that ends by then is dropped, not emitted, so a written row is never overwritten with part
   * of its value. Events still go into such windows' later neighbours (a hopping window's pane is
   * shared). Monotone: a smaller value than before changes nothing.
   *
   * @param endMillis the newest written window end, in epoch milliseconds
   */
  public final void markWritten(long endMillis) {
    requireNotEmitting("markWritten");
    writtenThroughMillis = Math.max(writtenThroughMillis, endMillis);
  }

  /**
   * Turns the replay of input on or off. While on, the windows fold events, move the watermark and
   * compute every row as usual, its index included, but hand out none of the rows with panes they
   * produce: for input whose rows an earlier reading already handed out, such as a Kafka
   * partition's new owner re-reading below its predecessor's read position for a sink that must not
   * get a row twice (a transaction). The rows waiting before, and those produced once it is off
   * again, are handed out as usual. Without early results or a grace period it changes nothing:
   * such a window has one row, and a re-read window that was not returned before the commit must
   * give it.
   *
   * @param on whether the input from now on is a replay
   */
  public final void replaying(boolean on) {
    requireNotEmitting("replaying");
    replayRows(on);
  }

  /** The kinds with panes drop their rows while {@code on}. */
  void replayRows(boolean on) {}

  @SuppressWarnings("unchecked") // values reach the aggregator only through add(..., V value)
  final Aggregator<Object, Object, ?> objectAggregator() {
    return (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
  }

  /** The visitor of {@link #pollFinalized()}: a {@link WindowResult} per row, pane included. */
  private static final class RowCollector<K, R> implements ResultVisitor<K, R> {
    private final List<WindowResult<K, R>> results;

    /** The starts the next row replaces (sessions with panes), or {@code null}. */
    private List<Long> replaced;

    RowCollector(List<WindowResult<K, R>> results) {
      this.results = results;
    }

    @Override
    public void visit(long start, long end, K key, R result) {
      visitPane(start, end, key, result, Timing.ON_TIME, 0, true);
    }

    @Override
    public void visitPane(
        long start, long end, K key, R result, Timing timing, int index, boolean isFinal) {
      List<Long> replaces = replaced == null ? List.of() : replaced;
      replaced = null;
      results.add(
          new WindowResult<>(start, end, key, result, null, timing, index, isFinal, replaces));
    }

    @Override
    public void visitReplaced(long start, K key) {
      if (replaced == null) {
        replaced = new ArrayList<>(2);
      }
      replaced.add(start);
    }

    @Override
    @SuppressWarnings("unchecked") // only called by windows whose result type is Long
    public void visitLongPane(
        long start, long end, K key, long result, Timing timing, int index, boolean isFinal) {
      visitPane(start, end, key, (R) Long.valueOf(result), timing, index, isFinal);
    }
  }
}
