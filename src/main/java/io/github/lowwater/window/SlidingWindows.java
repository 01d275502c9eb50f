package io.github.lowwater.window;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import java.time.Duration;

/**
 * Keyed sliding event-time windows, defined by the records themselves: the windows of Kafka
 * Streams' {@code SlidingWindows.ofTimeDifferenceAndGrace(d, grace)} (KIP-450), "the last {@code d}
 * at every record". For each record of a key at {@code t}, the window that ends at it, holding the
 * key's records in {@code [t - d, t]}, and, when a record of the key lies in {@code (t, t + d]},
 * the window that starts just after it, {@code [t + 1, t + 1 + d]}: so every distinct non-empty set
 * of a key's records that lie within {@code d} of each other is one window. Written half-open as
 * every kind's windows are, a window is {@code [end - d - 1, end)}: Kafka Streams' inclusive {@code
 * [start, end]} is our {@code [start, end + 1)}.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread.</b> {@code add}
 * costs a key lookup, an insertion into the key's records in time order (a copy of the records it
 * precedes, none in order) and {@code O(log keys)} to reschedule the key; a window costs {@code
 * O(log keys)} when the watermark decides it and, when it is drained, a fold of its records with a
 * generic aggregator, amortized O(1) with a built-in {@code long} one ({@link Aggregators}: a
 * two-stack fold over the key's records, whose windows drain in order). The records of a key are
 * held until every window that can hold them is decided and drained: about {@code d} of event time
 * per key. No allocation at steady state with the built-in {@code long} aggregators (a key's arrays
 * grow by doubling and are reused). With panes, an early firing visits every key with records and
 * its windows that hold the marks crossed; a row holds the records that arrived before it, which
 * the built-in {@code long} aggregators fold through the same two-stack fold, started over for each
 * forward run of a key's rows (its early rows of one firing, its on-time rows between firings) and
 * after a record lands inside windows already folded; and records are held a grace period longer.
 * No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>The windows of a key are {@code [e - d - 1, e)} for each of its records at {@code e - 1}
 *       and, when a record lies in {@code [e - d - 1, e)}, for each of its records at {@code e - d
 *       - 2}; a window that both define is one window.
 *   <li>An event at {@code t} is <em>late</em> iff {@code t + 1 <= watermark} at its arrival: the
 *       window that ends at it, {@code [t - d, t + 1)}, is finalized. Counted once, handed to the
 *       late handler once, with {@code t + 1} as {@code windowEnd}. So every event that is not late
 *       is in every window that holds it: each of those ends after {@code t}, and none is closed.
 *       Kafka Streams takes a record until {@code t + 1 + d <= streamTime - grace} and puts one
 *       behind its own window into the windows open then, or into none (semantics rule 77).
 *   <li>A window is finalized once the watermark reaches its end, in ascending end order (equal
 *       ends in an order that depends only on the calls made), each exactly once; its value folds,
 *       in time order, the key's records in it.
 *   <li>If the aggregator's {@code add} or {@code result} throws during a drain, the window being
 *       folded stays at the head of the queue, unchanged, and the next drain folds it again (as a
 *       hopping window's {@code merge}): an aggregator that overflows there, as {@code sumLong}
 *       can, fails every drain until the caller stops; {@code add} cannot see it coming, since it
 *       folds nothing.
 *   <li>At the {@code long} bounds starts and ends saturate: the windows whose end would pass
 *       {@code Long.MAX_VALUE} are one window {@code [MAX - d - 1, MAX)} that holds the records
 *       through {@code MAX}, emitted if one of the windows it stands for exists.
 * </ol>
 *
 * <p>With {@link Builder#perSourceLateness() per-source lateness} (semantics rule 72) an event is
 * late iff {@code t + 1 <=} its own source's watermark; windows still close on the shared one, the
 * minimum, which is at most the source's: an event that is not late is in every window that holds
 * it, whatever the interleaving of the sources (not combined with panes).
 *
 * <h2>Early results and a grace period (semantics rule 79)</h2>
 *
 * With {@link Builder#earlyResults(Duration) earlyResults(Δ)} or {@link Builder#grace(Duration)
 * grace(G)} every row carries its pane (rule 49), per (window, key): a window is <em>open</em>
 * until the watermark reaches its end, <em>complete</em> then, and <em>retired</em> once {@code end
 * + G <= watermark}.
 *
 * <ul>
 *   <li><b>Early rows.</b> Sliding windows start at record times, so their marks are not their own:
 *       the marks are the multiples {@code kΔ} of event time. When the newest event time rises from
 *       N0 to N1 past a mark, every open window with a mark in {@code (max(N0, start), min(N1, end
 *       - 1)]} gets an {@code EARLY} row if it has had no row yet or holds a record that arrived
 *       since its last one.
 *   <li><b>On time.</b> When the watermark reaches its end, a window gets its {@code ON_TIME} row,
 *       final iff {@code end + G <= watermark}.
 *   <li><b>Late updates.</b> An event is late iff {@code t + 1 + G <= watermark}. One with {@code t
 *       + 1 <= watermark} is a late update: every complete window it joins, and every complete
 *       window it makes (which then has no on-time row), gets a {@code LATE} row.
 *   <li><b>Values.</b> A row holds the records of its window that arrived before it was produced,
 *       folded when it is drained: no aggregator needs {@code merge}.
 * </ul>
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <R> the result type
 */
public final class SlidingWindows<K, V, R> extends EventTimeWindows<K, V, R> {

  /** The longest time difference: {@code Long.MAX_VALUE / 4} ms, about 73 million years. */
  public static final long MAX_TIME_DIFFERENCE_MILLIS = Long.MAX_VALUE / 4;

