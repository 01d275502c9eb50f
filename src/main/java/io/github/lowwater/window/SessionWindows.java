package io.github.lowwater.window;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.Arrays;

/**
 * Keyed event-time session windows: the events of a key, split wherever two consecutive event times
 * are at least {@code gap} apart. A session is {@code [first, last + gap)}, where {@code first} and
 * {@code last} are its earliest and latest event times.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread.</b> {@code add}
 * costs one key lookup and a walk of the key's open sessions (one, unless the key's events are more
 * disordered than the gap), plus {@code O(log open sessions)} when a session opens, merges or
 * closes; an event that only moves a session's end later costs no heap work until the watermark
 * reaches the session's earlier end. No allocation at steady state with the built-in {@code long}
 * aggregators (sessions are slots of primitive arrays, reused). No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>An event at {@code t} <em>joins</em> an open session of its key when {@code first - gap < t
 *       < last + gap}: the gap is strict, so two events exactly {@code gap} apart are in two
 *       sessions. An event that joins several open sessions merges them into one ({@link
 *       Aggregator#merge}). The sessions of a key are therefore those of its events taken together,
 *       in whatever order they came, as long as none was emitted in between.
 *   <li>An event is <em>late</em> iff it joins no open session and {@code t + gap <= watermark} at
 *       its arrival (a session it would start is already complete): counted, handed to the late
 *       handler with {@code t + gap} as {@code windowEnd}. An emitted session never changes: an
 *       event within the gap of an emitted session that is not late starts a new session.
 *   <li>A session is finalized once the watermark reaches its end {@code last + gap}; sessions are
 *       emitted in ascending (end, start) order, each exactly once, one result each.
 *   <li>With a {@linkplain Builder#maxSessionSpan maximum span} {@code M}, sessions are cut at the
 *       multiples of {@code M}: an event joins only the open sessions whose first event lies in its
 *       cell {@code [k * M, (k + 1) * M)}, and rule 2 reads "joins no open session of its cell".
 *   <li>Kafka Streams and Flink join two events exactly {@code g} apart: their inclusive gap {@code
 *       g} is our strict gap {@code g + 1 ms}, and their session {@code [first, last]} is our
 *       {@code [first, last + gap)}.
 * </ol>
 *
 * <p><b>Panes.</b> With {@link Builder#earlyResults early results} or a {@link Builder#grace grace
 * period} (semantics rule 56) a session gets {@code EARLY} rows at the marks {@code first + k *
 * delta} of its current span, its {@code ON_TIME} row when the watermark reaches its end, and a
 * {@code LATE} row for each event that joins it until {@code end + grace <= watermark}, when it
 * retires. An event is then late iff {@code t + gap + grace <= watermark}, even if it would join a
 * live session, so that (start, key) names one session for good. A session whose first event time
 * moves earlier, or that absorbs sessions that had rows, says which rows it replaces ({@link
 * WindowResult#replaces()}, {@link ResultVisitor#visitReplaced}).
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <R> the result type
 */
public final class SessionWindows<K, V, R> extends EventTimeWindows<K, V, R> {

  private final long gapMillis;
  private final long maxSpanMillis;

  /** Without panes: the sessions, emitted once each; {@code null} with panes. */
  private final SessionTable sessions;

  /** With panes (early results or a grace period): the sessions and their rows; else null. */
  private final PanedSessions<K, R> panes;

  /** Finalized sessions waiting for a drain, by slot, in the order they were finalized. */
  private int[] finalized = new int[16];

  private int finalizedHead;
  private int finalizedTail;

  private SessionWindows(Builder<? super V, R> builder) {
    super(builder);
    this.gapMillis = builder.gapMillis;
    this.maxSpanMillis = builder.maxSpanMillis;
    if (builder.paned()) {
      this.sessions = null;
      this.panes =
          new PanedSessions<>(
              gapMillis, maxSpanMillis, earlyMillis, graceMillis, keys, counters, aggregator);
    } else {
      this.sessions = new SessionTable(gapMillis, maxSpanMillis, longFold, objectAggregator());
      this.panes = null;
    }
  }

