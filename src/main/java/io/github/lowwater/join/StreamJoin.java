package io.github.lowwater.join;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A keyed join of two streams in event time: a left record at {@code l} and a right record at
 * {@code r} of the same key pair iff {@code r - l} lies in the {@link JoinInterval}; inner, left or
 * outer ({@link JoinType}). Kafka Streams' {@code KStream.join/leftJoin/outerJoin} with {@code
 * JoinWindows}, and Flink's interval join, with one watermark over the sources of both streams.
 *
 * <p><b>Not thread-safe; confine every call to one thread</b> (the polling thread). {@link
 * #addLeft} and {@link #addRight} cost O(records of the key buffered on the other side) plus the
 * watermark's amortised O(log sources) and O(log buffered) per record buffered or released; each
 * buffered record is one entry object, each row one {@link JoinRow}. No threads are started.
 *
 * <h2>Rules (docs/semantics.md, "Two streams")</h2>
 *
 * <ol>
 *   <li>(67) Records pair iff {@link JoinInterval#pairs} says so; the key is compared with {@code
 *       equals}. A pair's row is stamped with the later of the two times.
 *   <li>(68) A record is <em>late</em> iff its time is below the watermark it is judged against
 *       when it arrives, before it is observed: its own source's newest time minus the allowed
 *       lateness, or the shared watermark if that is higher (after a quiet-period advance, or
 *       {@link #finish()}, after which every record is late). A late record pairs with nothing and
 *       gives no unmatched row: it is counted ({@link #late(JoinSide)}), observed as activity of
 *       its source, and handed to the {@link LateJoinHandler}. Every other record pairs with every
 *       record of the other side that is not late and lies in its interval, whatever the arrival
 *       order; and since each verdict depends on its own source's records only, every interleaving
 *       of the same sources' records gives the same rows.
 *   <li>(69) A pair's row is emitted when its second record arrives. A record waits for partners
 *       until the watermark passes the last time a partner may have ({@code l + upper} for a left
 *       record, {@code r - lower} for a right one); then, if it paired with nothing and the join
 *       type keeps its side, its unmatched row is emitted. No row is ever retracted: an unmatched
 *       row is emitted only when no on-time partner can still arrive.
 *   <li>(70) {@link #finish()} raises the watermark to {@code Long.MAX_VALUE}: every waiting record
 *       is released, and every later record is late. A record with a {@code null} key pairs with
 *       nothing: judged and observed as any other, an on-time one gives its unmatched row at once
 *       if the type keeps its side (Kafka Streams' left and outer joins do the same), and nothing
 *       otherwise.
 * </ol>
 *
 * <p>The watermark is a {@link WatermarkTracker}'s over the sources given to {@code add}: the
 * minimum over the active sources of their frontier minus the allowed lateness, with idleness and
 * {@link #advanceTo}. Give the two streams' sources distinct identities (in Kafka, their {@code
 * TopicPartition}s are), so that a slow side holds the watermark back for both.
 *
 * <h2>Example</h2>
 *
 * <pre>{@code
 * StreamJoin<String, Order, Payment, Paid> join =
 *     StreamJoin.builder(
 *             JoinInterval.between(Duration.ZERO, Duration.ofMinutes(30)),
 *             (String id, Order o, Payment p) -> new Paid(id, o, p))
 *         .type(JoinType.LEFT)
 *         .allowedLateness(Duration.ofSeconds(30))
 *         .build();
 * join.addLeft(orderPartition, order.time(), order.id(), order);
 * join.addRight(paymentPartition, payment.time(), payment.orderId(), payment);
 * for (JoinRow<String, Paid> row : join.pollResults()) { ... }
 * }</pre>
 *
 * @param <K> the key type
 * @param <L> the left value type
 * @param <R> the right value type
 * @param <O> the rows' value type
 */
public final class StreamJoin<K, L, R, O> {

  private final JoinInterval interval;
  private final JoinType type;
  private final Joiner<? super K, ? super L, ? super R, ? extends O> joiner;
  private final LateJoinHandler<? super K> lateHandler;
  private final WatermarkTracker tracker;
  private final JoinBuffer<K, L> left = new JoinBuffer<>();
  private final JoinBuffer<K, R> right = new JoinBuffer<>();
  private List<JoinRow<K, O>> rows = new ArrayList<>();

  /** The partners the record being added paired with; empty between calls. */
  private final List<JoinBuffer.Entry<?, ?>> paired = new ArrayList<>();

  private long lateLeft;
  private long lateRight;
  private long pairs;
  private long unmatched;

  private StreamJoin(Builder<K, L, R, O> b) {
    this.interval = b.interval;
    this.type = b.type == null ? JoinType.INNER : b.type;
    this.joiner = b.joiner;
    this.lateHandler = b.lateHandler;
    this.tracker = b.tracker.build();
  }

  /**
   * Returns a builder of a join over {@code interval} whose rows {@code joiner} computes.
   *
   * @param interval which times pair
   * @param joiner computes each row's value
   * @param <K> the key type
   * @param <L> the left value type
   * @param <R> the right value type
   * @param <O> the rows' value type
   * @return a new builder; an inner join with the core's defaults until set otherwise
   * @throws NullPointerException if {@code interval} or {@code joiner} is null
   */
  public static <K, L, R, O> Builder<K, L, R, O> builder(
      JoinInterval interval, Joiner<? super K, ? super L, ? super R, ? extends O> joiner) {
    return new Builder<>(interval, joiner);
  }

  /**
   * Adds a left record: pairs it with the buffered right records of its key (rule 67), buffers it,
   * observes it, and releases the records the watermark has passed (rule 69); or, if it is late,
   * hands it to the late path (rule 68).
   *
   * <p>If the joiner throws while pairing this record, nothing changed: the record is neither
   * buffered nor observed, and the caller may skip it or retry. If it throws while computing the
   * unmatched row of an earlier record that this call released, this record has been added, and the
   * row stays due: the next call that reaches the release emits it.
   *
   * @param source the record's source, for example its Kafka {@code TopicPartition}, or its handle
   *     from {@link #source(Object)}
   * @param timeMillis the record's event time in epoch milliseconds; any {@code long}
   * @param key the key; {@code null} pairs with nothing: an on-time record's unmatched row comes at
   *     once if the type keeps its side (rule 70)
   * @param value the value
   * @return {@code true} if the record was joined, {@code false} if it was late
   * @throws NullPointerException if {@code source} or {@code value} is null; nothing changes
   * @throws IllegalArgumentException if {@code source} is a handle of another join; nothing changes
   */
  public boolean addLeft(Object source, long timeMillis, K key, L value) {
    return add(JoinSide.LEFT, source, timeMillis, key, value, left, right);
  }

  /**
   * Adds a right record; see {@link #addLeft}, with the sides swapped.
   *
   * @param source the record's source, or its handle from {@link #source(Object)}
   * @param timeMillis the record's event time in epoch milliseconds; any {@code long}
   * @param key the key; {@code null} pairs with nothing: an on-time record's unmatched row comes at
   *     once if the type keeps its side (rule 70)
   * @param value the value
   * @return {@code true} if the record was joined, {@code false} if it was late
   * @throws NullPointerException if {@code source} or {@code value} is null; nothing changes
   * @throws IllegalArgumentException if {@code source} is a handle of another join; nothing changes
   */
  public boolean addRight(Object source, long timeMillis, K key, R value) {
    return add(JoinSide.RIGHT, source, timeMillis, key, value, right, left);
  }

  private <T, U> boolean add(
      JoinSide side,
      Object source,
      long timeMillis,
      K key,
      T value,
      JoinBuffer<K, T> own,
      JoinBuffer<K, U> other) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(value, "value");
    WatermarkTracker.Source handle = null;
    if (source instanceof WatermarkTracker.Source h) {
      if (!h.belongsTo(tracker)) {
        throw new IllegalArgumentException("source handle belongs to another join: " + h.key());
      }
      handle = h;
      source = h.key(); // what the late handler sees
    }
    long watermark = judgedAgainst(handle != null ? handle : source);
    if (timeMillis < watermark || watermark == Long.MAX_VALUE) {
      if (side == JoinSide.LEFT) {
        lateLeft++;
      } else {
        lateRight++;
      }
      observe(handle, source, timeMillis);
      if (lateHandler != null) {
        lateHandler.onLateRecord(side, source, timeMillis, watermark, key, value);
      }
      release();
      return false;
    }
    if (key == null) {
      return addUnkeyed(side, handle, source, timeMillis, value);
    }
    int before = rows.size();
    try {
      for (JoinBuffer.Entry<K, U> p : other.of(key)) {
        if (pairs(side, timeMillis, p.timeMillis)) {
          rows.add(pairRow(side, key, timeMillis, value, p));
          paired.add(p);
        }
      }
    } catch (RuntimeException | Error e) {
      rows.subList(before, rows.size()).clear();
      paired.clear();
      throw e;
    }
    boolean matched = !paired.isEmpty();
    for (JoinBuffer.Entry<?, ?> p : paired) {
      p.matched = true; // only once every row is computed: a throwing joiner changes nothing
    }
    paired.clear();
    pairs += rows.size() - before;
    own.add(key, timeMillis, value, interval.closeMillis(side, timeMillis)).matched = matched;
    observe(handle, source, timeMillis);
    release();
    return true;
  }

  /**
   * An on-time record with a {@code null} key (rule 70): it pairs with nothing, so its unmatched
   * row, if the type keeps its side, is emitted at once; it is not buffered. The row is computed
   * before anything changes: a joiner that throws leaves the join as it was.
   */
  @SuppressWarnings("unchecked") // the side's value type is L or R by construction
  private <T> boolean addUnkeyed(
      JoinSide side, WatermarkTracker.Source handle, Object source, long timeMillis, T value) {
    if (type.emitsUnmatched(side)) {
      O v =
          side == JoinSide.LEFT
              ? joiner.join(null, (L) value, null)
              : joiner.join(null, null, (R) value);
      JoinRow.Kind kind = side == JoinSide.LEFT ? JoinRow.Kind.LEFT_ONLY : JoinRow.Kind.RIGHT_ONLY;
      rows.add(new JoinRow<>(kind, null, timeMillis, v));
      unmatched++;
    }
    observe(handle, source, timeMillis);
    release();
    return true;
  }

  /** Observes through the handle when there is one: no hash lookup of the source. */
  private void observe(WatermarkTracker.Source handle, Object source, long timeMillis) {
    if (handle != null) {
      tracker.observe(handle, timeMillis);
    } else {
      tracker.observe(source, timeMillis);
    }
  }

  /**
   * Returns the handle of a source, registering it if it is unknown (so that it holds the watermark
   * from now on). Pass it to {@link #addLeft} and {@link #addRight} in place of the source to skip
   * the source's hash lookups per record (two of the four a record costs); the late handler still
   * sees the source itself.
   *
   * @param source the source
   * @return its handle in this join
   * @throws NullPointerException if {@code source} is null
   */
  public WatermarkTracker.Source source(Object source) {
    return tracker.source(source);
  }

  /**
   * The watermark a record of {@code source} is judged against (rule 68): its source's newest time
   * minus the allowed lateness, never below the shared watermark (which only a quiet-period
   * advance, idleness or {@code finish} lifts above it).
   */
  private long judgedAgainst(Object source) {
    return Math.max(tracker.watermark(), tracker.sourceWatermark(source));
  }

  private boolean pairs(JoinSide side, long timeMillis, long otherMillis) {
    return side == JoinSide.LEFT
        ? interval.pairs(timeMillis, otherMillis)
        : interval.pairs(otherMillis, timeMillis);
  }

  @SuppressWarnings("unchecked") // the sides' value types are L and R by construction
  private <T, U> JoinRow<K, O> pairRow(
      JoinSide side, K key, long timeMillis, T value, JoinBuffer.Entry<K, U> partner) {
    O joined =
        side == JoinSide.LEFT
            ? joiner.join(key, (L) value, (R) partner.value)
            : joiner.join(key, (L) partner.value, (R) value);
    return new JoinRow<>(JoinRow.Kind.PAIR, key, Math.max(timeMillis, partner.timeMillis), joined);
  }

  /** Releases, in the order their waiting ends (left first on a tie), every record now passed. */
  private void release() {
    long watermark = tracker.watermark();
    while (true) {
      JoinBuffer.Entry<K, L> l = left.firstClosed(watermark);
      JoinBuffer.Entry<K, R> r = right.firstClosed(watermark);
      if (l == null && r == null) {
        return;
      }
      if (l != null && (r == null || l.closeMillis <= r.closeMillis)) {
        if (!l.matched && type.emitsUnmatched(JoinSide.LEFT)) {
          O v = joiner.join(l.key, l.value, null);
          rows.add(new JoinRow<>(JoinRow.Kind.LEFT_ONLY, l.key, l.timeMillis, v));
          unmatched++;
        }
        left.removeFirst();
      } else {
        if (!r.matched && type.emitsUnmatched(JoinSide.RIGHT)) {
          O v = joiner.join(r.key, null, r.value);
          rows.add(new JoinRow<>(JoinRow.Kind.RIGHT_ONLY, r.key, r.timeMillis, v));
          unmatched++;
        }
        right.removeFirst();
      }
    }
  }

  /**
   * Takes the rows emitted since the last call, in emission order: the pairs of a record in the
   * arrival order of its partners, then the unmatched rows in the order their waiting ended.
   *
   * @return the rows; a new list the caller owns, empty if none
   */
  public List<JoinRow<K, O>> pollResults() {
    if (rows.isEmpty()) {
      return List.of();
    }
    List<JoinRow<K, O>> taken = rows;
    rows = new ArrayList<>();
    return taken;
  }

  /**
   * Re-evaluates idleness and the watermark without a record, then releases what it passed; see
   * {@link WatermarkTracker#refresh()}.
   */
  public void refresh() {
    tracker.refresh();
    release();
  }

  /**
   * The quiet-period hook: see {@link WatermarkTracker#advanceTo(long)}; then releases what the
   * watermark passed.
   *
   * @param wallMillis the wall-clock time in epoch milliseconds
   */
  public void advanceTo(long wallMillis) {
    tracker.advanceTo(wallMillis);
    release();
  }

  /** The end of the input (rule 70): every waiting record is released; later records are late. */
  public void finish() {
    tracker.finish();
    release();
  }

  /**
   * Registers a source before its first record, so that it holds the watermark from the start (a
   * side that has sent nothing yet must not let the other side's records be released unpaired).
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void register(Object source) {
    tracker.register(source);
  }

  /**
   * Forgets a source (in Kafka: a revoked partition); the watermark may rise, and what it passes is
   * released.
   *
   * @param source the source
   * @return whether it was known
   */
  public boolean remove(Object source) {
    boolean known = tracker.remove(source);
    release();
    return known;
  }

  /**
   * A punctuation: {@code source} vouches that none of its records still to come is earlier than
   * {@code watermarkMillis} (no lateness is subtracted). Its own watermark rises to at least that,
   * its records are judged against it (rule 68), and waiting records the shared watermark now
   * passes are released. This is how a consumer group's new owner restores a source's watermark
   * from a checkpoint: the previous owner's verdicts are then the new owner's.
   *
   * @param source the source, or its handle
   * @param watermarkMillis the source's own watermark in epoch milliseconds
   * @throws NullPointerException if {@code source} is null
   */
  public void punctuate(Object source, long watermarkMillis) {
    Objects.requireNonNull(source, "source");
    tracker.punctuate(
        source instanceof WatermarkTracker.Source h ? h.key() : source, watermarkMillis);
    release();
  }

  /**
   * Returns a source's own watermark: its newest record's time minus the allowed lateness, or its
   * punctuation if higher. A record of the source is late iff it is earlier than this or than the
   * shared {@link #watermark()} (rule 68). No side effect.
   *
   * @param source the source, or its handle
   * @return the source's own watermark in epoch milliseconds, or {@link WatermarkTracker#UNSEEN} if
   *     the source has contributed nothing yet
   * @throws NullPointerException if {@code source} is null
   */
  public long sourceWatermark(Object source) {
    return tracker.sourceWatermark(Objects.requireNonNull(source, "source"));
  }

  /**
   * Returns the watermark.
   *
   * @return the watermark in epoch milliseconds, {@link WatermarkTracker#NO_WATERMARK} before the
   *     first record
   */
  public long watermark() {
    return tracker.watermark();
  }

  /**
   * Returns the number of records of a side still waiting for partners.
   *
   * @param side the side
   * @return the number buffered
   */
  public int buffered(JoinSide side) {
    return side == JoinSide.LEFT ? left.size() : right.size();
  }

  /**
   * Returns the number of late records of a side so far (rule 68).
   *
   * @param side the side
   * @return the count
   */
  public long late(JoinSide side) {
    return side == JoinSide.LEFT ? lateLeft : lateRight;
  }

  /**
   * Returns the number of pair rows emitted so far.
   *
   * @return the count
   */
  public long pairs() {
    return pairs;
  }

  /**
   * Returns the number of unmatched rows emitted so far.
   *
   * @return the count
   */
  public long unmatched() {
    return unmatched;
  }

  /**
   * Returns the join's interval.
   *
   * @return the interval
   */
  public JoinInterval interval() {
    return interval;
  }

  /**
   * Returns the join's type.
   *
   * @return the type
   */
  public JoinType type() {
    return type;
  }

  @Override
  public String toString() {
    return "StreamJoin["
        + type
        + " "
        + interval
        + ", watermark "
        + tracker.watermark()
        + ", buffered "
        + left.size()
        + " left "
        + right.size()
        + " right]";
  }

  /**
   * Builds a {@link StreamJoin}. Every option may be set at most once; setting one twice throws
   * {@link IllegalStateException}. Not thread-safe.
   *
   * @param <K> the key type
   * @param <L> the left value type
   * @param <R> the right value type
   * @param <O> the rows' value type
   */
  public static final class Builder<K, L, R, O> {
    private final JoinInterval interval;
    private final Joiner<? super K, ? super L, ? super R, ? extends O> joiner;
    private final WatermarkTracker.Builder tracker = WatermarkTracker.builder();
    private JoinType type;
    private LateJoinHandler<? super K> lateHandler;
    private Duration allowedLateness;
    private Duration idleTimeout;
    private Clock clock;

    private Builder(
        JoinInterval interval, Joiner<? super K, ? super L, ? super R, ? extends O> joiner) {
      this.interval = Objects.requireNonNull(interval, "interval");
      this.joiner = Objects.requireNonNull(joiner, "joiner");
    }

    /**
     * Sets the join type. Default {@link JoinType#INNER}.
     *
     * @param type the type
     * @return this builder
     * @throws NullPointerException if {@code type} is null
     * @throws IllegalStateException if the type was already set
     */
    public Builder<K, L, R, O> type(JoinType type) {
      Objects.requireNonNull(type, "type");
      Checks.requireUnset(this.type == null, "type", this.type);
      this.type = type;
      return this;
    }

    /**
     * Sets the allowed lateness of the watermark; see {@link
     * WatermarkTracker.Builder#allowedLateness}. Default 120 seconds. A record is late iff its time
     * is below its source's newest time less this (rule 68). Kafka Streams' {@code
     * JoinWindows.ofTimeDifferenceAndGrace(d, grace)} maps to {@code allowedLateness(d + grace)},
     * its {@code after} plus its grace, not to its grace alone (see {@link JoinInterval#within}).
     *
     * @param allowedLateness the allowed lateness, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if it is negative
     * @throws IllegalStateException if it was already set
     */
    public Builder<K, L, R, O> allowedLateness(Duration allowedLateness) {
      Checks.requireNonNegative(allowedLateness, "allowedLateness");
      Checks.requireUnset(this.allowedLateness == null, "allowedLateness", this.allowedLateness);
      this.allowedLateness = allowedLateness;
      tracker.allowedLateness(allowedLateness);
      return this;
    }

    /**
     * Sets the idle timeout of the sources; see {@link WatermarkTracker.Builder#idleTimeout}.
     * Default 120 seconds.
     *
     * @param idleTimeout the idle timeout, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code idleTimeout} is null
     * @throws IllegalArgumentException if it is zero or negative
     * @throws IllegalStateException if it was already set
     */
    public Builder<K, L, R, O> idleTimeout(Duration idleTimeout) {
      Checks.requirePositive(idleTimeout, "idleTimeout");
      Checks.requireUnset(this.idleTimeout == null, "idleTimeout", this.idleTimeout);
      this.idleTimeout = idleTimeout;
      tracker.idleTimeout(idleTimeout);
      return this;
    }

    /**
     * Sets the clock that idleness and {@link StreamJoin#advanceTo} use. Default {@link
     * Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if it was already set
     */
    public Builder<K, L, R, O> clock(Clock clock) {
      Objects.requireNonNull(clock, "clock");
      Checks.requireUnset(this.clock == null, "clock", this.clock);
      this.clock = clock;
      tracker.clock(clock);
      return this;
    }

    /**
     * Sets the handler of late records (rule 68). Default none: late records are only counted.
     *
     * @param lateHandler the handler
     * @return this builder
     * @throws NullPointerException if {@code lateHandler} is null
     * @throws IllegalStateException if it was already set
     */
    public Builder<K, L, R, O> lateHandler(LateJoinHandler<? super K> lateHandler) {
      Objects.requireNonNull(lateHandler, "lateHandler");
      Checks.requireUnset(this.lateHandler == null, "lateHandler", this.lateHandler);
      this.lateHandler = lateHandler;
      return this;
    }

    /**
     * Builds the join.
     *
     * @return a new join with no record
     */
    public StreamJoin<K, L, R, O> build() {
      return new StreamJoin<>(this);
    }
  }
}
