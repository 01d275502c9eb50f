package io.github.lowwater.kafka;

import io.github.lowwater.internal.Checks;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinSide;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.join.Joiner;
import io.github.lowwater.join.LateJoinHandler;
import io.github.lowwater.join.StreamJoin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A windowed stream-stream join of two co-partitioned topics in a consumer group: {@link
 * StreamJoin} per task, where partition <i>i</i> of the left topic and partition <i>i</i> of the
 * right one form task <i>i</i>, with commits that let any instance of the group take a task over
 * and emit exactly the rows one uninterrupted reading would.
 *
 * <pre>{@code
 * KafkaJoin<String, Order, Payment, Paid> join =
 *     KafkaJoin.builder(JoinInterval.within(Duration.ofMinutes(10)), Paid::new)
 *         .type(JoinType.LEFT)                    // unpaid orders too, once no payment can come
 *         .allowedLateness(Duration.ofMinutes(2))
 *         .topics("orders", "payments")           // left, right: equal partition counts
 *         .consumer(consumer)                     // enable.auto.commit=false; a range assignor
 *         .build();
 * consumer.subscribe(List.of("orders", "payments"), join.rebalanceListener());
 * try {
 *   while (running) {
 *     join.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key,
 *         r -> Order.parse(r.value()), r -> Payment.parse(r.value()));
 *     try {
 *       for (KafkaJoinRow<String, Paid> row : join.pollResults()) {
 *         sink.upsert(row.id(), row.kind(), row.value()); // the identity is the same on every owner
 *       }
 *     } catch (SQLException e) {
 *       join.rewindToLastCommit(); // the rows come again, the same, from the last commit
 *       continue;
 *     }
 *     try {
 *       consumer.commitSync(join.committableOffsets());
 *     } catch (RebalanceInProgressException | CommitFailedException e) {
 *       // safe to skip: the next commit, or the task's next owner, starts from the last one
 *     }
 *   }
 * } finally {
 *   consumer.close();
 * }
 * }</pre>
 *
 * <p><b>Semantics</b> (docs/semantics.md, rules 67 to 70 and 74): within a task, a record's verdict
 * is taken against its own partition's watermark, so it does not depend on how the two partitions'
 * reads interleave; pairs are emitted at their second record, unmatched rows once no on-time
 * partner can come, and no row is retracted. The event time is the record timestamp, or what a
 * {@link RecordMapper} reads from the payload ({@link #onPoll(ConsumerRecords, RecordMapper,
 * RecordMapper)}).
 *
 * <p><b>In a group.</b> Each input partition is committed at the oldest of its records that a new
 * owner still needs (one that may still pair, or whose partner is still waiting), with a checkpoint
 * in the offset's metadata: the partition's own watermark at that offset and what was emitted. A
 * new owner re-reads from there, takes the same verdicts, and does not emit again what was emitted
 * before the commit. A row emitted after the last commit is emitted again, the same, by whoever
 * reads it next: a sink keyed by {@link KafkaJoinRow#id()} is exact. Rows come from tasks whole on
 * this instance only: a task whose two partitions an assignor gives to different instances is held
 * (paused, nothing read or committed; {@link #heldPartitionCount()}), and one WARN names the
 * settings that keep tasks whole (the classic {@code RangeAssignor}, or {@code
 * group.remote.assignor=range}).
 *
 * <p><b>A silent partition</b> (semantics rule 74). A task's watermark is the minimum of its two
 * partitions' own, so a partition that goes silent would hold its task's unmatched rows. After
 * {@linkplain Builder#quietAdvanceAfter a quiet period} without a record (90 seconds by default,
 * counted from its last record or its task's forming, not while the caller has it paused), the
 * partition's own watermark rises to the wall clock less the allowed lateness, unless it lags the
 * wall clock by more than {@linkplain Builder#quietAdvanceMaxLag a bound} (1 hour by default: a
 * replay or a backfill), as {@link KafkaWindows}' quiet-period advance does. The raise is recorded
 * at the partition's read position and carried in its checkpoint, and the next owner applies it
 * when its own read position gets there: the records it re-reads are judged as they were and give
 * the same rows. A record of the partition below the raised watermark is then late. A raise after
 * the last commit is not carried: an owner that dies (or rewinds) between the write of the rows a
 * raise released and its next commit leaves rows the next reader may compute otherwise.
 *
 * <p>Not thread-safe: the polling thread only, except {@link #heldPartitionCount()}, {@link
 * #taskCount()}, {@link #millisSinceLastPoll()} and the counters ({@link #pairs()} and the others
 * that only grow), which a metrics registry may read from any thread ({@code
 * io.github.lowwater.micrometer.KafkaJoinMetrics}). No threads of its own. An exception from a
 * mapper, the joiner or the late handler rewinds every task to its last commit (the records come
 * again at the next poll) and propagates.
 *
 * @param <K> the join key type
 * @param <L> the left value type
 * @param <R> the right value type
 * @param <O> the joiner's result type
 */
public final class KafkaJoin<K, L, R, O> {

  private final Consumer<?, ?> consumer;
  private final String leftTopic;
  private final String rightTopic;
  private final JoinTasks<K, L, R, O> tasks;
  private final JoinCounters counters = new JoinCounters();

  /** When onPoll was last called, readable from any thread (a stall meter). */
  private final PollStamp pollStamp;

  private final io.github.lowwater.Clock clock;
  private final boolean quietAdvance;

  /** The allowed lateness without {@code allowedLateness}: {@link StreamJoin}'s default. */
  static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofSeconds(120);

  private KafkaJoin(Builder<K, L, R, O> b) {
    this.consumer = b.consumer;
    this.clock = b.clock != null ? b.clock : io.github.lowwater.Clock.system();
    this.pollStamp = new PollStamp(clock);
    this.leftTopic = b.leftTopic;
    this.rightTopic = b.rightTopic;
    Duration lateness = b.allowedLateness != null ? b.allowedLateness : DEFAULT_ALLOWED_LATENESS;
    JoinTask.Spec<K, L, R, O> spec =
        new JoinTask.Spec<>(
            b.interval,
            b.type,
            lateness,
            b.joiner,
            b.lateHandler,
            b.lateRecordHandler,
            counters,
            clock,
            TimeMath.toMillisSaturated(lateness),
            b.quietAdvanceAfterNanos >= 0
                ? b.quietAdvanceAfterNanos
                : TimeMath.toNanosSaturated(KafkaWindows.DEFAULT_QUIET_ADVANCE_AFTER),
            b.quietAdvanceMaxLagMillis >= 0
                ? b.quietAdvanceMaxLagMillis
                : KafkaWindows.DEFAULT_QUIET_ADVANCE_MAX_LAG.toMillis());
    this.quietAdvance = spec.quietAdvance();
    this.tasks = new JoinTasks<>(consumer, leftTopic, rightTopic, spec);
  }

  /**
   * Starts a builder.
   *
   * @param interval which left and right records pair (rule 67)
   * @param joiner computes a row's value; for an unmatched row, the absent side is {@code null}
   * @param <K> the join key type
   * @param <L> the left value type
   * @param <R> the right value type
   * @param <O> the joiner's result type
   * @return the builder
   * @throws NullPointerException if an argument is null
   */
  public static <K, L, R, O> Builder<K, L, R, O> builder(
      JoinInterval interval, Joiner<? super K, ? super L, ? super R, ? extends O> joiner) {
    return new Builder<>(interval, joiner);
  }

  /**
   * Returns a rebalance listener to pass to {@code consumer.subscribe}: on assignment it forms
   * every task it now owns whole from its two partitions' commits (positioning the consumer there)
   * and pauses the partitions of split tasks; on revocation and loss it drops the tasks that lose a
   * partition at once and commits nothing.
   *
   * @return the listener
   */
  public ConsumerRebalanceListener rebalanceListener() {
    return new ChainedRebalanceListener(tasks::assigned, tasks::revoked, null);
  }

  /**
   * Feeds a poll's records: a record of the left topic is a left record, of the right topic a right
   * one, its timestamp its time.
   *
   * @param records the records returned by {@code poll}, possibly none
   * @param key the join key of a record; {@code null} pairs with nothing: the record's unmatched
   *     row comes at once if the type keeps its side (rule 74), none otherwise
   * @param left the value of a left record; {@code null} skips the record
   * @param right the value of a right record; {@code null} skips the record
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException what a mapper, the joiner or the late handler threw, after every task
   *     was rewound to its last commit (if the commits could not be read, that exception is added
   *     as suppressed, and the next {@code onPoll} forms the tasks before it reads anything)
   */
  public <KR, VR> void onPoll(
      ConsumerRecords<KR, VR> records,
      Function<? super ConsumerRecord<KR, VR>, ? extends K> key,
      Function<? super ConsumerRecord<KR, VR>, ? extends L> left,
      Function<? super ConsumerRecord<KR, VR>, ? extends R> right) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
    feed(
        records,
        (r, isLeft, out) ->
            out.emit(r.timestamp(), key.apply(r), isLeft ? left.apply(r) : right.apply(r)));
  }

  /**
   * Feeds a poll's records, each mapped once to its event time, join key and value by its side's
   * {@link RecordMapper}: the event time from the payload, parsed once, as {@link
   * KafkaWindows#onPoll(ConsumerRecords, RecordMapper)} takes it. A record of the left topic goes
   * to {@code left}, of the right topic to {@code right}. {@code out.emit(time, key, value)} adds
   * it: a {@code null} key pairs with nothing (rule 70), a {@code null} value skips it. A join has
   * no time-only records: {@code out.observe} and {@code out.punctuate}, or no call, skip it
   * (counted in {@link #skippedRecords()}), as in {@link #onPoll(ConsumerRecords, Function,
   * Function, Function)}, whose time is the record timestamp. A partition's records must keep one
   * time source across owners: every instance of the group maps them the same way.
   *
   * @param records the records returned by {@code poll}, possibly none
   * @param left maps a left record
   * @param right maps a right record
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException what a mapper, the joiner or the late handler threw, after every task
   *     was rewound to its last commit, as in the other {@code onPoll}
   */
  @SuppressWarnings({"unchecked", "rawtypes"}) // the slot takes either side's value as Object
  public <KR, VR> void onPoll(
      ConsumerRecords<KR, VR> records,
      RecordMapper<KR, VR, K, L> left,
      RecordMapper<KR, VR, K, R> right) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
    feed(records, (r, isLeft, out) -> ((RecordMapper) (isLeft ? left : right)).map(r, out));
  }

  /** One record's mapping into the slot. */
  private interface Mapping<KR, VR, K> {
    void map(ConsumerRecord<KR, VR> record, boolean isLeft, Slot<K> out);
  }

  /** What a mapper emitted for one record; reused. A {@code null} value skips the record. */
  private static final class Slot<K> implements RecordMapper.Output<K, Object> {
    long timeMillis;
    K key;
    Object value;

    @Override
    public void emit(long eventTimeMillis, K key, Object value) {
      this.timeMillis = eventTimeMillis;
      this.key = key;
      this.value = value;
    }

    @Override
    public void observe(long eventTimeMillis) {
      value = null; // a join has no time-only records: skipped
    }

    @Override
    public void punctuate(long watermarkMillis) {
      value = null;
    }
  }

  private final Slot<K> slot = new Slot<>();

  private <KR, VR> void feed(ConsumerRecords<KR, VR> records, Mapping<KR, VR, K> mapping) {
    pollStamp.stamp();
    long nowNanos = clock.monotonicNanos(); // one reading per poll: activity and quiet periods
    try {
      Set<TopicPartition> formedNow = formPending(records); // a failure rewinds every task too
      for (TopicPartition tp : records.partitions()) { // one lookup and one side per partition
        List<ConsumerRecord<KR, VR>> batch = records.records(tp);
        JoinTask<K, L, R, O> task = tasks.task(tp);
        if (task == null || formedNow.contains(tp)) {
          counters.ignored += batch.size(); // a held partition's, or a task not formed: read again
          tasks.ignored(tp, batch.get(0).offset());
          continue;
        }
        boolean isLeft = tp.topic().equals(leftTopic);
        task.activity(isLeft, nowNanos);
        for (ConsumerRecord<KR, VR> r : batch) {
          slot.value = null;
          mapping.map(r, isLeft, slot);
          if (slot.value == null) {
            counters.skipped++;
            task.skip(isLeft, r.offset());
            continue;
          }
          Object v = slot.value;
          slot.value = null; // the slot keeps no payload alive between records
          task.add(isLeft, r, slot.timeMillis, slot.key, v);
        }
      }
      afterPoll(nowNanos);
    } catch (RuntimeException | Error e) {
      try {
        rewindToLastCommit();
      } catch (RuntimeException unread) { // the commits could not be read: the next onPoll retries
        e.addSuppressed(unread);
      }
      throw e;
    }
  }

  /** The end of a poll: every task replays its raises due and applies its quiet-period rule. */
  private void afterPoll(long nowNanos) {
    if (tasks.all().isEmpty()) {
      return;
    }
    long wall = quietAdvance ? clock.wallMillis() : Long.MIN_VALUE;
    Set<TopicPartition> paused = quietAdvance ? consumer.paused() : Set.of();
    for (JoinTask<K, L, R, O> task : tasks.all()) {
      task.afterPoll(nowNanos, wall, paused);
    }
  }

  /**
   * Forms the tasks a failed forming left out (the committed offsets could not be read), and
   * returns the partitions of this poll that had no task before: their records were fetched before
   * the forming positioned the consumer, so they are set aside and read again from there.
   */
  private Set<TopicPartition> formPending(ConsumerRecords<?, ?> records) {
    if (!tasks.unsettled()) {
      return Set.of();
    }
    Set<TopicPartition> unformed = new HashSet<>();
    for (TopicPartition tp : records.partitions()) {
      if (tasks.task(tp) == null) {
        unformed.add(tp);
        tasks.ignored(tp, records.records(tp).get(0).offset()); // where a commit-less one starts
      }
    }
    tasks.settleIfNeeded();
    return unformed;
  }

  /**
   * Takes the rows computed since the last call, and the offsets to commit for them.
   *
   * @return the rows, in the order they were computed per task; empty if none
   */
  public List<KafkaJoinRow<K, O>> pollResults() {
    List<KafkaJoinRow<K, O>> rows = new ArrayList<>();
    for (JoinTask<K, L, R, O> task : tasks.all()) {
      task.drain(rows);
    }
    return rows;
  }

  /**
   * Returns the offsets to commit, with their checkpoints, for the rows {@link #pollResults()}
   * returned: both partitions of every task whole on this instance (none of a held task).
   *
   * @return partition to offset and metadata, for {@code consumer.commitSync}
   */
  public Map<TopicPartition, OffsetAndMetadata> committableOffsets() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (JoinTask<K, L, R, O> task : tasks.all()) {
      offsets.putAll(task.committable());
    }
    return offsets;
  }

  /**
   * Drops every task's state and forms each again from its partitions' last commits, positioning
   * the consumer there: after a sink failed to write the rows {@link #pollResults()} returned, the
   * next polls compute them again, the same.
   *
   * @throws org.apache.kafka.common.KafkaException if the committed offsets cannot be read; the
   *     next {@code onPoll} tries again, and until then no record is joined
   */
  public void rewindToLastCommit() {
    tasks.rewind();
  }

  /**
   * The end of a bounded input: every task releases its waiting records (their rows are due). A
   * joiner that throws on an unmatched row rewinds every task to its last commit, as in {@link
   * #onPoll}, and the exception propagates.
   */
  public void finishAll() {
    try {
      for (JoinTask<K, L, R, O> task : tasks.all()) {
        task.finish();
      }
    } catch (RuntimeException | Error e) { // the joiner threw on an unmatched row
      try {
        rewindToLastCommit();
      } catch (RuntimeException unread) {
        e.addSuppressed(unread);
      }
      throw e;
    }
  }

  /**
   * Returns the time since the polling loop last called {@code onPoll}, on the monotonic clock
   * given to the builder ({@link io.github.lowwater.Clock#system()} by default), read now: it grows
   * when the loop stops calling {@code onPoll} while the consumer stays in the group (a stall),
   * when the other readings stand still (docs/operations.md, "A stalled loop"). Any thread; one
   * clock read.
   *
   * @return milliseconds since the start of the last {@code onPoll}, or -1 before the first
   */
  public long millisSinceLastPoll() {
    return pollStamp.millisSinceLast();
  }

  /**
   * Returns the number of assigned partitions held because this instance does not own their task
   * whole. Any thread.
   *
   * @return held partitions; {@code 0} when the assignor keeps tasks whole
   */
  public int heldPartitionCount() {
    return tasks.heldPartitions();
  }

  /**
   * Returns the number of tasks whole and formed on this instance. Any thread.
   *
   * @return formed tasks
   */
  public int taskCount() {
    return tasks.formedTasks();
  }

  /**
   * Returns a task's watermark, the minimum of its two partitions' own.
   *
   * @param task the partition number
   * @return epoch milliseconds, or {@link io.github.lowwater.WatermarkTracker#NO_WATERMARK} if the
   *     task is not formed here or has no watermark yet
   */
  public long watermark(int task) {
    JoinTask<K, L, R, O> t = tasks.task(new TopicPartition(leftTopic, task));
    return t == null ? io.github.lowwater.WatermarkTracker.NO_WATERMARK : t.watermark();
  }

  /**
   * Returns the pairs this instance has returned. Only grows; any thread.
   *
   * @return pairs returned by {@link #pollResults()}
   */
  public long pairs() {
    return counters.pairs;
  }

  /**
   * Returns the unmatched rows this instance has returned. Only grows; any thread.
   *
   * @return unmatched rows returned by {@link #pollResults()}
   */
  public long unmatched() {
    return counters.unmatched;
  }

  /**
   * Returns the late records of one side this instance has judged, re-read ones included (see
   * {@link #redeliveredRecords()}). Only grows; any thread.
   *
   * @param side the side
   * @return records judged late
   * @throws NullPointerException if {@code side} is null
   */
  public long late(JoinSide side) {
    Objects.requireNonNull(side, "side");
    return side == JoinSide.LEFT ? counters.lateLeft : counters.lateRight;
  }

  /**
   * Returns how many times a quiet-period advance raised a partition's own watermark (rule 74).
   * Only grows; any thread.
   *
   * @return quiet-period advances taken by this instance (replayed ones not included)
   */
  public long quietAdvances() {
    return counters.quietAdvances;
  }

  /**
   * Returns the late records that were re-read below a checkpoint's position and so not reported to
   * the late handler again. Only grows; any thread.
   *
   * @return late records judged again after a hand-over or a rewind
   */
  public long redeliveredRecords() {
    return counters.redelivered;
  }

  /**
   * Returns the rows this instance computed again from re-read records and did not return, because
   * a checkpoint says they were returned before its commit. Only grows; any thread.
   *
   * @return rows not emitted again
   */
  public long suppressedRows() {
    return counters.suppressed;
  }

  /**
   * Returns the records with a {@code null} value, skipped. Only grows; any thread.
   *
   * @return skipped records
   */
  public long skippedRecords() {
    return counters.skipped;
  }

  /**
   * Returns the records of partitions without a formed task that a poll returned anyway; each is
   * read again once its task is formed. Only grows; any thread.
   *
   * @return records set aside
   */
  public long ignoredRecords() {
    return counters.ignored;
  }

  /**
   * Returns the records buffered by this instance's tasks, waiting for partners.
   *
   * @return buffered records of both sides
   */
  public int buffered() {
    return (int) sum(JoinTask::buffered);
  }

  private long sum(ToLongFunction<JoinTask<K, L, R, O>> count) {
    long n = 0;
    for (JoinTask<K, L, R, O> task : tasks.all()) {
      n += count.applyAsLong(task);
    }
    return n;
  }

  @Override
  public String toString() {
    return "KafkaJoin["
        + leftTopic
        + " x "
        + rightTopic
        + ", "
        + taskCount()
        + " tasks, "
        + heldPartitionCount()
        + " held partitions]";
  }

  /**
   * Builds a {@link KafkaJoin}.
   *
   * @param <K> the join key type
   * @param <L> the left value type
   * @param <R> the right value type
   * @param <O> the joiner's result type
   */
  public static final class Builder<K, L, R, O> {
    private final JoinInterval interval;
    private final Joiner<? super K, ? super L, ? super R, ? extends O> joiner;
    private JoinType type;
    private Duration allowedLateness;
    private LateJoinHandler<? super K> lateHandler;
    private LateJoinRecordHandler lateRecordHandler;
    private String leftTopic;
    private String rightTopic;
    private Consumer<?, ?> consumer;
    private io.github.lowwater.Clock clock;
    private long quietAdvanceAfterNanos = -1;
    private long quietAdvanceMaxLagMillis = -1;

    private Builder(
        JoinInterval interval, Joiner<? super K, ? super L, ? super R, ? extends O> joiner) {
      this.interval = Objects.requireNonNull(interval, "interval");
      this.joiner = Objects.requireNonNull(joiner, "joiner");
    }

    /**
     * Sets the join type; {@link JoinType#INNER} by default.
     *
     * @param type inner, left or outer
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
     * Sets the allowed lateness; default 120 seconds, as {@link StreamJoin}'s. A record is late iff
     * its time is below its partition's newest time less this (rule 68). Kafka Streams' {@code
     * JoinWindows.ofTimeDifferenceAndGrace(d, grace)} maps to {@code allowedLateness(d + grace)},
     * its {@code after} plus its grace, not to its grace alone (see {@link JoinInterval#within}).
     *
     * @param allowedLateness {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if it is negative
     * @throws IllegalStateException if it was already set
     */
    public Builder<K, L, R, O> allowedLateness(Duration allowedLateness) {
      Checks.requireNonNegative(allowedLateness, "allowedLateness");
      Checks.requireUnset(this.allowedLateness == null, "allowedLateness", this.allowedLateness);
      this.allowedLateness = allowedLateness;
      return this;
    }

    /**
     * Sets a handler for late records. A record a new owner re-reads below the positions its
     * checkpoint claims is not reported again (it was, with the same verdict); one read after the
     * last commit is reported again by its next reader, as its rows are emitted again.
     *
     * @param lateHandler the handler; its {@code source} is the record's {@code TopicPartition}
     * @return this builder
     * @throws NullPointerException if {@code lateHandler} is null
     * @throws IllegalStateException if a handler was already set
     */
    public Builder<K, L, R, O> lateHandler(LateJoinHandler<? super K> lateHandler) {
      Objects.requireNonNull(lateHandler, "lateHandler");
      Checks.requireUnset(this.lateHandler == null, "lateHandler", this.lateHandler);
      Checks.requireUnset(
          lateRecordHandler == null, "a late handler (lateRecordHandler)", lateRecordHandler);
      this.lateHandler = lateHandler;
      return this;
    }

    /**
     * Sets a handler for late records that gets the {@code ConsumerRecord} (topic, partition,
     * offset, headers), as {@link KafkaWindows}' late handler does; in place of {@link
     * #lateHandler}, which gets the partition only. Reported once per record as {@link
     * #lateHandler} is.
     *
     * @param lateRecordHandler the handler
     * @return this builder
     * @throws NullPointerException if {@code lateRecordHandler} is null
     * @throws IllegalStateException if a late handler of either kind was already set
     */
    public Builder<K, L, R, O> lateRecordHandler(LateJoinRecordHandler lateRecordHandler) {
      Objects.requireNonNull(lateRecordHandler, "lateRecordHandler");
      Checks.requireUnset(
          this.lateRecordHandler == null, "lateRecordHandler", this.lateRecordHandler);
      Checks.requireUnset(lateHandler == null, "a late handler (lateHandler)", lateHandler);
      this.lateRecordHandler = lateRecordHandler;
      return this;
    }

    /**
     * Sets the two input topics. Required. They must have equal partition counts and the same key
     * partitioning (checked at the first assignment, for the counts).
     *
     * @param left the left topic
     * @param right the right topic
     * @return this builder
     * @throws NullPointerException if a topic is null
     * @throws IllegalArgumentException if the topics are the same
     * @throws IllegalStateException if the topics were already set
     */
    public Builder<K, L, R, O> topics(String left, String right) {
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
      if (left.equals(right)) {
        throw new IllegalArgumentException(
            "topics: left and right must differ, both are \"" + left + "\"");
      }
      Checks.requireUnset(this.leftTopic == null, "topics", this.leftTopic + ", " + rightTopic);
      this.leftTopic = left;
      this.rightTopic = right;
      return this;
    }

    /**
     * Sets the consumer the loop polls. Required: the join reads its tasks' commits through it,
     * positions it, and pauses the partitions of split tasks. Only the polling thread calls it.
     *
     * @param consumer the consumer, with {@code enable.auto.commit=false}
     * @return this builder
     * @throws NullPointerException if {@code consumer} is null
     * @throws IllegalStateException if the consumer was already set
     */
    public Builder<K, L, R, O> consumer(Consumer<?, ?> consumer) {
      Objects.requireNonNull(consumer, "consumer");
      Checks.requireUnset(this.consumer == null, "consumer", this.consumer);
      this.consumer = consumer;
      return this;
    }

    /**
     * Sets how long a partition of a task must have been without a record, and not paused, since
     * its last record or its task's forming, before its own watermark follows the wall clock less
     * the allowed lateness (rule 74). Default 90 seconds, as {@link KafkaWindows}'. A quiet period
     * the monotonic clock never reaches ({@code ChronoUnit.FOREVER.getDuration()}) turns it off: a
     * silent partition then holds its task's unmatched rows until it sends again.
     *
     * @param quietAdvanceAfter the quiet period, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code quietAdvanceAfter} is null
     * @throws IllegalArgumentException if {@code quietAdvanceAfter} is zero or negative
     * @throws IllegalStateException if the quiet period was already set
     */
    public Builder<K, L, R, O> quietAdvanceAfter(Duration quietAdvanceAfter) {
      Checks.requirePositive(quietAdvanceAfter, "quietAdvanceAfter");
      Checks.requireUnset(
          quietAdvanceAfterNanos < 0,
          "quietAdvanceAfter",
          Duration.ofNanos(quietAdvanceAfterNanos));
      quietAdvanceAfterNanos = TimeMath.toNanosSaturated(quietAdvanceAfter);
      return this;
    }

    /**
     * Sets the largest lag of a quiet partition's watermark behind the wall clock at which its
     * quiet-period advance still happens; beyond it the data is a replay or a backfill, which the
     * advance would make late as a whole, and the partition keeps holding its task (logged once at
     * WARN). Default 1 hour, as {@link KafkaWindows}'.
     *
     * @param quietAdvanceMaxLag the bound, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code quietAdvanceMaxLag} is null
     * @throws IllegalArgumentException if {@code quietAdvanceMaxLag} is negative
     * @throws IllegalStateException if the bound was already set
     */
    public Builder<K, L, R, O> quietAdvanceMaxLag(Duration quietAdvanceMaxLag) {
      Checks.requireNonNegative(quietAdvanceMaxLag, "quietAdvanceMaxLag");
      Checks.requireUnset(
          quietAdvanceMaxLagMillis < 0,
          "quietAdvanceMaxLag",
          Duration.ofMillis(quietAdvanceMaxLagMillis));
      quietAdvanceMaxLagMillis = TimeMath.toMillisSaturated(quietAdvanceMaxLag);
      return this;
    }

    /**
     * Sets the clock of the quiet-period rule (its monotonic reading measures the quiet period, its
     * wall-clock reading is what a quiet partition's watermark follows), of {@link
     * #millisSinceLastPoll()} and of the watermark trackers. Default: the system clock; a test
     * passes a {@link io.github.lowwater.ManualClock}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder<K, L, R, O> clock(io.github.lowwater.Clock clock) {
      Objects.requireNonNull(clock, "clock");
      Checks.requireUnset(this.clock == null, "clock", this.clock);
      this.clock = clock;
      return this;
    }

    /**
     * Builds the join.
     *
     * @return the join
     * @throws IllegalStateException if the topics or the consumer are not set
     */
    public KafkaJoin<K, L, R, O> build() {
      if (leftTopic == null) {
        throw new IllegalStateException("topics(left, right) is required");
      }
      if (consumer == null) {
        throw new IllegalStateException("consumer(consumer) is required");
      }
      if (type == null) {
        type = JoinType.INNER;
      }
      return new KafkaJoin<>(this);
    }
  }
}