  private final long timeDifferenceMillis;
  private final SlidingStore store;

  private SlidingWindows(Builder<? super V, R> builder) {
    super(builder);
    this.timeDifferenceMillis = builder.timeDifferenceMillis;
    this.store = new SlidingStore(timeDifferenceMillis, counters, earlyMillis, graceMillis);
  }

  /**
   * Returns a builder for sliding windows of the given time difference folded with the given
   * aggregator.
   *
   * @param timeDifference the largest difference between two records' times in one window, at least
   *     0; converted to milliseconds once, saturating (sub-millisecond parts are dropped)
   * @param aggregator folds the values of one key in one window; it need not merge
   * @param <V> the value type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code timeDifference} is negative or longer than {@link
   *     #MAX_TIME_DIFFERENCE_MILLIS} ms
   */
  public static <V, R> Builder<V, R> builder(
      Duration timeDifference, Aggregator<? super V, ?, R> aggregator) {
    return new Builder<>(timeDifference, aggregator);
  }

  /**
   * Returns the time difference in milliseconds: a window is {@code timeDifference + 1} long.
   *
   * @return the time difference, {@code >= 0}
   */
  public long timeDifferenceMillis() {
    return timeDifferenceMillis;
  }

  @Override
  public String toString() {
    return "SlidingWindows{timeDifferenceMillis=" + timeDifferenceMillis + ", " + stats() + "}";
  }

  @Override
  long lateEnd(long eventTimeMillis) {
    return TimeMath.saturatedAdd(eventTimeMillis, 1); // the window that ends at it
  }

  @Override
  long affectedEnd(long eventTimeMillis) {
    // The window that starts just after it, [t + 1, t + d + 2), exists only if it does.
    return TimeMath.saturatedAdd(TimeMath.saturatedAdd(eventTimeMillis, timeDifferenceMillis), 2);
  }

  @Override
  void accumulate(long eventTimeMillis, K key, V value, long watermark) {
    // The windows' own watermark, not the one the event was judged against (its source's, with
    // perSourceLateness, which may be higher): the windows decided so far are those it passed.
    store.add(keys.id(key), eventTimeMillis, value, watermark(), writtenThroughMillis);
  }

  @Override
  void closeReady(long watermark) {
    store.close(watermark, writtenThroughMillis);
  }

  @Override
  boolean noneReady() {
    return store.ready() == 0;
  }

  @Override
  int readyResults() {
    return store.ready();
  }

  @Override
  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    for (int i = 0; i < store.ready(); i++) {
      visit(i, visitor);
    }
  }

  @Override
  void takeReady() {
    while (store.ready() > 0) {
      taken();
    }
  }

  @Override
  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    int count = 0;
    while (store.ready() > 0) {
      visit(0, visitor);
      taken();
      count++;
    }
    return count;
  }

  private void visit(int i, ResultVisitor<? super K, ? super R> visitor) {
    SlidingRows rows = store.rows();
    @SuppressWarnings("unchecked") // keys are only ever added through add(..., K key, ...)
    K key = (K) keys.key(rows.key(i));
    long end = rows.end(i);
    long start = store.startOf(end);
    Timing timing = rows.timing(i);
    int index = rows.index(i);
    boolean isFinal = rows.isFinal(i);
    if (longFold != null) {
      visitor.visitLongPane(start, end, key, store.foldLong(i, longFold), timing, index, isFinal);
    } else {
      visitor.visitPane(
          start,
          end,
          key,
          aggregator.result(store.fold(i, objectAggregator())),
          timing,
          index,
          isFinal);
    }
  }

  /** Rule 79: the open windows with a mark {@code kΔ} in {@code (previous, newest]} fire. */
  @Override
  void newestRose(long previous, long newest) {
    store.fireEarly(previous, newest, writtenThroughMillis); // called only with early results
  }

  @Override
  void replayRows(boolean on) {
    store.replaying(on);
  }

  private void taken() {
    store.take();
    keys.emitted();
  }

  @Override
  void markLiveIds(long[] live) {
    store.markIds(live);
  }

  /**
   * Configures {@link SlidingWindows}: the time difference and the aggregator, and the options
   * every kind shares ({@link WindowOptions}).
   *
   * @param <V> the value type
   * @param <R> the result type
   */
  public static final class Builder<V, R> extends WindowOptions<V, R, Builder<V, R>> {
    private final long timeDifferenceMillis;

    private Builder(Duration timeDifference, Aggregator<? super V, ?, R> aggregator) {
      super(aggregator);
      Checks.requireNonNegative(timeDifference, "timeDifference");
      long millis = TimeMath.toMillisSaturated(timeDifference);
      if (millis > MAX_TIME_DIFFERENCE_MILLIS) {
        throw new IllegalArgumentException(
            "timeDifference must be at most "
                + MAX_TIME_DIFFERENCE_MILLIS
                + " ms (Long.MAX_VALUE / 4: a longer one ends windows past Long.MAX_VALUE): "
                + timeDifference);
      }
      this.timeDifferenceMillis = millis;
    }

    /**
     * Builds the windows, with no source, no record and no watermark.
     *
     * @param <K> the key type
     * @param <W> the value type: the builder's, or a subtype
     * @return new windows
     * @throws IllegalStateException if {@code perSourceLateness} is combined with early results or
     *     a grace period
     */
    public <K, W extends V> SlidingWindows<K, W, R> build() {
      checkPerSourceLateness("sliding windows", true, false);
      return new SlidingWindows<K, W, R>(this);
    }
  }
}