  /**
   * Returns a builder for session windows of the given gap folded with the given aggregator.
   *
   * @param gap the gap that ends a session, at least one millisecond; converted to milliseconds
   *     once, saturating (sub-millisecond parts are dropped)
   * @param aggregator folds the values of one key, and {@linkplain Aggregator#merge merges}
   *     sessions that an event joins
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code gap} is shorter than one millisecond
   */
  public static <V, R> Builder<V, R> builder(Duration gap, Aggregator<? super V, ?, R> aggregator) {
    return new Builder<>(gap, aggregator);
  }

  /**
   * Returns the gap in milliseconds.
   *
   * @return the gap, {@code >= 1}
   */
  public long gapMillis() {
    return gapMillis;
  }

  /**
   * Returns the maximum session span in milliseconds, or 0 when sessions are not cut.
   *
   * @return the span of the cells sessions are cut at, or 0
   */
  public long maxSpanMillis() {
    return maxSpanMillis;
  }

  /**
   * Returns the earliest start of the sessions not handed out yet: the open ones and the finalized
   * ones waiting for a drain; with panes, every session not retired and every row waiting for a
   * drain. {@code Long.MAX_VALUE} when there is none. Every event accepted so far at an earlier
   * time is in a session already handed out. O(pending sessions, and rows with panes); no
   * allocation. Writer thread only.
   *
   * @return the earliest pending session start in epoch milliseconds, or {@code Long.MAX_VALUE}
   */
  public long oldestPendingStartMillis() {
    if (panes != null) {
      return panes.oldestPendingStart();
    }
    long oldest = sessions.oldestOpenFirst();
    for (int i = finalizedHead; i < finalizedTail; i++) {
      oldest = Math.min(oldest, sessions.first(finalized[i]));
    }
    return oldest;
  }

  /**
   * Returns the number of sessions not handed out yet: open, or finalized and waiting for a drain;
   * with panes, the sessions not retired plus the rows waiting for a drain (the walk {@link
   * #oldestPendingStartMillis} makes). O(1). Writer thread only.
   *
   * @return the pending sessions
   */
  public int pendingSessions() {
    if (panes != null) {
      return panes.pending();
    }
    return sessions.openCount() + finalizedTail - finalizedHead;
  }

  @Override
  public String toString() {
    return "SessionWindows{gapMillis="
        + gapMillis
        + (maxSpanMillis == 0 ? "" : ", maxSpanMillis=" + maxSpanMillis)
        + ", "
        + stats()
        + "}";
  }

  @Override
  long lateEnd(long eventTimeMillis) {
    return TimeMath.saturatedAdd(eventTimeMillis, gapMillis);
  }

  @Override
  boolean joinsOpen(long eventTimeMillis, K key) {
    if (panes != null) {
      // With panes an event whose own gap ended by the watermark less the grace period is late
      // even if it would join a live session: no session ever reaches back over a retired one of
      // its key, so (start, key) names one session for good (rule 56).
      return false;
    }
    int id = keys.find(key);
    return id >= 0 && sessions.joinsOpen(id, eventTimeMillis);
  }

