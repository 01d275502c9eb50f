package io.github.lowwater.kafka;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.EventTimeOptions;
import io.github.lowwater.window.FutureEventPolicy;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.SlidingWindows;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The options of {@link KafkaWindows.Builder}, their checks, and the {@link KafkaSettings} they
 * freeze into: the builder's role, in its own file (issue 46). Its only subclass is {@code
 * KafkaWindows.Builder}, which adds the constructor the factory methods call and {@code build()};
 * every public method here is documented as that builder's.
 *
 * @param <V> the value type
 * @param <R> the result type
 */
abstract sealed class KafkaWindowsBuilder<V, R> extends EventTimeOptions<KafkaWindows.Builder<V, R>>
    permits KafkaWindows.Builder {

  /** No alignment: {@code maxDrift} not set. */
  static final long NO_DRIFT = Long.MAX_VALUE;

  private final Duration size;
  private final Duration gap;
  private final CalendarPeriod period;
  private final Duration timeDifference;
  private final Aggregator<? super V, ?, R> aggregator;

  private Duration advance;
  private Duration offset;
  private Duration maxSessionSpan;
  private LateRecordHandler lateRecordHandler;
  private ResultScope resultScope;
  private long groupWatermarkIntervalNanos = -1;
  private Consumer<?, ?> consumer;
  private long maxDriftMillis = NO_DRIFT;
  private long quietAdvanceAfterNanos = -1;
  private long quietAdvanceMaxLagMillis = -1;
  private long maxFutureSkewMillis = -1;
  private boolean futureEventPolicySet;
  private ProgressGroup.Config progressGroup;
  private MissingRecordsPolicy missingRecordsPolicy;
  private long resumeDistanceLimit = ResumeLimit.NONE;

  /**
   * Exactly one of {@code size}, {@code gap}, {@code period} and {@code timeDifference} is set,
   * checked by the core.
   */
  KafkaWindowsBuilder(
      Duration size,
      Duration gap,
      CalendarPeriod period,
      Duration timeDifference,
      Aggregator<? super V, ?, R> aggregator) {
    this.size = size;
    this.gap = gap;
    this.period = period;
    this.timeDifference = timeDifference;
    this.aggregator = aggregator;
  }

  /** This builder as the public type: its only subclass (a sealed hierarchy). */
  private KafkaWindows.Builder<V, R> builder() {
    return (KafkaWindows.Builder<V, R>) this;
  }

  /** The windows that have no size, named for a refusal; {@code null} for windows of a size. */
  private String sizeless() {
    if (gap != null) {
      return "session windows of gap " + gap;
    }
    if (period != null) {
      return "calendar windows, " + period;
    }
    return timeDifference != null ? "sliding windows of time difference " + timeDifference : null;
  }

  /**
   * Shifts tumbling or hopping windows: they start at {@code k·size + offset} (or {@code k·advance
   * + offset}), hourly windows on the half hour with {@code offset(Duration.ofMinutes( 30))}.
   * Default 0. Only the offset modulo the size (the advance) matters (rule 76).
   *
   * @param offset the offset, any duration
   * @return this builder
   * @throws NullPointerException if {@code offset} is null
   * @throws IllegalStateException if the offset was already set, or the windows are session,
   *     calendar or sliding windows
   */
  public KafkaWindows.Builder<V, R> offset(Duration offset) {
    Objects.requireNonNull(offset, "offset");
    if (sizeless() != null) {
      throw new IllegalStateException("offset is for windows of a size: these are " + sizeless());
    }
    Checks.requireUnset(this.offset == null, "offset", this.offset);
    this.offset = offset;
    return builder();
  }

  /**
   * Session windows: cuts sessions at the multiples of {@code span} since the epoch, so that no
   * session spans {@code span} of event time or more ({@link
   * SessionWindows.Builder#maxSessionSpan}). A key that is never silent for a gap then still closes
   * a session at each cell's end, and the committed offset moves on. The cut depends only on event
   * times: every owner of a partition cuts at the same places. Default: not cut.
   *
   * @param span the cell size, at least the gap
   * @return this builder
   * @throws NullPointerException if {@code span} is null
   * @throws IllegalArgumentException if {@code span} is shorter than the gap
   * @throws IllegalStateException if the span was already set, or the windows are not session
   *     windows
   */
  public KafkaWindows.Builder<V, R> maxSessionSpan(Duration span) {
    Objects.requireNonNull(span, "maxSessionSpan");
    if (gap == null) {
      throw new IllegalStateException(
          "maxSessionSpan is for session windows (KafkaWindows.sessions): these windows have a"
              + " size of "
              + size);
    }
    Checks.requireUnset(maxSessionSpan == null, "maxSessionSpan", maxSessionSpan);
    SessionWindows.builder(gap, aggregator).maxSessionSpan(span); // the core's rules
    maxSessionSpan = span;
    return builder();
  }

  /**
   * Sets the future-timestamp guard ({@link EventTimeOptions#maxFutureSkew}): a record more than
   * {@code maxFutureSkew} ahead of the wall clock does not move its partition's frontier and goes
   * to the late path ({@link FutureEventPolicy#LATE}, the only policy here). In {@code
   * PER_PARTITION} the guard's wall-clock readings travel in the checkpoint, so that every owner of
   * a partition judges each record against the same limit (semantics rule 19, docs/kafka.md).
   *
   * @param maxFutureSkew how far ahead of the wall clock a record may be, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code maxFutureSkew} is null
   * @throws IllegalArgumentException if {@code maxFutureSkew} is negative
   * @throws IllegalStateException if the guard was already set
   */
  @Override
  public KafkaWindows.Builder<V, R> maxFutureSkew(Duration maxFutureSkew) {
    super.maxFutureSkew(maxFutureSkew);
    maxFutureSkewMillis = TimeMath.toMillisSaturated(maxFutureSkew);
    return builder();
  }

  /**
   * Sets what happens to a record beyond the future-timestamp guard: {@link
   * FutureEventPolicy#LATE}, the default here, is the only policy {@code KafkaWindows} takes. With
   * {@code ACCEPT}, a record a year ahead would sit in a window that closes only when the wall
   * clock reaches it, and the committed offset could not pass it until then (issue 32, defect 4).
   *
   * @param futureEventPolicy {@link FutureEventPolicy#LATE}
   * @return this builder
   * @throws NullPointerException if {@code futureEventPolicy} is null
   * @throws IllegalArgumentException if it is {@link FutureEventPolicy#ACCEPT}
   * @throws IllegalStateException if the policy was already set
   */
  @Override
  public KafkaWindows.Builder<V, R> futureEventPolicy(FutureEventPolicy futureEventPolicy) {
    Objects.requireNonNull(futureEventPolicy, "futureEventPolicy");
    if (futureEventPolicy == FutureEventPolicy.ACCEPT) {
      throw new IllegalArgumentException(
          "futureEventPolicy must be LATE for KafkaWindows (its default): ACCEPT would keep a"
              + " record beyond the guard in a window that closes only when the wall clock"
              + " reaches it, and the committed offset could not pass that record until then:"
              + " ACCEPT");
    }
    super.futureEventPolicy(futureEventPolicy);
    futureEventPolicySet = true;
    return builder();
  }

  /**
   * Turns on the progress group (issue 33): every {@code interval} at most, the processed position
   * of each partition this instance holds (the offset after its last record read) is committed
   * under {@code groupId}, a group that no consumer joins, through {@code admin}. The consumer's
   * own committed offsets trail what is processed by design (a window, the allowed lateness, the
   * grace period), so a lag monitor reading them sees a standing lag; pointed at the progress group
   * ({@code kafka-consumer-groups --describe --group <groupId>}, Burrow, KEDA, an exporter), it
   * shows the true one. The consumer's group is never touched. The calls are asynchronous: the
   * polling thread never waits for one; one in flight makes the next intervals send nothing; a
   * failure is logged (one WARN per run of failures) and counted ({@link
   * KafkaWindows#progressFailures()}), and the next interval tries again. After a hand-over, a call
   * of the previous owner still in flight may land after the new owner's first one: the next
   * interval puts it right. Off by default.
   *
   * @param admin an Admin client of the consumer's cluster; the caller owns it and closes it after
   *     the consumer
   * @param groupId the group the positions are committed under, not the consumer's own, for example
   *     {@code "<group>.progress"}
   * @param interval the least time between two calls, {@code > 0}; ten seconds suits most monitors
   * @return this builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code groupId} is blank or {@code interval} is not
   *     positive
   * @throws IllegalStateException if the progress group was already set ({@link
   *     KafkaWindows.Builder#build()} also refuses the consumer's own group id)
   */
  public KafkaWindows.Builder<V, R> progressGroup(Admin admin, String groupId, Duration interval) {
    Objects.requireNonNull(admin, "admin");
    Objects.requireNonNull(groupId, "groupId");
    if (groupId.isBlank()) {
      throw new IllegalArgumentException("groupId must not be blank: \"" + groupId + "\"");
    }
    Checks.requirePositive(interval, "interval");
    Checks.requireUnset(
        progressGroup == null,
        "progressGroup",
        progressGroup == null ? null : progressGroup.groupId());
    progressGroup = new ProgressGroup.Config(admin, groupId, TimeMath.toNanosSaturated(interval));
    return builder();
  }

  /**
   * Sets what happens when a partition's reading may lack records that one uninterrupted reading
   * would have had (semantics rule 65): it started without a usable checkpoint above offset 0 (a
   * tool recommitted its offset without one, or the checkpoint was carried from another cluster),
   * records below where it starts were deleted (retention, {@code deleteRecords}), or the
   * consumer's first offset is not the committed one ({@code auto.offset.reset} jumped). Found from
   * the assignment and the first delivered offset, with no remote call per poll.
   *
   * <p>{@link MissingRecordsPolicy#MARK}, the default, goes on and marks every row that the missing
   * records could belong to {@linkplain io.github.lowwater.window.WindowResult#isComplete()
   * incomplete} (rule 64), logs the event once at WARN and counts it. It is the default because the
   * records are gone: stopping cannot bring them back, and a consumer that throws on every start (a
   * new group on a topic whose retention has deleted its first records, a group whose commits
   * expired) leaves an operator no way forward but to change the code, while the mark lets a sink
   * keep every complete row it wrote (insert an incomplete row only where it has none) and tells
   * the operator through the log, {@code lowwater.missing.records.events} and {@code
   * lowwater.rows.incomplete}. {@link MissingRecordsPolicy#FAIL} makes {@code onPoll} throw a
   * {@link MissingRecordsException} instead, before it processes the partition's records: for a
   * pipeline where no partial row may be written at all.
   *
   * @param policy what to do
   * @return this builder
   * @throws NullPointerException if {@code policy} is null
   * @throws IllegalStateException if the policy was already set
   */
  public KafkaWindows.Builder<V, R> missingRecordsPolicy(MissingRecordsPolicy policy) {
    Objects.requireNonNull(policy, "missingRecordsPolicy");
    Checks.requireUnset(missingRecordsPolicy == null, "missingRecordsPolicy", missingRecordsPolicy);
    missingRecordsPolicy = policy;
    return builder();
  }

  /**
   * Sets a limit on each partition's resume distance (semantics rule 66): the records a new owner
   * would read again after a rebalance or a crash ({@link KafkaWindows#resumeDistance}). A
   * partition that passes it is counted ({@link KafkaWindows#partitionsOverResumeLimit()}, {@code
   * lowwater.partitions.over.resume.limit}) and logged once at WARN, naming what holds its commit:
   * an open window, a window in its grace period, or a session that has not ended. The limit
   * changes nothing else: the commit still waits for what it waits for. Session windows without
   * {@link #maxSessionSpan} hold the commit without bound while a key never falls silent for a gap.
   * Off by default.
   *
   * @param records the limit in records, {@code > 0}
   * @return this builder
   * @throws IllegalArgumentException if {@code records} is not positive
   * @throws IllegalStateException if the limit was already set
   */
  public KafkaWindows.Builder<V, R> resumeDistanceLimit(long records) {
    if (records <= 0) {
      throw new IllegalArgumentException("resumeDistanceLimit must be > 0: " + records);
    }
    Checks.requireUnset(
        resumeDistanceLimit == ResumeLimit.NONE, "resumeDistanceLimit", resumeDistanceLimit);
    resumeDistanceLimit = records;
    return builder();
  }

  /**
   * Sets the handler of the records that do not go into a window: the truly late ones and the
   * redelivered ones, told apart by {@link LateRecordHandler.Reason}. Without one, both are only
   * counted ({@code stats().late()}, {@link KafkaWindows#redeliveredRecords()}).
   *
   * @param lateRecordHandler receives every late or redelivered record
   * @return this builder
   * @throws NullPointerException if {@code lateRecordHandler} is null
   * @throws IllegalStateException if a handler was already set
   */
  public KafkaWindows.Builder<V, R> lateRecordHandler(LateRecordHandler lateRecordHandler) {
    Objects.requireNonNull(lateRecordHandler, "lateRecordHandler");
    Checks.requireUnset(
        this.lateRecordHandler == null, "lateRecordHandler", this.lateRecordHandler);
    this.lateRecordHandler = lateRecordHandler;
    return builder();
  }

  /**
   * Makes the windows hopping: windows of the builder's size that start every {@code advance}
   * ({@link io.github.lowwater.window.HoppingWindows}); default tumbling ({@code advance == size}).
   * Each record updates one pane; a window combines its panes with {@link Aggregator#merge} when it
   * is returned. The committed offset never passes the oldest record of a pane not yet freed, and a
   * re-read skips as redelivered exactly the records whose windows were all written for its
   * partition; its windows that were written are never returned again. With {@code earlyResults} or
   * {@code grace}, each window is kept whole and gives its own panes (semantics rule 55): a record
   * updates each of its windows that has not retired.
   *
   * @param advance how far apart windows start, at least one millisecond and at most the size
   * @return this builder
   * @throws NullPointerException if {@code advance} is null
   * @throws IllegalArgumentException if {@code advance} is shorter than one millisecond or longer
   *     than the size
   * @throws IllegalStateException if the advance was already set, or the windows are {@link
   *     KafkaWindows#sessions session windows}
   */
  public KafkaWindows.Builder<V, R> hopping(Duration advance) {
    Objects.requireNonNull(advance, "advance");
    if (sizeless() != null) {
      throw new IllegalStateException("hopping is for windows of a size: these are " + sizeless());
    }
    Checks.requireUnset(this.advance == null, "hopping", this.advance);
    HoppingWindows.builder(size, advance, aggregator); // the core's rules for the advance
    this.advance = advance;
    return builder();
  }

  /**
   * Sets what one result covers. Default {@link ResultScope#PER_PARTITION}: exact in a consumer
   * group whatever its membership does. {@link ResultScope#MERGED} gives one row per (window, key)
   * and is exact for a single consumer that owns every partition. {@link
   * ResultScope#CO_PARTITIONED} reads partition {@code i} of several topics as one task (a
   * reconciliation); {@code build()} then refuses session windows, early results, {@code
   * maxFutureSkew}, {@code idleTimeout} and a grace period on sliding windows, and a grace period
   * on tumbling or hopping windows holds late updates until the window retires (semantics rules 72
   * and 73).
   *
   * @param resultScope the scope
   * @return this builder
   * @throws NullPointerException if {@code resultScope} is null
   * @throws IllegalStateException if the scope was already set
   */
  public KafkaWindows.Builder<V, R> resultScope(ResultScope resultScope) {
    Objects.requireNonNull(resultScope, "resultScope");
    Checks.requireUnset(this.resultScope == null, "resultScope", this.resultScope);
    this.resultScope = resultScope;
    return builder();
  }

  /**
   * Sets how often {@link KafkaWindows#groupWatermark()} is read from the group's committed offsets
   * (one round trip to the group coordinator). Default 10 seconds. Needs the {@link #consumer
   * consumer}.
   *
   * @param groupWatermarkInterval the interval between two reads, {@code > 0}
   * @return this builder
   * @throws NullPointerException if {@code groupWatermarkInterval} is null
   * @throws IllegalArgumentException if {@code groupWatermarkInterval} is zero or negative
   * @throws IllegalStateException if the interval was already set
   */
  public KafkaWindows.Builder<V, R> groupWatermarkInterval(Duration groupWatermarkInterval) {
    Checks.requirePositive(groupWatermarkInterval, "groupWatermarkInterval");
    Checks.requireUnset(
        groupWatermarkIntervalNanos < 0,
        "groupWatermarkInterval",
        Duration.ofNanos(groupWatermarkIntervalNanos));
    groupWatermarkIntervalNanos = TimeMath.toNanosSaturated(groupWatermarkInterval);
    return builder();
  }

  /**
   * Sets the consumer the loop polls. Required: the driver reads each assigned partition's
   * checkpoint from its committed offsets (without it a restart would start every partition empty
   * and overwrite written rows with partial values), rewinds it after an exception in {@code
   * onPoll}, gives its paused partitions heartbeats, reads the group watermark from it, and, with
   * {@link #maxDrift}, pauses and resumes its partitions. Only the polling thread calls it.
   *
   * @param consumer the consumer the loop polls
   * @return this builder
   * @throws NullPointerException if {@code consumer} is null
   * @throws IllegalStateException if the consumer was already set
   */
  public KafkaWindows.Builder<V, R> consumer(Consumer<?, ?> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    Checks.requireUnset(this.consumer == null, "consumer", this.consumer);
    this.consumer = consumer;
    return builder();
  }

  /**
   * Turns on the alignment ({@link ResultScope#MERGED} only): a partition whose frontier runs more
   * than {@code maxDrift} ahead of the watermark is paused until it is back within it. Bounds the
   * open windows and the false-late risk of a catch-up, at a cost in catch-up throughput (see
   * {@code docs/kafka.md}). Off by default. Must be at least the allowed lateness (checked by
   * {@link KafkaWindows.Builder#build()}).
   *
   * @param maxDrift the largest lead over the watermark, {@code > 0}
   * @return this builder
   * @throws NullPointerException if {@code maxDrift} is null
   * @throws IllegalArgumentException if {@code maxDrift} is zero or negative
   * @throws IllegalStateException if the maximum drift was already set
   */
  public KafkaWindows.Builder<V, R> maxDrift(Duration maxDrift) {
    Checks.requirePositive(maxDrift, "maxDrift");
    Checks.requireUnset(maxDriftMillis == NO_DRIFT, "maxDrift", Duration.ofMillis(maxDriftMillis));
    maxDriftMillis = Math.min(TimeMath.toMillisSaturated(maxDrift), NO_DRIFT - 1);
    return builder();
  }

  /**
   * Sets how long a partition ({@code PER_PARTITION}), or every partition of the instance ({@code
   * MERGED}), must have been without a record, and not paused, since its last record or its
   * assignment, before its watermark follows the wall clock minus the allowed lateness. Default 90
   * seconds.
   *
   * @param quietAdvanceAfter the quiet period, {@code > 0}
   * @return this builder
   * @throws NullPointerException if {@code quietAdvanceAfter} is null
   * @throws IllegalArgumentException if {@code quietAdvanceAfter} is zero or negative
   * @throws IllegalStateException if the quiet period was already set
   */
  public KafkaWindows.Builder<V, R> quietAdvanceAfter(Duration quietAdvanceAfter) {
    Checks.requirePositive(quietAdvanceAfter, "quietAdvanceAfter");
    Checks.requireUnset(
        quietAdvanceAfterNanos < 0, "quietAdvanceAfter", Duration.ofNanos(quietAdvanceAfterNanos));
    quietAdvanceAfterNanos = TimeMath.toNanosSaturated(quietAdvanceAfter);
    return builder();
  }

  /**
   * Sets the largest lag of the watermark behind the wall clock at which the quiet-period advance
   * still happens; beyond it the data is a replay or backfill and the advance is skipped (logged
   * once). Default 1 hour.
   *
   * @param quietAdvanceMaxLag the bound, {@code >= 0}
   * @return this builder
   * @throws NullPointerException if {@code quietAdvanceMaxLag} is null
   * @throws IllegalArgumentException if {@code quietAdvanceMaxLag} is negative
   * @throws IllegalStateException if the bound was already set
   */
  public KafkaWindows.Builder<V, R> quietAdvanceMaxLag(Duration quietAdvanceMaxLag) {
    Checks.requireNonNegative(quietAdvanceMaxLag, "quietAdvanceMaxLag");
    Checks.requireUnset(
        quietAdvanceMaxLagMillis < 0,
        "quietAdvanceMaxLag",
        Duration.ofMillis(quietAdvanceMaxLagMillis));
    quietAdvanceMaxLagMillis = TimeMath.toMillisSaturated(quietAdvanceMaxLag);
    return builder();
  }

  /**
   * Checks the options together and freezes them into the settings a {@link KafkaWindows} is built
   * from (what {@link KafkaWindows.Builder#build()} documents).
   *
   * @throws IllegalStateException if the options do not fit together, naming them
   */
  final KafkaSettings<V, R> settings() {
    if (advance != null) { // refuses a non-merging aggregator
      copyOptionsTo(KafkaSettings.hopping(size, advance, offset, aggregator)).build();
    }
    if (gap != null) { // refuses a non-merging aggregator
      copyOptionsTo(SessionWindows.builder(gap, aggregator)).build();
    }
    if (timeDifference != null) { // refuses per-source lateness with panes
      copyOptionsTo(SlidingWindows.builder(timeDifference, aggregator)).build();
    }
    if (advance == null && gap == null && timeDifference == null) {
      // refuses panes with an aggregator that cannot merge
      copyOptionsTo(KafkaSettings.tumbling(size, period, offset, aggregator)).build();
    }
    if (consumer == null) {
      throw new IllegalStateException(
          "consumer is required: set consumer(...) to the consumer the loop polls; the"
              + " windows read each partition's checkpoint from its committed offsets, and"
              + " without it a restart overwrites written rows with partial values");
    }
    if (progressGroup != null && progressGroup.groupId().equals(consumerGroupId(consumer))) {
      throw new IllegalStateException(
          "progressGroup must not be the consumer's own group: its committed offsets (with"
              + " their checkpoints) are what the next owner of a partition starts from; use"
              + " another group id, such as "
              + progressGroup.groupId()
              + ".progress: "
              + progressGroup.groupId());
    }
    if (maxDriftMillis != NO_DRIFT && resultScope() != ResultScope.MERGED) {
      throw new IllegalStateException(
          "maxDrift needs resultScope(MERGED): per-partition windows close on their own"
              + " partition's watermark and never wait for a slower partition");
    }
    if (resultScope() == ResultScope.CO_PARTITIONED) {
      checkCoPartitioned();
    }
    FrozenOptions options = copyOptionsTo(new FrozenOptions());
    if (resultScope() == ResultScope.CO_PARTITIONED) {
      if (!perSourceLatenessConfigured()) {
        options.perSourceLateness(); // rule 72: what keeps a task's rows independent of reading
      }
      // Idleness would let a task's watermark pass a silent member by a decision no checkpoint
      // carries; each member's quiet-period rule, recorded in its history, takes its place.
      options.idleTimeout(java.time.temporal.ChronoUnit.FOREVER.getDuration());
    }
    if (!futureEventPolicySet) {
      options.futureEventPolicy(FutureEventPolicy.LATE); // the only policy here
    }
    return new KafkaSettings<>(
        size,
        advance,
        gap,
        period,
        timeDifference,
        offset,
        maxSessionSpan,
        aggregator,
        options,
        configuredClock(),
        lateRecordHandler,
        resultScope(),
        groupWatermarkIntervalNanos(),
        consumer,
        maxDriftMillis,
        quietAdvanceAfterNanos(),
        quietAdvanceMaxLagMillis(),
        maxFutureSkewMillis,
        progressGroup,
        missingRecordsPolicy != null ? missingRecordsPolicy : MissingRecordsPolicy.MARK,
        resumeDistanceLimit);
  }

  /** What {@code CO_PARTITIONED} does not support yet, refused with the reason. */
  private void checkCoPartitioned() {
    String what =
        gap != null
            ? "session windows"
            : idleTimeoutConfigured()
                ? "idleTimeout (a member's silence is its quiet-period rule's, recorded for"
                    + " its next owner)"
                : earlyResultsConfigured()
                    ? "early results"
                    : graceConfigured() && timeDifference != null
                        ? "a grace period on sliding windows"
                        : maxFutureSkewMillis >= 0 ? "maxFutureSkew" : null;
    if (what != null) {
      throw new IllegalStateException(
          "resultScope(CO_PARTITIONED) is for tumbling, hopping and sliding windows without early"
              + " results or maxFutureSkew, and a grace period only on tumbling and hopping"
              + " windows, for now: "
              + what
              + " would let a task's rows depend on how its partitions interleave (semantics"
              + " rule 72)");
    }
  }

  /** The consumer's group id, or {@code null} for a consumer without a group. */
  private static String consumerGroupId(Consumer<?, ?> consumer) {
    try {
      return consumer.groupMetadata().groupId();
    } catch (org.apache.kafka.common.errors.InvalidGroupIdException e) {
      return null; // no group.id: nothing to compare with
    }
  }

  private ResultScope resultScope() {
    return resultScope != null ? resultScope : ResultScope.PER_PARTITION;
  }

  private long groupWatermarkIntervalNanos() {
    return groupWatermarkIntervalNanos >= 0
        ? groupWatermarkIntervalNanos
        : TimeMath.toNanosSaturated(KafkaWindows.DEFAULT_GROUP_WATERMARK_INTERVAL);
  }

  private long quietAdvanceAfterNanos() {
    return quietAdvanceAfterNanos >= 0
        ? quietAdvanceAfterNanos
        : TimeMath.toNanosSaturated(KafkaWindows.DEFAULT_QUIET_ADVANCE_AFTER);
  }

  private long quietAdvanceMaxLagMillis() {
    return quietAdvanceMaxLagMillis >= 0
        ? quietAdvanceMaxLagMillis
        : KafkaWindows.DEFAULT_QUIET_ADVANCE_MAX_LAG.toMillis();
  }
}
