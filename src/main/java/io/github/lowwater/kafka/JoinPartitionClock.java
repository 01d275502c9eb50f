package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;

/**
 * The wall-clock decisions of one partition of a {@link KafkaJoin} task (semantics rule 74): its
 * quiet-period rule ({@link QuietAdvance}), the raises its owners took, recorded at the read
 * position where each took effect and carried in its checkpoints ({@link WallClockHistory}'s {@code
 * q<offset>:<watermark>} entries), and the replay of its predecessor's raises when this owner's
 * read position reaches their offsets, so that the re-read records are judged as they were.
 *
 * <p>Two histories from the same restored field: one is replayed, the other carries the restored
 * raises and this owner's own to the next checkpoint. A join task commits while it is still
 * re-reading its predecessor's records (its claims are unions, rule 74), and a {@link
 * WallClockHistory} that encodes a checkpoint stops replaying; the carried one never replays.
 *
 * <p>Not thread-safe: the polling thread. O(1) per record (one comparison when nothing is due), no
 * allocation but the {@code h} field at a commit.
 */
final class JoinPartitionClock {

  /** No raise due: {@link #replayTo} returns it. */
  static final long NO_RAISE = Long.MIN_VALUE;

  private final WallClockHistory replay = new WallClockHistory();
  private final WallClockHistory carried = new WallClockHistory();

  /** The quiet-period rule, or {@code null} when it is off. */
  private final QuietAdvance quiet;

  /** The predecessors' read position: the records below it exist, so the partition is not quiet. */
  private final long readThroughOffset;

  /**
   * @param quiet the partition's quiet-period rule, started at the task's formation; {@code null}
   *     for none
   * @param restoredHistory the {@code h} field of its checkpoint, {@code ""} for none
   * @param readThroughOffset how far its predecessors had read it (their claims' position)
   */
  JoinPartitionClock(QuietAdvance quiet, String restoredHistory, long readThroughOffset) {
    this.quiet = quiet;
    this.readThroughOffset = readThroughOffset;
    replay.restore(restoredHistory);
    carried.restore(restoredHistory);
  }

  /**
   * Returns the highest raise a predecessor recorded at or below {@code offset} and this owner has
   * not applied yet, to apply before the record at {@code offset} (or, at the end of a poll, at the
   * read position); {@link #NO_RAISE} if none.
   */
  long replayTo(long offset) {
    long raise = NO_RAISE;
    while (replay.due(offset)) {
      raise = Math.max(raise, replay.applyDue()); // raises only: decode refuses guard readings
    }
    return raise;
  }

  /**
   * Notes a record read, or a poll in which the partition was paused: the quiet period restarts.
   */
  void activity(long nowNanos) {
    if (quiet != null) {
      quiet.activity(nowNanos);
    }
  }

  /**
   * Applies the quiet-period rule at the end of a poll: returns the watermark to raise the
   * partition's own to, {@code raisedMillis}, and records the raise at {@code position}; or {@link
   * #NO_RAISE}. It raises when the rule is on, the partition is not paused (a paused poll restarts
   * the quiet period), it has been read through its predecessors' position, the raise moves its
   * watermark, and it is quiet with its watermark (or, with none, its task's newest) lagging the
   * wall clock by at most the bound ({@link QuietAdvance#due}).
   *
   * @param position the partition's read position
   * @param ownMillis its own watermark, {@link WatermarkTracker#UNSEEN} if it has none
   * @param newestMillis its task's newest own watermark
   * @param raisedMillis the wall clock less the allowed lateness
   * @param paused whether the caller has the partition paused
   */
  long quietRaise(
      long position,
      long ownMillis,
      long newestMillis,
      long raisedMillis,
      long nowNanos,
      long wallMillis,
      boolean paused) {
    if (quiet == null) {
      return NO_RAISE;
    }
    if (paused) {
      quiet.activity(nowNanos); // paused time is not quiet (rule 28)
      return NO_RAISE;
    }
    long judged = ownMillis == WatermarkTracker.UNSEEN ? newestMillis : ownMillis;
    if (ownMillis >= raisedMillis
        || position < readThroughOffset
        || judged == WatermarkTracker.NO_WATERMARK
        || !quiet.due(nowNanos, judged, wallMillis)) {
      return NO_RAISE;
    }
    carried.raised(position, raisedMillis);
    return raisedMillis;
  }

  /**
   * The {@code h} field of a checkpoint committed at {@code committedOffset}: the raises after it.
   * Forgets the raises at or below it (a task's commit never moves back).
   *
   * @return the entries, {@code ""} for none, or {@code null} if more than a checkpoint carries
   */
  String encodeFrom(long committedOffset) {
    return carried.encodeFrom(committedOffset);
  }
}