  @Override
  void accumulate(long eventTimeMillis, K key, V value, long watermark) {
    int id = keys.id(key);
    if (panes != null) {
      panes.accumulate(id, eventTimeMillis, value, watermark, writtenThroughMillis, newestMillis());
      return;
    }
    int opened = sessions.add(id, eventTimeMillis, value);
    if (opened == 1) {
      counters.windowOpened();
      counters.entryOpened();
    } else {
      for (int i = opened; i < 0; i++) {
        counters.windowClosed(1); // merged away
      }
    }
  }

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
    int slot;
    while ((slot = sessions.closeNext(watermark)) >= 0) {
      if (sessions.end(slot) <= writtenThroughMillis) {
        sessions.free(slot); // written elsewhere (markWritten): never emitted again
        counters.windowClosed(1);
        continue;
      }
      if (finalizedTail == finalized.length) {
        compactFinalized();
      }
      finalized[finalizedTail++] = slot;
      counters.windowClosed(1);
      counters.windowFinalized();
    }
  }

  private void compactFinalized() {
    int waiting = finalizedTail - finalizedHead;
    if (waiting * 2 > finalized.length) {
      finalized = Arrays.copyOf(finalized, finalized.length * 2);
    }
    System.arraycopy(finalized, finalizedHead, finalized, 0, waiting);
    finalizedHead = 0;
    finalizedTail = waiting;
  }

  @Override
  boolean noneReady() {
    if (panes != null) {
      return panes.noneReady();
    }
    return finalizedHead == finalizedTail;
  }

  @Override
  int readyResults() {
    if (panes != null) {
      return panes.readyResults();
    }
    return finalizedTail - finalizedHead;
  }

  @Override
  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    if (panes != null) {
      panes.visitReady(visitor);
      return;
    }
    for (int i = finalizedHead; i < finalizedTail; i++) {
      visit(finalized[i], visitor);
    }
  }

  @Override
  void takeReady() {
    if (panes != null) {
      panes.takeReady();
      return;
    }
    while (finalizedHead < finalizedTail) {
      emitted();
    }
  }

  @Override
  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    if (panes != null) {
      return panes.drainReady(visitor);
    }
    int count = 0;
    while (finalizedHead < finalizedTail) {
      visit(finalized[finalizedHead], visitor);
      emitted();
      count++;
    }
    return count;
  }

  private void visit(int slot, ResultVisitor<? super K, ? super R> visitor) {
    @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
    K key = (K) keys.key(sessions.keyId(slot));
    if (longFold != null) {
      visitor.visitLongPane(
          sessions.first(slot),
          sessions.end(slot),
          key,
          sessions.longAt(slot),
          Timing.ON_TIME,
          0,
          true);
    } else {
      visitor.visitPane(
          sessions.first(slot),
          sessions.end(slot),
          key,
          aggregator.result(sessions.objectAt(slot)),
          Timing.ON_TIME,
          0,
          true);
    }
  }

  private void emitted() {
    sessions.free(finalized[finalizedHead++]);
    keys.emitted();
    if (finalizedHead == finalizedTail) {
      finalizedHead = 0;
      finalizedTail = 0;
    }
  }

  @Override
  void markLiveIds(long[] live) {
    if (panes != null) {
      panes.markIds(live);
      return;
    }
    sessions.markIds(live);
    for (int i = finalizedHead; i < finalizedTail; i++) {
      int id = sessions.keyId(finalized[i]);
      live[id >>> 6] |= 1L << id;
    }
  }

  /**
   * Configures {@link SessionWindows}: the gap and the aggregator, and the options every kind
   * shares ({@link WindowOptions}).
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> extends WindowOptions<V, R, Builder<V, R>> {
    private final long gapMillis;
    private long maxSpanMillis;

    private Builder(Duration gap, Aggregator<? super V, ?, R> aggregator) {
      super(aggregator);
      this.gapMillis = Checks.requireMillis(gap, "gap");
    }

    /**
     * Cuts sessions at the multiples of {@code span} since the epoch: no session holds events of
     * two cells {@code [k * span, (k + 1) * span)}, so a session spans less than {@code span} of
     * event time and ends less than {@code span + gap} after its start. An event joins only the
     * open sessions of its cell. The cut depends only on event times, so every reader of the same
     * events cuts at the same places. For a key that is never silent for a gap (a session that
     * would never end and, behind {@code KafkaWindows}, hold the committed offset back forever).
     * Default: sessions are not cut.
     *
     * @param span the cell size, at least the gap
     * @return this builder
     * @throws NullPointerException if {@code span} is null
     * @throws IllegalArgumentException if {@code span} is shorter than the gap
     * @throws IllegalStateException if the span was already set
     */
    public Builder<V, R> maxSessionSpan(Duration span) {
      long millis = Checks.requireMillis(span, "maxSessionSpan");
      Checks.requireUnset(maxSpanMillis == 0, "maxSessionSpan", Duration.ofMillis(maxSpanMillis));
      if (millis < gapMillis) {
        throw new IllegalArgumentException(
            "maxSessionSpan must be at least the gap ("
                + Duration.ofMillis(gapMillis)
                + "): "
                + span);
      }
      maxSpanMillis = millis;
      return this;
    }

    /**
     * Builds the windows, with no source, no open session and no watermark.
     *
     * @param <K> the key type
     * @param <W> the value type: the builder's, or a subtype
     * @return new windows
     * @throws IllegalArgumentException if the aggregator does not implement {@link
     *     Aggregator#merge}
     */
    public <K, W extends V> SessionWindows<K, W, R> build() {
      checkPerSourceLateness("session windows", false, false);
      requireMerging("session windows");
      return new SessionWindows<K, W, R>(this);
    }
  }

  @Override
  void replayRows(boolean on) {
    if (panes != null) {
      panes.replaying(on);
    }
  }
}
