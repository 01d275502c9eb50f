package io.github.lowwater.kafka;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinRow;
import io.github.lowwater.join.JoinSide;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.join.Joiner;
import io.github.lowwater.join.LateJoinHandler;
import io.github.lowwater.join.StreamJoin;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task of a {@link KafkaJoin}: partition <i>i</i> of the left topic and partition <i>i</i> of
 * the right one, joined by one {@link StreamJoin} whose two sources are the two partitions.
 *
 * <p>It keeps each partition's read position and {@link JoinPins}, and at every drain the offsets
 * to commit with their {@link JoinCheckpoint}s. Built from the two partitions' committed
 * checkpoints, it restores each partition's own watermark as a punctuation (so the re-read records
 * get the verdicts they had) and does not emit again the rows the checkpoints' claims say were
 * emitted. Each partition has its own quiet-period rule and history ({@link JoinPartitionClock}): a
 * partition silent for the quiet period has its own watermark raised to the wall clock less the
 * allowed lateness (a punctuation of its source), recorded at its read position and carried in its
 * checkpoint, and a new owner replays its predecessor's raises where they were taken (rule 74).
 * Writer thread only.
 */
final class JoinTask<K, L, R, O> {

  /** The quiet-period rule's lines name the class the user configured. */
  private static final Logger QUIET_LOG = LoggerFactory.getLogger(KafkaJoin.class);

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KafkaJoin.class);

  /** The configuration every task of one {@link KafkaJoin} shares. */
  record Spec<K, L, R, O>(
      JoinInterval interval,
      JoinType type,
      Duration allowedLateness,
      Joiner<? super K, ? super L, ? super R, ? extends O> joiner,
      LateJoinHandler<? super K> lateHandler,
      LateJoinRecordHandler lateRecordHandler,
      JoinCounters counters,
      Clock clock,
      long allowedLatenessMillis,
      long quietAdvanceAfterNanos,
      long quietAdvanceMaxLagMillis) {

    /** Whether the quiet-period rule is on: a quiet period the monotonic clock can reach. */
    boolean quietAdvance() {
      return quietAdvanceAfterNanos != Long.MAX_VALUE;
    }
  }

  /** A record's value with its offset and time, as the task's join buffers it. */
  record Tagged<V>(long offset, long timeMillis, V value) {}

  /** A row's value with the offsets of its records; or {@link #SUPPRESSED}. */
  record Joined<O>(O value, long leftOffset, long rightOffset) {}

  private static final Joined<?> SUPPRESSED = new Joined<>(null, -1, -1);

  final int partition;
  final TopicPartition left;
  final TopicPartition right;
  private final Spec<K, L, R, O> spec;
  private final StreamJoin<K, Tagged<L>, Tagged<R>, Joined<O>> join;
  private final WatermarkTracker.Source leftSource;
  private final WatermarkTracker.Source rightSource;
  private final JoinPins leftPins = new JoinPins();
  private final JoinPins rightPins = new JoinPins();
  private final JoinCheckpoint restored;
  private final JoinPartitionClock leftClock;
  private final JoinPartitionClock rightClock;
  private long leftPosition;
  private long rightPosition;
  private Map<TopicPartition, OffsetAndMetadata> committable = Map.of();

  private final JoinCounters counters;

  JoinTask(
      Spec<K, L, R, O> spec,
      TopicPartition left,
      long leftStart,
      JoinCheckpoint leftCheckpoint,
      TopicPartition right,
      long rightStart,
      JoinCheckpoint rightCheckpoint) {
    this.spec = spec;
    this.counters = spec.counters();
    this.partition = left.partition();
    this.left = left;
    this.right = right;
    this.leftPosition = leftStart;
    this.rightPosition = rightStart;
    this.restored = leftCheckpoint.withClaimsOf(rightCheckpoint);
    StreamJoin.Builder<K, Tagged<L>, Tagged<R>, Joined<O>> b =
        StreamJoin.<K, Tagged<L>, Tagged<R>, Joined<O>>builder(spec.interval(), this::joined)
            .type(spec.type())
            // No idleness: a task must not pass a silent partition by a decision no checkpoint
            // carries (rule 74); a new owner would judge the same records otherwise.
            .idleTimeout(ChronoUnit.FOREVER.getDuration())
            .lateHandler(this::late)
            .allowedLateness(spec.allowedLateness())
            .clock(spec.clock());
    this.join = b.build();
    join.register(left);
    join.register(right);
    this.leftSource = join.source(left);
    this.rightSource = join.source(right);
    // Each partition's own watermark as the previous owner had it at the committed offset, exactly:
    // the re-read records are judged as they were.
    if (leftCheckpoint.watermarkMillis() != WatermarkTracker.UNSEEN) {
      join.punctuate(leftSource, leftCheckpoint.watermarkMillis());
    }
    if (rightCheckpoint.watermarkMillis() != WatermarkTracker.UNSEEN) {
      join.punctuate(rightSource, rightCheckpoint.watermarkMillis());
    }
    join.pollResults(); // a punctuation releases nothing: nothing is buffered yet
    long nowNanos = spec.clock().monotonicNanos(); // the quiet periods start at the forming
    this.leftClock =
        new JoinPartitionClock(
            quiet(left, nowNanos), leftCheckpoint.history(), restored.readThrough(JoinSide.LEFT));
    this.rightClock =
        new JoinPartitionClock(
            quiet(right, nowNanos),
            rightCheckpoint.history(),
            restored.readThrough(JoinSide.RIGHT));
  }

  private QuietAdvance quiet(TopicPartition tp, long nowNanos) {
    return spec.quietAdvance()
        ? new QuietAdvance(
            spec.quietAdvanceAfterNanos(), spec.quietAdvanceMaxLagMillis(), tp, nowNanos, QUIET_LOG)
        : null;
  }

  /**
   * Adds one record of the left partition or the right one, read at {@code offset}. A joiner or
   * late handler that throws leaves the join as it was and the position unmoved: the caller rewinds
   * the task to its last commit.
   */
  @SuppressWarnings("unchecked") // the value's type is the side's, by the caller's mapping
  void add(boolean isLeft, ConsumerRecord<?, ?> record, long timeMillis, K key, Object value) {
    long offset = record.offset();
    replayTo(isLeft, offset); // a predecessor's raise before this record: as it judged it
    current = record; // what a late record handler gets: the join calls it within this add
    JoinPins pins = isLeft ? leftPins : rightPins;
    WatermarkTracker.Source source = isLeft ? leftSource : rightSource;
    long before = join.sourceWatermark(source);
    boolean onTime =
        isLeft
            ? join.addLeft(source, timeMillis, key, new Tagged<>(offset, timeMillis, (L) value))
            : join.addRight(source, timeMillis, key, new Tagged<>(offset, timeMillis, (R) value));
    skip(isLeft, offset);
    if (onTime && key != null) { // a null key pairs with nothing: its row, if any, is out already
      pins.pin(offset, pinMillis(isLeft ? JoinSide.LEFT : JoinSide.RIGHT, timeMillis), before);
    }
    release();
  }

  /** Moves past a record that is not joined (its key or value mapped to null). */
  void skip(boolean isLeft, long offset) {
    replayTo(isLeft, offset);
    if (isLeft) {
      leftPosition = offset + 1;
    } else {
      rightPosition = offset + 1;
    }
  }

  /**
   * Applies a predecessor's raises of one partition that took effect at or below {@code offset}: a
   * punctuation of its source, as the raise was.
   */
  private void replayTo(boolean isLeft, long offset) {
    long raise = (isLeft ? leftClock : rightClock).replayTo(offset);
    if (raise != JoinPartitionClock.NO_RAISE) {
      join.punctuate(isLeft ? leftSource : rightSource, raise);
    }
  }

  /** Notes that a partition delivered records in this poll: its quiet period starts again. */
  void activity(boolean isLeft, long nowNanos) {
    (isLeft ? leftClock : rightClock).activity(nowNanos);
  }

  /**
   * The end of a poll: replays the raises due at each partition's read position, then applies the
   * quiet-period rule to each (rule 74). A partition paused by the caller is not quiet. A partition
   * without a record of its own counts as having its task's newest watermark, as in rule 73; every
   * partition of a formed task has a read position (its commit, or where the consumer was when the
   * task was formed), so a raise is always carried.
   *
   * @param paused the partitions the consumer has paused
   */
  void afterPoll(long nowNanos, long wallMillis, Set<TopicPartition> paused) {
    replayTo(true, leftPosition);
    replayTo(false, rightPosition);
    if (spec.quietAdvance()) {
      long raised = TimeMath.saturatedSubtract(wallMillis, spec.allowedLatenessMillis());
      long ownLeft = join.sourceWatermark(leftSource);
      long ownRight = join.sourceWatermark(rightSource);
      long newest = Math.max(ownLeft, ownRight);
      raise(
          leftSource,
          leftClock.quietRaise(
              leftPosition, ownLeft, newest, raised, nowNanos, wallMillis, paused.contains(left)));
      raise(
          rightSource,
          rightClock.quietRaise(
              rightPosition,
              ownRight,
              newest,
              raised,
              nowNanos,
              wallMillis,
              paused.contains(right)));
    }
    release();
  }

  private void raise(WatermarkTracker.Source source, long watermarkMillis) {
    if (watermarkMillis != JoinPartitionClock.NO_RAISE) {
      join.punctuate(source, watermarkMillis);
      counters.quietAdvances++;
    }
  }

  /** The end of a bounded input: every waiting record is released. */
  void finish() {
    join.finish();
    release();
  }

  private void release() {
    long watermark = join.watermark();
    if (watermark == releasedAt) {
      return; // a record just pinned is above the watermark: nothing new to release
    }
    releasedAt = watermark;
    leftPins.release(watermark);
    rightPins.release(watermark);
  }

  /** The record being added: the late record handler's. */
  private ConsumerRecord<?, ?> current;

  /** The watermark the pins were last released at. */
  private long releasedAt = Long.MIN_VALUE;

  /** Appends the rows computed since the last drain, and takes the offsets to commit for them. */
  void drain(List<KafkaJoinRow<K, O>> out) {
    for (JoinRow<K, Joined<O>> row : join.pollResults()) {
      Joined<O> j = row.value();
      if (j == SUPPRESSED) {
        counters.suppressed++;
        continue;
      }
      if (row.kind() == JoinRow.Kind.PAIR) {
        counters.pairs++;
      } else {
        counters.unmatched++;
      }
      out.add(
          new KafkaJoinRow<>(
              row.kind(),
              row.key(),
              row.timeMillis(),
              j.value(),
              partition,
              j.leftOffset(),
              j.rightOffset()));
    }
    // One set of claims for both partitions (the same commit); each partition adds its watermark.
    long committedLeft = committedOffset(leftPins, leftPosition);
    long committedRight = committedOffset(rightPins, rightPosition);
    JoinCheckpoint claims =
        JoinCheckpoint.at(
            WatermarkTracker.UNSEEN,
            leftPosition,
            rightPosition,
            join.watermark(),
            restored,
            committedLeft,
            committedRight);
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>(4);
    offsets.put(left, commitOf(committedLeft, leftPins, leftSource, leftClock, claims));
    offsets.put(right, commitOf(committedRight, rightPins, rightSource, rightClock, claims));
    for (OffsetAndMetadata o : offsets.values()) {
      if (o == null) {
        return; // more raises since the commit than a checkpoint carries: the last one stays
      }
      if (o.metadata().length() > JoinCheckpoint.MAX_BYTES) {
        tooLong(o.metadata().length(), claims);
        return; // the last checkpoint that fitted stays: a true one, as after a failed commit
      }
    }
    tooLongWarned = false;
    committable = offsets;
  }

  private boolean tooLongWarned;

  /** Logs once per episode that the checkpoint outgrew the broker's limit. */
  private void tooLong(int length, JoinCheckpoint claims) {
    if (tooLongWarned) {
      return;
    }
    tooLongWarned = true;
    LOG.warn(
        "{}: its checkpoint is {} characters, over the broker's default offset.metadata.max.bytes"
            + " {} ({} claims: owners changed faster than they re-read); its commit stays at the"
            + " last checkpoint that fitted until the committed offsets pass enough claims",
        this,
        length,
        JoinCheckpoint.MAX_BYTES,
        claims.claimCount());
  }

  /**
   * The commit of one partition at {@code offset}, or {@code null} if its raises since then are
   * more than a checkpoint carries ({@link WallClockHistory#MAX_ENTRIES}).
   */
  private OffsetAndMetadata commitOf(
      long offset,
      JoinPins pins,
      WatermarkTracker.Source source,
      JoinPartitionClock clock,
      JoinCheckpoint claims) {
    long watermark = pins.isEmpty() ? join.sourceWatermark(source) : pins.watermarkBeforeOldest();
    String history = clock.encodeFrom(offset);
    return history == null
        ? null
        : new OffsetAndMetadata(offset, claims.of(watermark, history).encode());
  }

  private static long committedOffset(JoinPins pins, long position) {
    return pins.isEmpty() ? position : pins.oldestOffset();
  }

  /** The offsets and checkpoints of the last drain (empty before the first). */
  Map<TopicPartition, OffsetAndMetadata> committable() {
    return committable;
  }

  @SuppressWarnings("unchecked")
  private Joined<O> joined(K key, Tagged<L> l, Tagged<R> r) {
    if (l != null && r != null) {
      if (restored.pairEmitted(l.offset(), r.offset())) {
        return (Joined<O>) SUPPRESSED;
      }
      return new Joined<>(spec.joiner().join(key, l.value(), r.value()), l.offset(), r.offset());
    }
    JoinSide side = l != null ? JoinSide.LEFT : JoinSide.RIGHT;
    Tagged<?> t = l != null ? l : r;
    // A null key's row is emitted when its record is read: before the claim if the record is below
    // its position.
    if (key == null
        ? restored.read(side, t.offset())
        : restored.unmatchedEmitted(side, t.offset(), closeMillis(side, t.timeMillis()))) {
      return (Joined<O>) SUPPRESSED;
    }
    return l != null
        ? new Joined<>(spec.joiner().join(key, l.value(), null), l.offset(), -1)
        : new Joined<>(spec.joiner().join(key, null, r.value()), -1, r.offset());
  }

  private void late(
      JoinSide side, Object source, long timeMillis, long watermarkMillis, K key, Object value) {
    Tagged<?> t = (Tagged<?>) value;
    if (side == JoinSide.LEFT) {
      counters.lateLeft++;
    } else {
      counters.lateRight++;
    }
    if (restored.read(side, t.offset())) {
      counters.redelivered++; // reported when it was first read
      return;
    }
    if (spec.lateHandler() != null) {
      spec.lateHandler().onLateRecord(side, source, timeMillis, watermarkMillis, key, t.value());
    }
    if (spec.lateRecordHandler() != null) {
      reportLate(side, timeMillis, watermarkMillis);
    }
  }

  /**
   * Hands the current record to the late record handler: an unchecked exception propagates as it
   * is, a checked one wrapped in an {@link IllegalStateException} that names the record.
   */
  private void reportLate(JoinSide side, long timeMillis, long watermarkMillis) {
    try {
      spec.lateRecordHandler().onLateRecord(side, current, timeMillis, watermarkMillis);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "the late record handler failed on "
              + current.topic()
              + "-"
              + current.partition()
              + "@"
              + current.offset(),
          e);
    }
  }

  /** The watermark at which a record stops waiting (JoinInterval's close time, rule 69). */
  private long closeMillis(JoinSide side, long t) {
    JoinInterval i = spec.interval();
    long last =
        side == JoinSide.LEFT
            ? TimeMath.saturatedAdd(t, i.upperMillis())
            : TimeMath.saturatedSubtract(t, i.lowerMillis());
    return TimeMath.saturatedAdd(last, 1);
  }

  /**
   * The watermark at which no on-time record can pair with this one or with any of its partners'
   * waiting: its own close time, or its latest possible partner's if later.
   */
  private long pinMillis(JoinSide side, long t) {
    JoinInterval i = spec.interval();
    long extra =
        side == JoinSide.LEFT ? TimeMath.saturatedSubtract(0, i.lowerMillis()) : i.upperMillis();
    return TimeMath.saturatedAdd(closeMillis(side, t), Math.max(0, extra));
  }

  long watermark() {
    return join.watermark();
  }

  int buffered() {
    return join.buffered(JoinSide.LEFT) + join.buffered(JoinSide.RIGHT);
  }

  @Override
  public String toString() {
    return "task " + partition + " [" + left + ", " + right + "]";
  }
}
