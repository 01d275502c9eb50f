package io.github.lowwater;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.HashMap;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event-time watermark over several independently ordered sources, such as the partitions of a
 * Kafka topic: the minimum, over the sources that are not idle, of the largest event time seen on
 * each, minus the allowed lateness; never moving backwards.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread</b> (the polling
 * thread). {@link #watermark()} and {@link #activeSources()} may be read from any thread: each
 * returns a recent value, never a torn one. {@link #observe} costs O(1) when the event's source is
 * not the slowest one and amortised O(log active sources) when it is; it reads the clock once and
 * allocates nothing once the source is known. No call scans all sources. No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>The <em>frontier</em> F(s) of a source is the largest event time (epoch milliseconds)
 *       observed on it; a source that was {@linkplain #register registered} but not seen yet has F
 *       = minus infinity.
 *   <li>A source is <em>active</em> while {@code now - lastSeen(s) <= idleTimeout} on the clock's
 *       {@linkplain Clock#monotonicNanos() monotonic} reading, and <em>idle</em> when strictly
 *       greater. An idle source is left out of the minimum until it is observed again; an event it
 *       then delivers behind the watermark is late (the documented price of not stalling on a quiet
 *       source).
 *   <li>The <em>contribution</em> C(s) of a source is {@code F(s) - allowedLateness} under the
 *       default {@link WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}, raised further by {@link
 *       #punctuate} and {@link #lookahead}. The <em>candidate</em> is the minimum of C(s) over the
 *       active sources; there is none without an active source. The watermark is {@code
 *       max(previous watermark, candidate)}: it never moves backwards, and it is {@link
 *       #NO_WATERMARK} until the first candidate. A watermark W asserts that every event still to
 *       come has an event time {@code >= W}.
 *   <li>The watermark is re-evaluated (idleness included) by {@link #observe}, {@link #heartbeat},
 *       {@link #punctuate}, {@link #lookahead}, {@link #remove}, {@link #refresh}, {@link
 *       #advanceTo} and {@link #seedWatermark}, and nowhere else. Reading it has no side effect.
 *       Timers due at the new watermark fire at the end of the call that moved it.
 *   <li>{@link #advanceTo advanceTo(wall)} raises the watermark to at least {@code wall -
 *       allowedLateness}; {@link #seedWatermark seedWatermark(v)} raises it to at least {@code
 *       min(v, clock.wallMillis() - allowedLateness)}.
 *   <li>All arithmetic saturates at the {@code long} bounds; no timestamp wraps the watermark.
 * </ol>
 *
 * <p>The full statement, with the reasons, is in {@code docs/semantics.md}.
 *
 * <h2>Example</h2>
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock();
 * WatermarkTracker tracker = WatermarkTracker.builder()
 *     .allowedLateness(Duration.ofSeconds(10))
 *     .idleTimeout(Duration.ofMinutes(1))
 *     .clock(clock)
 *     .build();
 * tracker.observe("p0", 100_000);
 * tracker.observe("p1", 40_000);
 * tracker.watermark(); // 30_000: p1 is the slowest source
 * }</pre>
 */
public final class WatermarkTracker {

  /**
   * The watermark before any candidate exists: {@link Long#MIN_VALUE}. Every event time is at or
   * after it, so no event is late against it.
   */
  public static final long NO_WATERMARK = Long.MIN_VALUE;

  /**
   * The frontier of a source that is unknown, or registered but not seen yet: minus infinity,
   * {@link Long#MIN_VALUE} (the same value as {@link #NO_WATERMARK}, named for what it means).
   */
  public static final long UNSEEN = Long.MIN_VALUE;

  /** The default allowed lateness and idle timeout: 120 seconds each. */
  static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofSeconds(120);

  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);

  private static final Logger LOG = LoggerFactory.getLogger(WatermarkTracker.class);
  private static final VarHandle WATERMARK;
  private static final VarHandle ACTIVE_SOURCES;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      WATERMARK = lookup.findVarHandle(WatermarkTracker.class, "watermark", long.class);
      ACTIVE_SOURCES = lookup.findVarHandle(WatermarkTracker.class, "activeSources", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final VarHandle FUTURE_EVENTS;
  private static final VarHandle SUSPECT_TIME_UNITS;

  static {
    try {
      FUTURE_EVENTS =
          MethodHandles.lookup().findVarHandle(WatermarkTracker.class, "futureEvents", long.class);
      SUSPECT_TIME_UNITS =
          MethodHandles.lookup()
              .findVarHandle(WatermarkTracker.class, "suspectTimeUnits", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Sources whose first event looked like the wrong unit; published through SUSPECT_TIME_UNITS. */
  private long suspectTimeUnits;

  private final long idleTimeoutNanos;
  private final Clock clock;

  /** The strategy and the allowed lateness: how activity raises a source's contribution. */
  private final ContributionRule rule;

  private final FutureGuard futureGuard;

  /** Every known source, active or idle. */
  private final HashMap<Object, Source> sources = new HashMap<>();

  /** The active sources by contribution: the root holds the candidate. */
  private final SourceHeap heap = new SourceHeap();

  /** The active sources by last activity: the head goes idle first. */
  private final ActivityList activity;

  private final TimerQueue timers = new TimerQueue();

  /** The latest monotonic reading, so that a clock going backwards cannot reorder activity. */
  private long lastNowNanos;

  /** Written by the owner with release semantics, read elsewhere with acquire semantics. */
  private long watermark = NO_WATERMARK;

  /** The heap size, published for other threads. Written through ACTIVE_SOURCES. */
  private int activeSources;

  /** Events beyond the future-timestamp guard, published through FUTURE_EVENTS. */
  private long futureEvents;

  private boolean firingTimers;

  /** Told of each rise of the watermark, or {@code null}. */
  private final WatermarkListener listener;

  /**
   * Whether the heap's root is settled and the watermark is at or above its contribution, as every
   * re-evaluation leaves them. Cleared when a source enters or leaves the heap, since {@link
   * #register} and {@link #source} do that without a re-evaluation. While it holds, an event of a
   * source other than the root cannot change the candidate, so {@link #observe(Source, long, long)}
   * skips the re-evaluation unless a deadline (idleness, a timer) is due.
   */
  private boolean rootRaised;

  private WatermarkTracker(Builder builder, WatermarkListener listener) {
    this.listener = listener;
    this.rule =
        new ContributionRule(
            builder.strategy != null
                ? builder.strategy
                : WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS,
            TimeMath.toMillisSaturated(
                builder.allowedLateness != null
                    ? builder.allowedLateness
                    : DEFAULT_ALLOWED_LATENESS));
    this.idleTimeoutNanos =
        TimeMath.toNanosSaturated(
            builder.idleTimeout != null ? builder.idleTimeout : DEFAULT_IDLE_TIMEOUT);
    this.activity = new ActivityList(idleTimeoutNanos);
    this.clock = builder.clock != null ? builder.clock : Clock.system();
    this.futureGuard =
        new FutureGuard(
            builder.maxFutureSkew != null
                ? TimeMath.toMillisSaturated(builder.maxFutureSkew)
                : FutureGuard.OFF);
    this.lastNowNanos = clock.monotonicNanos();
  }

  /**
   * Returns a builder. Every option is optional: the allowed lateness and the idle timeout default
   * to 120 seconds each, the clock to {@link Clock#system()}.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Records an event of {@code source} at {@code eventTimeMillis} and re-evaluates the watermark.
   *
   * <p>An unknown source is registered first. The source becomes (or stays) active as of now, its
   * frontier becomes {@code max(F, eventTimeMillis)}, its contribution rises according to the
   * {@linkplain WatermarkStrategy strategy}, and the watermark is re-evaluated, which may also
   * retire sources that have been silent for longer than the idle timeout. An event behind the
   * watermark is recorded like any other: it counts as activity of its source and never lowers the
   * watermark.
   *
   * <p>With a {@linkplain Builder#maxFutureSkew future-timestamp guard}, an event more than {@code
   * maxFutureSkew} ahead of {@code clock.wallMillis()} is only counted ({@link #futureEvents()}):
   * it neither moves the frontier nor counts as activity, so a source that sends nothing else goes
   * idle instead of holding the watermark. An unknown source is still registered (idle) so that its
   * count is kept.
   *
   * @param source the source, for example a Kafka {@code TopicPartition}; compared with {@code
   *     equals}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @throws NullPointerException if {@code source} is null
   */
  public void observe(Object source, long eventTimeMillis) {
    Objects.requireNonNull(source, "source");
    observe(source, eventTimeMillis, futureLimitMillis());
  }

  /**
   * Records an event as {@link #observe(Object, long)} does, judging the future-timestamp guard
   * against {@code futureLimitMillis}, a reading of {@link #futureLimitMillis()} the caller took
   * for this event: for a caller that must know before the event is observed whether the guard
   * stops it (as {@code TumblingWindows} does, to apply its {@code FutureEventPolicy}), so that its
   * decision and the tracker's are one, and the wall clock is read once.
   *
   * @param source the source, or a handle from {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param futureLimitMillis the largest event time that may move a frontier: {@link
   *     #futureLimitMillis()}, read for this event ({@link Long#MAX_VALUE} without a guard)
   * @return {@code true} if the event was observed, {@code false} if it was beyond the guard (then
   *     only counted, in {@link #futureEvents()})
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} is a handle of another tracker
   */
  public boolean observe(Object source, long eventTimeMillis, long futureLimitMillis) {
    Objects.requireNonNull(source, "source");
    Source s = sources.get(source);
    if (s == null) {
      if (source instanceof Source) { // a handle passed as Object: never a key of the map
        return observe(attached((Source) source), eventTimeMillis, now(), futureLimitMillis);
      }
      s = newSource(source);
    }
    return observe(s, eventTimeMillis, now(), futureLimitMillis);
  }

  /**
   * Records an event of the source behind a handle from {@link #source(Object)}: the same as {@link
   * #observe(Object, long)} without hashing the key, the cheapest way to feed the tracker. A handle
   * whose source was {@linkplain #remove removed} starts it afresh, as the key would.
   *
   * @param source a handle from this tracker's {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} belongs to another tracker
   */
  public void observe(Source source, long eventTimeMillis) {
    Objects.requireNonNull(source, "source");
    Source s = attached(source);
    observe(s, eventTimeMillis, now(), futureLimitMillis());
  }

  /**
   * Records an event of the source behind a handle as {@link #observe(Source, long)} does, judging
   * the future-timestamp guard against {@code futureLimitMillis}, as {@link #observe(Object, long,
   * long)} does: without hashing the key.
   *
   * @param source a handle from this tracker's {@link #source(Object)}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @param futureLimitMillis {@link #futureLimitMillis()}, read for this event
   * @return {@code true} if the event was observed, {@code false} if it was beyond the guard
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} belongs to another tracker
   */
  public boolean observe(Source source, long eventTimeMillis, long futureLimitMillis) {
    Objects.requireNonNull(source, "source");
    return observe(attached(source), eventTimeMillis, now(), futureLimitMillis);
  }

  /**
   * Returns the handle of a source, registering it first if it is unknown (as {@link
   * #register(Object)} does). Keep the handle to feed {@link #observe(Source, long)} without a hash
   * lookup per event. The handle stays valid until the source is removed; after that, using it
   * starts the source afresh.
   *
   * @param source the source key
   * @return the source's handle
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code source} is a handle of another tracker
   */
  public Source source(Object source) {
    Object key = keyOf(source);
    Source s = sources.get(key);
    if (s == null) {
      s = newSource(key);
      active(s, now());
    }
    return s;
  }

  private boolean observe(Source s, long eventTimeMillis, long now, long futureLimitMillis) {
    if (eventTimeMillis > futureLimitMillis) {
      futureGuard.record(s.key);
      FUTURE_EVENTS.setRelease(this, futureEvents + 1);
      evaluate(now); // not activity: a source that only sends such events goes idle
      return false;
    }
    if (eventTimeMillis > s.frontier) {
      if (s.frontier == UNSEEN) {
        checkTimeUnit(s, eventTimeMillis); // the source's first event: a cold path
      }
      s.frontier = eventTimeMillis;
    }
    long c = rule.ofEvent(eventTimeMillis);
    if (c > s.contribution) {
      s.contribution = c; // the heap key catches up lazily, see SourceHeap
    }
    active(s, now);
    if (rootRaised && !heap.isRoot(s) && !activity.hasIdle(now) && !timers.hasDue(watermark)) {
      // evaluate(now) would retire nothing, find the same candidate (only a source other than the
      // root rose, and the root's contribution is at or below the watermark) and fire nothing.
      return true;
    }
    evaluate(now);
    return true;
  }

  /**
   * A punctuation: {@code source} asserts its own watermark, for example from a heartbeat or marker
   * record, that none of its events still to come is earlier than {@code watermarkMillis}. Its
   * contribution rises to at least {@code watermarkMillis} (no lateness is subtracted: the source
   * vouches for it), it becomes active as of now, and the watermark is re-evaluated. The frontier
   * does not move: no event was seen. Works with every {@link WatermarkStrategy}; with {@link
   * WatermarkStrategy#PUNCTUATED} it is the only thing that moves the watermark.
   *
   * @param source the source
   * @param watermarkMillis the source's own watermark in epoch milliseconds
   * @throws NullPointerException if {@code source} is null
   */
  public void punctuate(Object source, long watermarkMillis) {
    Source s = sourceFor(keyOf(source));
    long now = now();
    raiseContribution(s, watermarkMillis);
    active(s, now);
    evaluate(now);
  }

  /**
   * Lookahead on a fetched batch: call it with the smallest and largest event time of the records
   * of one source that a poll has just returned, before adding them one by one. Under bounded
   * out-of-orderness every event still to come from the source is at or after {@code
   * min(minEventTimeMillis, maxEventTimeMillis - allowedLateness)}, so the source's contribution
   * rises to at least that; it becomes active as of now, and the watermark is re-evaluated. The
   * frontier does not move until the events are observed.
   *
   * <p>It helps when a source is the slowest and its batch starts after its frontier minus the
   * allowed lateness: an in-order source with a full batch then releases the watermark up to the
   * batch's first event instead of {@code allowedLateness} behind the last one seen. It never makes
   * an event of the batch, or a later in-order event, late.
   *
   * @param source the source
   * @param minEventTimeMillis the smallest event time in the batch
   * @param maxEventTimeMillis the largest event time in the batch
   * @throws NullPointerException if {@code source} is null
   * @throws IllegalArgumentException if {@code minEventTimeMillis > maxEventTimeMillis}; nothing
   *     changes
   */
  public void lookahead(Object source, long minEventTimeMillis, long maxEventTimeMillis) {
    source = keyOf(source);
    if (minEventTimeMillis > maxEventTimeMillis) {
      throw new IllegalArgumentException(
          "minEventTimeMillis must be <= maxEventTimeMillis: "
              + minEventTimeMillis
              + " > "
              + maxEventTimeMillis);
    }
    long now = now();
    Source s = sourceFor(source);
    raiseContribution(s, rule.ofLookahead(minEventTimeMillis, maxEventTimeMillis));
    active(s, now);
    evaluate(now);
  }

  /**
   * Declares a source that is expected to deliver, such as a newly assigned partition. An unknown
   * source becomes active as of now with a frontier of minus infinity, so it holds the watermark
   * back until it is observed or goes idle. Registering a known source, active or idle, changes
   * nothing. This call does not re-evaluate the watermark (it could only hold it).
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void register(Object source) {
    source = keyOf(source);
    if (sources.containsKey(source)) {
      return;
    }
    active(newSource(source), now());
  }

  /**
   * Records activity of a source without an event, such as a heartbeat or a partition that the
   * consumer has paused on purpose: the source becomes (or stays) active as of now with its
   * frontier unchanged, and the watermark is re-evaluated. An unknown source is registered. Time
   * between heartbeats never counts toward idleness.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void heartbeat(Object source) {
    Source s = sourceFor(keyOf(source));
    long now = now();
    active(s, now);
    evaluate(now);
  }

  /**
   * Returns the frontier of a source: the largest event time observed on it. No side effect. Writer
   * thread only.
   *
   * @param source the source
   * @return the frontier in epoch milliseconds, or {@link #UNSEEN} if the source is unknown or has
   *     not been observed yet
   * @throws NullPointerException if {@code source} is null
   */
  public long frontier(Object source) {
    source = keyOf(source);
    Source s = sources.get(source);
    return s == null ? NO_WATERMARK : s.frontier;
  }

  /**
   * Returns a source's own watermark: its contribution to the shared one, that is its frontier less
   * the allowed lateness under {@link WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}, raised by {@link
   * #punctuate} and {@link #lookahead} (which never raises it above what the batch's own events
   * will). It depends on the source's own events alone, whatever the other sources did, so a
   * verdict taken against it is the same in every interleaving of the sources. No side effect.
   * Writer thread only.
   *
   * @param source the source, or its handle
   * @return the source's own watermark in epoch milliseconds, or {@link #UNSEEN} if the source is
   *     unknown or has contributed nothing yet
   * @throws NullPointerException if {@code source} is null
   */
  public long sourceWatermark(Object source) {
    if (source instanceof Source handle && handle.owner == this && !handle.removed) {
      return handle.contribution; // the cheap way: no hash lookup per event
    }
    Source s = sources.get(keyOf(source));
    return s == null ? UNSEEN : s.contribution;
  }

  /**
   * Returns whether a source is known and was active at the last re-evaluation (or became active
   * since). No side effect. Writer thread only.
   *
   * @param source the source
   * @return {@code true} if the source is known and active
   * @throws NullPointerException if {@code source} is null
   */
  public boolean isActive(Object source) {
    source = keyOf(source);
    Source s = sources.get(source);
    return s != null && heap.contains(s);
  }

  /**
   * Returns the number of known sources, active or idle. No side effect. Writer thread only.
   *
   * @return the number of known sources
   */
  public int knownSources() {
    return sources.size();
  }

  /**
   * Forgets a source, such as a revoked partition: it leaves the minimum at once, and the watermark
   * is re-evaluated. Observing or registering it later starts it afresh.
   *
   * @param source the source
   * @return {@code true} if the source was known (active or idle)
   * @throws NullPointerException if {@code source} is null
   */
  public boolean remove(Object source) {
    source = keyOf(source);
    long now = now();
    Source s = sources.remove(source);
    if (s != null) {
      if (heap.contains(s)) {
        deactivate(s);
      }
      s.removed = true;
    }
    futureGuard.forget(source);
    evaluate(now);
    return s != null;
  }

  /**
   * Re-evaluates idleness and the watermark now, without an event: a source that has been silent
   * for longer than the idle timeout is retired, which may raise the watermark. Call it once per
   * poll when a poll can return nothing.
   */
  public void refresh() {
    evaluate(now());
  }

  /**
   * The all-quiet hook: re-evaluates, then raises the watermark to at least {@code wallMillis -
   * allowedLateness}, so that the last window closes when every source is quiet, but never before
   * {@code end + allowedLateness}. The caller decides when the stream is quiet; this call does not
   * check it.
   *
   * @param wallMillis the wall-clock time in epoch milliseconds, usually {@code clock.wallMillis()}
   */
  public void advanceTo(long wallMillis) {
    evaluate(now());
    long bound = rule.lessLateness(wallMillis);
    long before = watermark;
    if (raise(bound) && LOG.isDebugEnabled()) {
      LOG.debug(
          "advanceTo({}) moved the watermark from {} to {}",
          TimeMath.describeMillis(wallMillis),
          TimeMath.describeMillis(before),
          TimeMath.describeMillis(bound));
    }
    fireDueTimers();
  }

  /**
   * The start-up seed: re-evaluates, then raises the watermark to at least {@code
   * min(candidateMillis, clock.wallMillis() - allowedLateness)}. Pass the end of the newest window
   * the sink has already written, so that redelivered events of written windows are late; the clamp
   * means that a window written "in the future" (by a replay, say) can never make live events late.
   * A clamped seed is logged at INFO with both values.
   *
   * @param candidateMillis the proposed watermark in epoch milliseconds
   * @return the watermark after seeding
   */
  public long seedWatermark(long candidateMillis) {
    evaluate(now());
    long bound = rule.lessLateness(clock.wallMillis());
    long effective = Math.min(candidateMillis, bound);
    if (candidateMillis > bound) {
      LOG.info(
          "seed {} is ahead of wall clock - allowedLateness; clamped to {}",
          TimeMath.describeMillis(candidateMillis),
          TimeMath.describeMillis(bound));
    }
    raise(effective);
    fireDueTimers();
    return watermark;
  }

  /**
   * The end of the input: re-evaluates, then raises the watermark to {@link Long#MAX_VALUE}, so
   * that every window closes (however large the allowed lateness) and every later event is late;
   * every pending timer fires. For a bounded input read to its end, as Flink's {@code
   * Watermark.MAX_WATERMARK}. Idempotent.
   */
  public void finish() {
    evaluate(now());
    raise(Long.MAX_VALUE);
    fireDueTimers();
  }

  /**
   * Registers a callback for "the watermark reached {@code timeMillis}": it fires exactly once, on
   * the thread and at the end of the call that moves the watermark to or past {@code timeMillis},
   * timers in ascending time order, ties in registration order. A timer at or below the current
   * watermark fires before this method returns. O(log timers); allocates only when the timer heap
   * grows.
   *
   * <p>A callback may register further timers and may call the tracker's mutating methods; a timer
   * that becomes due meanwhile fires in the same loop, in order. An exception from a callback
   * propagates to the caller of the call that fired it; that timer counts as fired, and the other
   * due timers fire at the next re-evaluation.
   *
   * @param timeMillis the event time to wait for, in epoch milliseconds
   * @param timer the callback
   * @throws NullPointerException if {@code timer} is null
   */
  public void registerTimer(long timeMillis, WatermarkTimer timer) {
    Objects.requireNonNull(timer, "timer");
    timers.add(timeMillis, timer);
    fireDueTimers();
  }

  /**
   * Returns the number of timers that have not fired yet. No side effect. Writer thread only.
   *
   * @return the number of pending timers
   */
  public int pendingTimers() {
    return timers.size();
  }

  /**
   * Returns how far the watermark trails the wall clock: {@code clock.wallMillis() - watermark},
   * saturating ({@link Long#MAX_VALUE} before the first watermark). A number a dashboard can plot:
   * in steady state about the allowed lateness plus the pipeline's delay; large during a catch-up.
   * Reads the wall clock; no other side effect. May be called from any thread if the clock may
   * (every clock of this package may).
   *
   * @return the watermark lag in milliseconds
   */
  public long watermarkLagMillis() {
    return TimeMath.saturatedSubtract(clock.wallMillis(), watermark());
  }

  /**
   * Returns the number of events that the future-timestamp guard kept from moving a frontier. No
   * side effect; any thread.
   *
   * @return the number of future events, {@code 0} without a guard
   */
  public long futureEvents() {
    return (long) FUTURE_EVENTS.getAcquire(this);
  }

  /**
   * Returns the number of events of {@code source} that the future-timestamp guard kept from moving
   * its frontier, since the source was last registered. No side effect. Writer thread only.
   *
   * @param source the source
   * @return the source's future events, {@code 0} if unknown
   * @throws NullPointerException if {@code source} is null
   */
  public long futureEvents(Object source) {
    return futureGuard.count(keyOf(source));
  }

  /**
   * Returns the largest event time the future-timestamp guard lets move a frontier now: {@code
   * clock.wallMillis() + maxFutureSkew}, saturating, or {@link Long#MAX_VALUE} without a guard.
   * Reads the wall clock when a guard is set; no other side effect.
   *
   * @return the future limit in epoch milliseconds
   */
  public long futureLimitMillis() {
    return futureGuard.isOn() ? futureGuard.limitMillis(clock.wallMillis()) : Long.MAX_VALUE;
  }

  /**
   * Returns the strategy.
   *
   * @return the watermark strategy
   */
  public WatermarkStrategy strategy() {
    return rule.strategy();
  }

  /**
   * Returns the current watermark in epoch milliseconds, or {@link #NO_WATERMARK}. No side effect.
   * May be called from any thread; from a thread other than the writer it returns a recent value.
   *
   * @return the watermark
   */
  public long watermark() {
    return (long) WATERMARK.getAcquire(this);
  }

  /**
   * Returns the number of sources that were active at the last re-evaluation, plus those registered
   * or observed since. No side effect: a source whose timeout has expired is still counted until
   * the next re-evaluation. May be called from any thread.
   *
   * @return the number of active sources
   */
  public int activeSources() {
    return (int) ACTIVE_SOURCES.getAcquire(this);
  }

  /**
   * Returns the allowed lateness in milliseconds.
   *
   * @return the allowed lateness, {@code >= 0}
   */
  public long allowedLatenessMillis() {
    return rule.allowedLatenessMillis();
  }

  /**
   * Returns the idle timeout in nanoseconds.
   *
   * @return the idle timeout, {@code > 0}
   */
  public long idleTimeoutNanos() {
    return idleTimeoutNanos;
  }

  /**
   * Returns the clock this tracker reads.
   *
   * @return the clock
   */
  public Clock clock() {
    return clock;
  }

  @Override
  public String toString() {
    return "WatermarkTracker{watermark="
        + watermark()
        + ", activeSources="
        + activeSources()
        + ", allowedLatenessMillis="
        + allowedLatenessMillis()
        + ", idleTimeoutNanos="
        + idleTimeoutNanos
        + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // Re-evaluation

  /** Reads the monotonic clock once, never letting it run backwards. */
  private long now() {
    long now = clock.monotonicNanos();
    if (now - lastNowNanos < 0) {
      return lastNowNanos;
    }
    lastNowNanos = now;
    return now;
  }

  /**
   * Retires sources idle as of {@code now}, raises the watermark to the candidate, if any, and
   * fires the timers that are due.
   */
  private void evaluate(long now) {
    if (activity.hasIdle(now)) {
      retireIdle(now);
    }
    if (heap.size() > 0) {
      raise(heap.settleRoot().contribution);
    }
    rootRaised = true; // before the timers: a callback may activate a source and clear it
    fireDueTimers();
  }

  /**
   * Event times below this, 1973-03-03, look like epoch seconds when the wall clock is past {@link
   * #WALL_CLOCK_SECONDS_CHECK_FROM}: a timestamp in seconds today is about 1.8e9.
   */
  static final long SECONDS_SUSPECT_BELOW = 100_000_000_000L;

  /** Event times above this, 5138-11-16, look like epoch microseconds (about 1.8e15 today). */
  static final long MICROS_SUSPECT_ABOVE = 100_000_000_000_000L;

  /** 2001-01-01T00:00:00Z: before it, a small event time may be real. */
  static final long WALL_CLOCK_SECONDS_CHECK_FROM = 978_307_200_000L;

  /**
   * The first event of a source in the wrong unit (seconds or microseconds instead of milliseconds)
   * puts every event in 1970 or far in the future: warn once per source, and count.
   */
  private void checkTimeUnit(Source s, long eventTimeMillis) {
    String unit = null;
    if (eventTimeMillis > MICROS_SUSPECT_ABOVE) {
      unit = "microseconds (divide by 1,000)";
    } else if (eventTimeMillis < SECONDS_SUSPECT_BELOW
        && clock.wallMillis() > WALL_CLOCK_SECONDS_CHECK_FROM) {
      unit = "seconds (multiply by 1,000)";
    }
    if (unit != null) {
      SUSPECT_TIME_UNITS.setRelease(this, suspectTimeUnits + 1);
      LOG.warn(
          "source {}: its first event time {} looks like epoch {}, not milliseconds; check the"
              + " event-time extractor",
          s.key,
          TimeMath.describeMillis(eventTimeMillis),
          unit);
    }
  }

  /**
   * Returns the number of sources whose first event time looked like epoch seconds or microseconds
   * rather than milliseconds (each logged once at WARN). Any thread.
   *
   * @return the number of sources with a suspect time unit
   */
  public long suspectTimeUnits() {
    return (long) SUSPECT_TIME_UNITS.getAcquire(this);
  }

  private Source newSource(Object key) {
    Source s = new Source(this, key);
    sources.put(key, s);
    return s;
  }

  /** The known state of a key, or a new, not yet active one. */
  private Source sourceFor(Object key) {
    Source s = sources.get(key);
    return s != null ? s : newSource(key);
  }

  /** The key behind a source argument: a handle of this tracker stands for its key. */
  private Object keyOf(Object source) {
    Objects.requireNonNull(source, "source");
    if (source instanceof Source) {
      Source handle = (Source) source;
      checkOwner(handle);
      return handle.key;
    }
    return source;
  }

  private void checkOwner(Source handle) {
    if (handle.owner != this) {
      throw new IllegalArgumentException("source handle belongs to another tracker: " + handle.key);
    }
  }

  /** The live state behind a handle: a removed handle starts its source afresh. */
  private Source attached(Source handle) {
    checkOwner(handle);
    if (!handle.removed) {
      return handle;
    }
    Source current = sources.get(handle.key);
    if (current != null) {
      return current;
    }
    return newSource(handle.key); // inactive until the caller's activity activates it
  }

  /**
   * Makes {@code s} active as of {@code now}: activates an idle or new source, or moves an active
   * one to the newest end of the activity list. Under {@link WatermarkStrategy#PROCESSING_TIME} the
   * activity also raises the contribution to the wall clock minus the allowed lateness.
   */
  private void active(Source s, long now) {
    if (rule.raisesOnActivity()) {
      raiseContribution(s, rule.ofActivity(clock.wallMillis()));
    }
    if (heap.contains(s)) {
      activity.touch(s, now);
    } else {
      reactivate(s, now);
    }
  }

  // The hot path (observe of an active source) stays small enough for the JIT to inline whole;
  // everything that is rare or logs lives in a method of its own.

  /** Raises a source's contribution to {@code floor} if that is higher (it never falls). */
  private static void raiseContribution(Source s, long floor) {
    if (floor > s.contribution) {
      s.contribution = floor;
    }
  }

  private void reactivate(Source s, long now) {
    if (s.everActive && LOG.isInfoEnabled()) {
      LOG.info("source {} is active again (frontier {})", s.key, describe(s.frontier));
    }
    s.everActive = true;
    activate(s, now);
  }

  private static Object describe(long frontier) {
    return frontier == UNSEEN ? "(unseen)" : TimeMath.describeMillis(frontier);
  }

  private void fireDueTimers() {
    if (!firingTimers && timers.hasDue(watermark)) {
      fireTimers();
    }
  }

  private void fireTimers() {
    firingTimers = true;
    try {
      while (timers.hasDue(watermark)) {
        long time = timers.firstTime();
        timers.removeFirst().onTimer(time, watermark);
      }
    } finally {
      firingTimers = false;
    }
  }

  /** Raises the watermark to {@code value} if that is higher; returns whether it moved. */
  private boolean raise(long value) {
    if (value > watermark) {
      WATERMARK.setRelease(this, value);
      if (listener != null) {
        listener.onWatermarkRaised(value); // before the timers due at it
      }
      return true;
    }
    return false;
  }

  private void retireIdle(long now) {
    Source s;
    while ((s = activity.firstIdle(now)) != null) {
      deactivate(s);
      if (LOG.isInfoEnabled()) {
        LOG.info(
            "source {} went idle: silent for {} ms, more than the idle timeout of {} ms;"
                + " its frontier {} no longer holds the watermark",
            s.key,
            (now - s.lastSeenNanos) / 1_000_000L,
            idleTimeoutNanos / 1_000_000L,
            describe(s.frontier));
      }
    }
  }

  /** Puts a source into the activity list and the heap, and publishes the count. */
  private void activate(Source s, long now) {
    activity.add(s, now);
    heap.insert(s);
    ACTIVE_SOURCES.setRelease(this, heap.size());
    rootRaised = false; // s may be the new root, above the watermark
  }

  /** Takes a source out of the activity list and the heap, and publishes the count. */
  private void deactivate(Source s) {
    activity.remove(s);
    heap.remove(s);
    ACTIVE_SOURCES.setRelease(this, heap.size());
    rootRaised = false;
  }

  /**
   * The handle of one source, from {@link WatermarkTracker#source(Object)}: pass it to {@link
   * WatermarkTracker#observe(Source, long)} to skip the key's hash lookup. Opaque; it holds the
   * source's state. Every method of the tracker that takes a source accepts a handle of this
   * tracker in place of its key, and rejects a handle of another tracker with {@link
   * IllegalArgumentException} before anything changes. Not thread-safe: use it on the tracker's
   * writer thread only.
   */
  public static final class Source {
    private final WatermarkTracker owner;
    private final Object key;

    /** Set when the source is removed: the handle then stands for a fresh registration. */
    private boolean removed;

    /** The largest event time observed, or {@link #UNSEEN}. */
    long frontier = UNSEEN;

    /** The contribution to the watermark: the candidate is the minimum over active sources. */
    long contribution = UNSEEN;

    /** Whether the source has been active before, for the "active again" log line. */
    boolean everActive;

    /** The monotonic reading of the last observation or registration. */
    long lastSeenNanos;

    /** The id in the {@link SourceHeap} while active, or {@link SourceHeap#NOT_IN_HEAP}. */
    int heapId = SourceHeap.NOT_IN_HEAP;

    /** The neighbours in the {@link ActivityList}, {@code null} outside it. */
    Source older;

    Source newer;

    Source(WatermarkTracker owner, Object key) {
      this.owner = owner;
      this.key = key;
    }

    /**
     * Returns the source key this handle stands for.
     *
     * @return the key given to {@link WatermarkTracker#source(Object)}
     */
    public Object key() {
      return key;
    }

    /**
     * Returns whether this handle was issued by {@code tracker}.
     *
     * @param tracker a tracker
     * @return {@code true} if {@code tracker} issued this handle
     */
    public boolean belongsTo(WatermarkTracker tracker) {
      return owner == tracker;
    }

    @Override
    public String toString() {
      return "Source{" + key + (removed ? ", removed" : "") + "}";
    }
  }

  /**
   * Configures a {@link WatermarkTracker}. Every option is optional and may be set at most once:
   * setting one twice throws {@link IllegalStateException}, since a second value is almost always a
   * configuration mistake rather than an intended override. A rejected call leaves the builder
   * unchanged. Not thread-safe.
   */
  public static final class Builder {
    private Duration allowedLateness;
    private Duration idleTimeout;
    private Clock clock;
    private WatermarkStrategy strategy;
    private Duration maxFutureSkew;

    private Builder() {}

    /**
     * Sets how far behind the slowest active source's frontier the watermark trails. Default 120
     * seconds. Converted to milliseconds once, saturating (sub-millisecond parts are dropped).
     *
     * @param allowedLateness the allowed lateness, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if {@code allowedLateness} is negative
     * @throws IllegalStateException if the allowed lateness was already set
     */
    public Builder allowedLateness(Duration allowedLateness) {
      Checks.requireNonNegative(allowedLateness, "allowedLateness");
      Checks.requireUnset(this.allowedLateness == null, "allowedLateness", this.allowedLateness);
      this.allowedLateness = allowedLateness;
      return this;
    }

    /**
     * Sets how long a source may be silent, on the monotonic clock, before it stops holding the
     * watermark: it is idle when {@code now - lastSeen > idleTimeout}. Default 120 seconds.
     * Converted to nanoseconds once, saturating; a duration too long for that (such as {@code
     * ChronoUnit.FOREVER.getDuration()}) means that no source ever goes idle.
     *
     * @param idleTimeout the idle timeout, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code idleTimeout} is null
     * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
     * @throws IllegalStateException if the idle timeout was already set
     */
    public Builder idleTimeout(Duration idleTimeout) {
      Checks.requirePositive(idleTimeout, "idleTimeout");
      Checks.requireUnset(this.idleTimeout == null, "idleTimeout", this.idleTimeout);
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Sets the clock. Default {@link Clock#system()}. Tests pass a {@link ManualClock}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder clock(Clock clock) {
      Objects.requireNonNull(clock, "clock");
      Checks.requireUnset(this.clock == null, "clock", this.clock);
      this.clock = clock;
      return this;
    }

    /**
     * Sets how events move a source's contribution. Default {@link
     * WatermarkStrategy#BOUNDED_OUT_OF_ORDERNESS}.
     *
     * @param strategy the strategy
     * @return this builder
     * @throws NullPointerException if {@code strategy} is null
     * @throws IllegalStateException if the strategy was already set
     */
    public Builder strategy(WatermarkStrategy strategy) {
      Objects.requireNonNull(strategy, "strategy");
      Checks.requireUnset(this.strategy == null, "strategy", this.strategy);
      this.strategy = strategy;
      return this;
    }

    /**
     * * Turns on the future-timestamp guard: an event more than {@code maxFutureSkew} ahead of
     * {@code clock.wallMillis()} (strictly greater than {@code wall + maxFutureSkew}) neither moves
     * its source's frontier nor counts as its activity, so one device with a fast clock can neither
     * make a whole fleet's data late nor hold the watermark. Such events are counted ({@link
     * #futureEvents()}). Off by default; costs one wall-clock read per event when on.
     *
     * @param maxFutureSkew how far ahead of the wall clock an event may be, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code maxFutureSkew} is null
     * @throws IllegalArgumentException if {@code maxFutureSkew} is negative
     * @throws IllegalStateException if the guard was already set
     */
    public Builder maxFutureSkew(Duration maxFutureSkew) {
      Checks.requireNonNegative(maxFutureSkew, "maxFutureSkew");
      Checks.requireUnset(this.maxFutureSkew == null, "maxFutureSkew", this.maxFutureSkew);
      this.maxFutureSkew = maxFutureSkew;
      return this;
    }

    /**
     * Builds the tracker. The builder may be reused; trackers built from it share nothing but the
     * clock.
     *
     * @return a new tracker with no sources and no watermark
     */
    public WatermarkTracker build() {
      return new WatermarkTracker(this, null);
    }

    /**
     * Builds the tracker with a listener told of each rise of its watermark, before the timers due
     * at it fire (see {@link WatermarkListener}).
     *
     * @param listener told of each rise, on the thread that raised the watermark
     * @return a new tracker with no sources and no watermark
     * @throws NullPointerException if {@code listener} is null
     */
    public WatermarkTracker build(WatermarkListener listener) {
      return new WatermarkTracker(this, Objects.requireNonNull(listener, "listener"));
    }
  }
}
