package io.github.lowwater;

import io.github.lowwater.internal.TimeMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
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
 *   <li>The <em>candidate</em> is {@code min over active s of F(s) - allowedLateness}; there is
 *       none without an active source. The watermark is {@code max(previous watermark, candidate)}:
 *       it never moves backwards, and it is {@link #NO_WATERMARK} until the first candidate.
 *   <li>The watermark is re-evaluated (idleness included) by {@link #observe}, {@link #heartbeat},
 *       {@link #remove}, {@link #refresh}, {@link #advanceTo} and {@link #seed}, and nowhere else.
 *       Reading it has no side effect.
 *   <li>{@link #advanceTo advanceTo(wall)} raises the watermark to at least {@code wall -
 *       allowedLateness}; {@link #seed seed(v)} raises it to at least {@code min(v,
 *       clock.wallMillis() - allowedLateness)}.
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

  /** The frontier of a source that was registered but not seen yet: minus infinity. */
  static final long UNSEEN = Long.MIN_VALUE;

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

  private final long allowedLatenessMillis;
  private final long idleTimeoutNanos;
  private final Clock clock;

  /** Every known source, active or idle. */
  private final HashMap<Object, Source> sources = new HashMap<>();

  /**
   * A binary min-heap of the active sources, ordered by {@link Source#heapKey}, a lower bound of
   * the source's frontier that is brought up to date only when the source reaches the root. See
   * {@link #settleRoot()}.
   */
  private Source[] heap = new Source[8];

  /**
   * The active sources in ascending order of last activity (a doubly linked list through {@link
   * Source#older} and {@link Source#newer}). The head is the source that goes idle first.
   */
  private Source oldest;

  private Source newest;

  /** The latest monotonic reading, so that a clock going backwards cannot reorder activity. */
  private long lastNowNanos;

  /** Written by the owner with release semantics, read elsewhere with acquire semantics. */
  private long watermark = NO_WATERMARK;

  /** The heap size, published for other threads. Written through ACTIVE_SOURCES. */
  private int activeSources;

  private WatermarkTracker(Builder builder) {
    this.allowedLatenessMillis =
        TimeMath.toMillisSaturated(
            builder.allowedLateness != null ? builder.allowedLateness : DEFAULT_ALLOWED_LATENESS);
    this.idleTimeoutNanos =
        TimeMath.toNanosSaturated(
            builder.idleTimeout != null ? builder.idleTimeout : DEFAULT_IDLE_TIMEOUT);
    this.clock = builder.clock != null ? builder.clock : Clock.system();
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
   * frontier becomes {@code max(F, eventTimeMillis)}, and the watermark is re-evaluated, which may
   * also retire sources that have been silent for longer than the idle timeout. An event behind the
   * watermark is recorded like any other: it counts as activity of its source and never lowers the
   * watermark.
   *
   * @param source the source, for example a Kafka {@code TopicPartition}; compared with {@code
   *     equals}
   * @param eventTimeMillis the event time in epoch milliseconds; any {@code long}
   * @throws NullPointerException if {@code source} is null
   */
  public void observe(Object source, long eventTimeMillis) {
    Objects.requireNonNull(source, "source");
    long now = now();
    Source s = sources.get(source);
    if (s == null) {
      s = new Source(source);
      sources.put(source, s);
      s.frontier = eventTimeMillis;
      activate(s, now);
    } else {
      if (eventTimeMillis > s.frontier) {
        s.frontier = eventTimeMillis; // the heap key catches up lazily, see settleRoot()
      }
      if (s.heapIndex < 0) {
        activate(s, now);
        if (LOG.isDebugEnabled()) {
          LOG.debug("source {} is active again at event time {}", source, eventTimeMillis);
        }
      } else {
        touch(s, now);
      }
    }
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
    Objects.requireNonNull(source, "source");
    if (sources.containsKey(source)) {
      return;
    }
    long now = now();
    Source s = new Source(source);
    sources.put(source, s);
    activate(s, now);
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
    Objects.requireNonNull(source, "source");
    long now = now();
    Source s = sources.get(source);
    if (s == null) {
      s = new Source(source);
      sources.put(source, s);
      activate(s, now);
    } else if (s.heapIndex < 0) {
      activate(s, now);
      if (LOG.isDebugEnabled()) {
        LOG.debug("source {} is active again by heartbeat", source);
      }
    } else {
      touch(s, now);
    }
    evaluate(now);
  }

  /**
   * Returns the frontier of a source: the largest event time observed on it. No side effect. Writer
   * thread only.
   *
   * @param source the source
   * @return the frontier in epoch milliseconds, or {@link #NO_WATERMARK} if the source is unknown
   *     or has not been observed yet
   * @throws NullPointerException if {@code source} is null
   */
  public long frontier(Object source) {
    Objects.requireNonNull(source, "source");
    Source s = sources.get(source);
    return s == null ? NO_WATERMARK : s.frontier;
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
    Objects.requireNonNull(source, "source");
    Source s = sources.get(source);
    return s != null && s.heapIndex >= 0;
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
    Objects.requireNonNull(source, "source");
    long now = now();
    Source s = sources.remove(source);
    if (s != null && s.heapIndex >= 0) {
      deactivate(s);
    }
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
    long bound = TimeMath.saturatedSubtract(wallMillis, allowedLatenessMillis);
    long before = watermark;
    if (raise(bound) && LOG.isDebugEnabled()) {
      LOG.debug("advanceTo({}) moved the watermark from {} to {}", wallMillis, before, bound);
    }
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
  public long seed(long candidateMillis) {
    evaluate(now());
    long bound = TimeMath.saturatedSubtract(clock.wallMillis(), allowedLatenessMillis);
    long effective = Math.min(candidateMillis, bound);
    if (candidateMillis > bound) {
      LOG.info(
          "seed {} is ahead of wall clock - allowedLateness; clamped to {}",
          candidateMillis,
          bound);
    }
    raise(effective);
    return watermark;
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
    return allowedLatenessMillis;
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
        + allowedLatenessMillis
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

  /** Retires sources idle as of {@code now} and raises the watermark to the candidate, if any. */
  private void evaluate(long now) {
    expireIdle(now);
    if (heapSize() > 0) {
      settleRoot();
      Source slowest = heap[0];
      raise(TimeMath.saturatedSubtract(slowest.frontier, allowedLatenessMillis));
    }
  }

  /** Raises the watermark to {@code value} if that is higher; returns whether it moved. */
  private boolean raise(long value) {
    if (value > watermark) {
      WATERMARK.setRelease(this, value);
      return true;
    }
    return false;
  }

  private void expireIdle(long now) {
    Source s;
    while ((s = oldest) != null && now - s.lastSeenNanos > idleTimeoutNanos) {
      deactivate(s);
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "source {} went idle: silent for {} ms, more than the idle timeout of {} ms;"
                + " its frontier {} no longer holds the watermark",
            s.key,
            (now - s.lastSeenNanos) / 1_000_000L,
            idleTimeoutNanos / 1_000_000L,
            s.frontier == UNSEEN ? "(unseen)" : s.frontier);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Activity list: active sources ordered by last activity, oldest first.

  private void activate(Source s, long now) {
    s.lastSeenNanos = now;
    linkNewest(s);
    heapInsert(s);
  }

  private void deactivate(Source s) {
    unlink(s);
    heapRemove(s);
  }

  private void touch(Source s, long now) {
    s.lastSeenNanos = now;
    if (s != newest) {
      unlink(s);
      linkNewest(s);
    }
  }

  private void linkNewest(Source s) {
    s.older = newest;
    s.newer = null;
    if (newest == null) {
      oldest = s;
    } else {
      newest.newer = s;
    }
    newest = s;
  }

  private void unlink(Source s) {
    Source older = s.older;
    Source newer = s.newer;
    if (older == null) {
      oldest = newer;
    } else {
      older.newer = newer;
    }
    if (newer == null) {
      newest = older;
    } else {
      newer.older = older;
    }
    s.older = null;
    s.newer = null;
  }

  // ---------------------------------------------------------------------------------------------
  // Lazy min-heap over the active sources.
  //
  // A source's heapKey is a lower bound of its frontier: frontiers only grow, and observe() writes
  // the frontier without touching the heap. Only the root is brought up to date, in settleRoot():
  // once the root's key equals its frontier, that frontier is the minimum of all active frontiers,
  // because every other source's frontier >= its key >= the root's key. So an event of a source
  // that is not the slowest costs a field write, and the heap moves only when the slowest source
  // moves.

  private int heapSize() {
    return activeSources;
  }

  private void setHeapSize(int size) {
    ACTIVE_SOURCES.setRelease(this, size);
  }

  private void settleRoot() {
    Source root = heap[0];
    while (root.heapKey != root.frontier) {
      root.heapKey = root.frontier;
      siftDown(0, root);
      root = heap[0];
    }
  }

  private void heapInsert(Source s) {
    int size = heapSize();
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    s.heapKey = s.frontier;
    setHeapSize(size + 1);
    siftUp(size, s);
  }

  private void heapRemove(Source s) {
    int index = s.heapIndex;
    int last = heapSize() - 1;
    Source moved = heap[last];
    heap[last] = null;
    setHeapSize(last);
    s.heapIndex = -1;
    if (index != last) {
      siftDown(index, moved);
      if (heap[index] == moved) {
        siftUp(index, moved);
      }
    }
  }

  private void siftUp(int index, Source s) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      Source p = heap[parent];
      if (p.heapKey <= s.heapKey) {
        break;
      }
      heap[index] = p;
      p.heapIndex = index;
      index = parent;
    }
    heap[index] = s;
    s.heapIndex = index;
  }

  private void siftDown(int index, Source s) {
    int size = heapSize();
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      Source c = heap[child];
      int right = child + 1;
      if (right < size && heap[right].heapKey < c.heapKey) {
        child = right;
        c = heap[child];
      }
      if (s.heapKey <= c.heapKey) {
        break;
      }
      heap[index] = c;
      c.heapIndex = index;
      index = child;
    }
    heap[index] = s;
    s.heapIndex = index;
  }

  /** The state of one source. */
  private static final class Source {
    final Object key;

    /** The largest event time observed, or {@link #UNSEEN}. */
    long frontier = UNSEEN;

    /** A lower bound of {@link #frontier}: this source's position in the heap. */
    long heapKey;

    /** The monotonic reading of the last observation or registration. */
    long lastSeenNanos;

    /** The index in the heap, or -1 while idle. */
    int heapIndex = -1;

    Source older;
    Source newer;

    Source(Object key) {
      this.key = key;
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
      Objects.requireNonNull(allowedLateness, "allowedLateness");
      if (allowedLateness.isNegative()) {
        throw new IllegalArgumentException("allowedLateness must be >= 0: " + allowedLateness);
      }
      if (this.allowedLateness != null) {
        throw new IllegalStateException(
            "allowedLateness was already set to " + this.allowedLateness);
      }
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
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      if (idleTimeout.isNegative() || idleTimeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be > 0: " + idleTimeout);
      }
      if (this.idleTimeout != null) {
        throw new IllegalStateException("idleTimeout was already set to " + this.idleTimeout);
      }
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
      if (this.clock != null) {
        throw new IllegalStateException("clock was already set to " + this.clock);
      }
      this.clock = clock;
      return this;
    }

    /**
     * Builds the tracker. The builder may be reused; trackers built from it share nothing but the
     * clock.
     *
     * @return a new tracker with no sources and no watermark
     */
    public WatermarkTracker build() {
      return new WatermarkTracker(this);
    }
  }
}
