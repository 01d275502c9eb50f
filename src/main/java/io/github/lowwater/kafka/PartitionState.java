package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.SlidingWindows;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@link KafkaWindows} keeps for one assigned partition: its windows (its own in {@link
 * ResultScope#PER_PARTITION}, the shared ones in {@link ResultScope#MERGED}) and its handle there,
 * the offsets it still needs ({@link OffsetLedger}), what the previous owner's {@link Checkpoint}
 * said, and its quiet-period rule. Not thread-safe; polling thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PartitionState<K, V, R> implements ResultDrain.Unit<K, V, R> {

  final TopicPartition partition;
  final EventTimeWindows<K, V, R> windows;

  /**
   * The same windows when they are session windows, else {@code null}. A session's end is not a
   * function of one record's time, so the ledger holds a record by its time's grain (a gap long)
   * and lets it go once no pending session starts before that grain's end.
   */
  private final SessionWindows<K, V, R> sessions;

  /**
   * Sliding windows: the grain a record's hold end is rounded up to, {@code (d + 2) / 16}, at least
   * 1; 0 for the other kinds. A sliding record's last window end is its own time plus {@code d +
   * 2}, nearly one per record: the grain keeps the ledger to about 16 entries per {@code d} of
   * event time, for a hold at most a grain longer.
   */
  private final long slidingGrain;

  /** Sessions: records read since the ledger was last released, against the cost of a release. */
  private long readSinceRelease;

  /** Sessions: the oldest pending session's start as of the last release, for other threads. */
  private volatile long publishedOldestSessionStart = WatermarkTracker.NO_WATERMARK;

  /**
   * {@code CO_PARTITIONED}: its windows are its task's, judged per source; a wall-clock raise lifts
   * its own watermark only (see {@link #raiseSource()}).
   */
  boolean ownWatermark;

  /** The partition's handle in {@link #windows}: no hash lookup per record. */
  WatermarkTracker.Source source;

  final OffsetLedger ledger = new OffsetLedger();

  /** Its wall-clock decisions: recorded, carried by the checkpoint, replayed by the next owner. */
  final PartitionWallClock wallClock = new PartitionWallClock();

  /** The last offset and checkpoint whose history fitted in a checkpoint, or {@code null}. */
  private OffsetAndMetadata lastFitting;

  /** The partition's own quiet-period rule ({@code PER_PARTITION}), or {@code null}. */
  final QuietAdvance quiet;

  /** The next offset to read, or -1 before the first record. */
  long nextOffset = -1;

  /** The first offset this owner read, or -1 before the first record. */
  long firstReadOffset = -1;

  /** The ledger key of the previous held record (see {@link #hold}), or {@code Long.MIN_VALUE}. */
  private long lastHeldKey = Long.MIN_VALUE;

  /** Every window of this partition ending at or before it has been returned by this owner. */
  long returnedThroughMillis = WatermarkTracker.NO_WATERMARK;

  /** From the previous owner's checkpoint: windows ending at or before it were written. */
  long writtenThroughMillis = WatermarkTracker.NO_WATERMARK;

  /**
   * {@code CO_PARTITIONED}: the largest written-through time of the checkpoints of its task's
   * partitions; every window ending at or before it was written, with every partition's records.
   */
  long sharedWrittenThroughMillis = WatermarkTracker.NO_WATERMARK;

  /** From the previous owner's checkpoint: it had read every record below this offset. */
  long readThroughOffset;

  /**
   * Whether the previous owner judged lateness otherwise than these windows do (another allowed
   * lateness, future guard, grace period or period of early results: its checkpoint says so; issue
   * 45, item 1): none of its verdicts on the records below {@link #readThroughOffset} is taken on
   * trust but its claim that the windows ending by {@link #writtenThroughMillis} are written. A
   * record these windows find late there is reported {@code LATE}, not {@code REDELIVERED}, and the
   * rows of the re-read records are handed out even to a sink that drops replayed rows: the
   * predecessor may not have given them.
   */
  boolean reconfigured;

  /** From the previous owner's checkpoint: the frontier as of the committed offset. */
  long restoredFrontierMillis = WatermarkTracker.NO_WATERMARK;

  /**
   * The offset and checkpoint the previous owner committed, as read at assignment, or {@code null}
   * without one: committed again unchanged until this owner has read through {@link
   * #readThroughOffset} (see {@link #committable()}).
   */
  OffsetAndMetadata restoredCommit;

  /**
   * {@code MERGED}, a partition given back to the same instance: the records below this offset are
   * in the merged windows already.
   */
  long processedBelowOffset;

  /** After {@code finishAll}: the newest window end the checkpoint may claim as written. */
  long finishedThroughMillis = Long.MAX_VALUE;

  /** The frontier as of the end of the last poll, for readers on other threads. */
  private volatile long publishedFrontier = WatermarkTracker.UNSEEN;

  /** The monotonic time of its last record, or of its assignment before the first. */
  long lastRecordNanos;

  /** The wall-clock time of the poll whose records are being read: the ledger notes it. */
  long pollWallMillis;

  /**
   * Why the partition started without a usable checkpoint although one was committed (none,
   * unreadable, carried from another log), or {@code null}: read at assignment, acted on by {@link
   * MissingRecords} at the first records.
   */
  String unusableCheckpoint;

  /** Whether the partition started from a checkpoint it uses. */
  boolean restoredCheckpoint;

  /** Whether the first records of this history were checked by {@link MissingRecords}. */
  boolean startChecked;

  /**
   * Rows of windows starting before it may lack records (semantics rule 64): {@link
   * Checkpoint#COMPLETE} for none. Polling thread.
   */
  private long incompleteBeforeMillis = Checkpoint.COMPLETE;

  /** Records may be missing and the bound is not known yet: every row is incomplete. */
  private boolean incompletePending;

  /** Whether its resume distance was over the limit at the last poll (rule 66). */
  boolean overResumeLimit;

  /** Its progress as other threads read it (issue 33), published once per poll. */
  final PartitionProgress progress = new PartitionProgress();

  PartitionState(
      TopicPartition partition,
      EventTimeWindows<K, V, R> windows,
      QuietAdvance quiet,
      long assignedNanos) {
    this.partition = partition;
    this.lastRecordNanos = assignedNanos;
    this.windows = windows;
    this.sessions =
        windows instanceof SessionWindows<K, V, R> s ? s : null; // the kind, fixed at build()
    this.slidingGrain =
        windows instanceof SlidingWindows<?, ?, ?> s
            ? Math.max(1, TimeMath.saturatedAdd(s.timeDifferenceMillis(), 2) / 16)
            : 0;
    this.source = windows.source(partition);
    this.quiet = quiet;
  }

  @Override
  public EventTimeWindows<K, V, R> unitWindows() {
    return windows;
  }

  @Override
  public TopicPartition rowSource() {
    return partition;
  }

  /** Whether the windows are session windows. */
  boolean sessions() {
    return sessions != null;
  }

  /**
   * Holds the record at {@code offset} under {@code key} unless the previous held record had the
   * same key (its window-mates skip the ledger). Called before the add: if the add then fails, an
   * extra hold only makes the commit cautious. {@code key} is above {@code Long.MIN_VALUE}, the
   * cache's "none".
   */
  void hold(long key, long offset, long watermarkBefore, long t) {
    if (key != lastHeldKey) {
      ledger.hold(key, offset, watermarkBefore, frontier(), t, pollWallMillis);
      lastHeldKey = key;
    }
  }

  /**
   * The ledger key of a record whose windows all end by {@code lastAffectedEnd}: that end, or for
   * sliding windows that end rounded up to its grain (saturating).
   */
  long holdEnd(long lastAffectedEnd) {
    if (slidingGrain <= 1) {
      return lastAffectedEnd;
    }
    long up = Math.floorMod(-lastAffectedEnd, slidingGrain);
    return TimeMath.saturatedAdd(lastAffectedEnd, up);
  }

  /**
   * Sessions: holds a record at {@code t} by the end (exclusive) of its gap-long grain, let go once
   * no pending session starts before it ({@link #returned()}), and counts it for the release.
   */
  void holdSessionRecord(long t, long offset, long watermarkBefore) {
    long gap = sessions.gapMillis();
    hold(TimeMath.saturatedAdd(t, gap - Math.floorMod(t, gap)), offset, watermarkBefore, t); // > t
    readSinceRelease++;
  }

  /**
   * Notes that the windows finalized so far were returned: each window ending by the watermark.
   * Sessions also let go of the records older than every pending session, once enough records were
   * read since the last time to pay for the walk over the pending sessions (amortized O(1) per
   * record): a release that comes later only makes the commit more cautious.
   */
  @Override
  public void returned() {
    returnedThroughMillis = retiredThrough(windows.watermark(), windows.graceMillis());
    if (sessions != null && ledger.size() > 0 && readSinceRelease >= sessions.pendingSessions()) {
      readSinceRelease = 0;
      long oldest = sessions.oldestPendingStartMillis();
      ledger.release(oldest); // every grain that ends by it holds no pending session's record
      publishedOldestSessionStart =
          oldest == Long.MAX_VALUE ? WatermarkTracker.NO_WATERMARK : oldest;
      lastHeldKey = Long.MIN_VALUE; // its grain may be gone from the ledger
    }
  }

  /**
   * The newest window end retired at {@code watermarkMillis}: a window ending at E retires once
   * {@code E + grace}, saturating, is at or below the watermark (rule 52). So every end when the
   * watermark is {@code Long.MAX_VALUE} (after {@code finishAll}, where {@code watermark - grace}
   * would leave the windows ending above it holding the commit, issue 32 defect 6), else {@code
   * watermark - grace}.
   */
  static long retiredThrough(long watermarkMillis, long graceMillis) {
    return watermarkMillis == Long.MAX_VALUE
        ? Long.MAX_VALUE
        : TimeMath.saturatedSubtract(watermarkMillis, graceMillis);
  }

  /**
   * Sessions: the start of the oldest session not yet returned as of the last release, or {@link
   * WatermarkTracker#NO_WATERMARK} (none, or not sessions). Any thread.
   */
  long publishedOldestSessionStart() {
    return publishedOldestSessionStart;
  }

  /**
   * The newest end a window holding one of the held records may have, for {@code finishAll}'s
   * claim: the newest held window's end, or for sessions the newest grain's last millisecond plus
   * the gap.
   */
  long newestHeldEnd() {
    long newest = ledger.newestEnd();
    if (sessions == null || newest == Long.MIN_VALUE) {
      return newest;
    }
    return TimeMath.saturatedAdd(newest - 1, sessions.gapMillis()); // the grain's last ms + gap
  }

  /**
   * Takes over what the previous owner committed.
   *
   * @param checkpoint the decoded metadata of the committed offset
   */
  void restore(OffsetAndMetadata committed, Checkpoint checkpoint) {
    restoredCommit = committed;
    restoredCheckpoint = checkpoint != Checkpoint.NONE;
    incompleteBeforeMillis = checkpoint.incompleteBeforeMillis();
    nextOffset = committed.offset(); // so that a partition that stays silent still commits
    writtenThroughMillis = checkpoint.writtenThroughMillis();
    readThroughOffset = checkpoint.readThroughOffset();
    restoredFrontierMillis = checkpoint.frontierMillis();
    publishedFrontier = restoredFrontierMillis;
  }

  /**
   * Records this reading lacks may belong to its windows (rule 64): every row is incomplete until
   * {@link #settleIncomplete()} bounds them.
   */
  void missingRecords() {
    incompletePending = true;
  }

  /**
   * Bounds the windows that the missing records may belong to, once this reading's records have a
   * frontier (after its first poll of records): a record before the first one read is at most the
   * frontier before it, and that frontier is below {@code reach(t) + grace + lateness} for any
   * record at {@code t} that one uninterrupted reading would not have found late (assumed of one
   * record of that poll; the bound takes their largest time, {@code reach} never decreasing).
   * {@code reach(t)} is the end of the last window a record at {@code t} can change ({@link
   * EventTimeWindows#lastAffectedWindowEnd}: for tumbling, hopping and calendar windows the end of
   * its last window, issue 45, item 6; for sliding windows {@code t + d + 2}), for sessions {@code
   * t + 2 gaps}, as a session reaches a gap before its first record. Windows starting at or after
   * that bound hold none of the missing records, and the uninterrupted reading judged their records
   * as this one does. Nothing changes while the frontier is unknown (every record so far late or
   * beyond the future guard).
   */
  void settleIncomplete() {
    long frontier = windows.frontier(source); // this reading's own records, not the checkpoint's
    if (!incompletePending || frontier == WatermarkTracker.UNSEEN) {
      return;
    }
    long bound =
        TimeMath.saturatedAdd(
            reachMillis(windows, frontier),
            TimeMath.saturatedAdd(windows.graceMillis(), windows.allowedLatenessMillis()));
    incompleteBeforeMillis = Math.max(incompleteBeforeMillis, bound);
    incompletePending = false;
  }

  /** Whether its rows may be marked incomplete: records are missing, or the bound is pending. */
  boolean incompleteRows() {
    return incompletePending || incompleteBeforeMillis != Checkpoint.COMPLETE;
  }

  /**
   * Rows of windows starting before it may lack records: {@link Checkpoint#COMPLETE} when every row
   * is complete, {@code Long.MAX_VALUE} while the bound is pending. Polling thread.
   */
  @Override
  public long incompleteBeforeMillis() {
    return incompletePending ? Long.MAX_VALUE : incompleteBeforeMillis;
  }

  /** The settled bound alone, for a checkpoint and for a partition that leaves the instance. */
  long settledIncompleteBeforeMillis() {
    return incompleteBeforeMillis;
  }

  /**
   * The end of the last window a record at {@code t} can change (see above), saturating: a session
   * it starts reaches a gap past it and may take in a session a gap further.
   */
  private static long reachMillis(EventTimeWindows<?, ?, ?> windows, long t) {
    if (windows instanceof SessionWindows<?, ?, ?> s) {
      return TimeMath.saturatedAdd(windows.lastWindowEnd(t), s.gapMillis());
    }
    // A frontier no window can hold (hopping windows within a size of the bounds): at the top.
    return windows.windowable(t) ? windows.lastAffectedWindowEnd(t) : Long.MAX_VALUE;
  }

  /**
   * Returns whether this owner has not yet read every record its previous owner had read: the
   * checkpoint proves that records up to {@link #readThroughOffset} exist, so the partition is not
   * quiet, and this owner's own claims are not yet one consistent history (see {@link
   * #committable()}). A partition with no commit had no previous owner: never behind, read or not
   * (issue 45, item 7: one that had sent nothing counted as behind, {@code -1 < 0}, and so was
   * never quiet, and held its co-partitioned task, or a {@code MERGED} instance's quiet advance,
   * for ever).
   */
  boolean behindPreviousOwner() {
    return restoredCommit != null && nextOffset < readThroughOffset;
  }

  /**
   * The consumer's position is past records this owner never received: if it is at or past the
   * previous owner's read position, the records in between are gone (retention or compaction
   * deleted them), and this owner is no longer behind: it reads on from there, and its partition
   * may be quiet again. Returns whether that changed anything.
   *
   * @param position the consumer's position of the partition
   */
  boolean readPositionSkippedTo(long position) {
    if (restoredCommit == null || !behindPreviousOwner() || position < readThroughOffset) {
      return false;
    }
    nextOffset = position;
    wallClock.replayTo(position, false, windows, raiseSource()); // its predecessor's raises
    return true;
  }

  /**
   * Starts the history of a partition that has no commit and has sent nothing on this instance at
   * the consumer's position, as if it had read up to there: so that a wall-clock raise of its own
   * watermark (a co-partitioned task's silent side, rule 73) is recorded at an offset and committed
   * with it, for its next owner to replay (rule 61). Does nothing once it has a read position.
   *
   * @param position the consumer's position of the partition
   */
  void startAt(long position) {
    if (nextOffset < 0) {
      nextOffset = position;
    }
  }

  /** Notes that every record below {@code offset + 1} has been read; never moves back. */
  void readPast(long offset) {
    if (firstReadOffset < 0) {
      firstReadOffset = offset;
    }
    nextOffset = Math.max(nextOffset, offset + 1);
  }

  /**
   * {@code MERGED}: the partition was revoked and is given back to this instance; the consumer
   * reads again from the committed offset, and what it had read is in the windows already.
   *
   * @param handle the partition's new handle in the windows (the old one was removed)
   */
  void rejoin(WatermarkTracker.Source handle) {
    source = handle;
    processedBelowOffset = Math.max(processedBelowOffset, nextOffset);
    lastHeldKey = Long.MIN_VALUE;
  }

  /**
   * Returns whether a record is redelivered: its window was written by a previous owner, which had
   * read it.
   */
  boolean redelivered(long windowEndMillis, long offset) {
    return windowEndMillis <= writtenThroughMillis && offset < readThroughOffset;
  }

  /**
   * The watermark this partition's next record is judged against: the windows' watermark, or in
   * {@code CO_PARTITIONED} its own (semantics rule 72), which its checkpoint carries so that the
   * next owner judges the records it re-reads as this one did. Polling thread.
   */
  long judgedWatermark() {
    return windows.watermarkFor(source);
  }

  /** The source a replayed wall-clock raise lifts: its own in {@code CO_PARTITIONED}, else null. */
  Object raiseSource() {
    return ownWatermark ? source : null;
  }

  /** Publishes the frontier for readers on other threads: once per partition and poll. */
  void publishFrontier() {
    publishedFrontier = frontier();
  }

  /** The frontier as of the last {@link #publishFrontier()}; any thread. */
  long publishedFrontier() {
    return publishedFrontier;
  }

  /** The partition's frontier, counting what the previous owners saw. Polling thread. */
  long frontier() {
    return Math.max(restoredFrontierMillis, windows.frontier(source));
  }

  /** Lets the ledger go of the windows returned so far; sessions release when they return. */
  void releaseReturned() {
    if (sessions == null) {
      ledger.release(returnedThroughMillis);
      if (lastHeldKey <= returnedThroughMillis) {
        lastHeldKey = Long.MIN_VALUE;
      }
    }
  }

  /**
   * Publishes the partition's progress for other threads (issue 33): where a new owner would resume
   * (the offset {@link #committable()} would give, without computing a checkpoint), how far behind
   * the read position that is, and when and at what event time the record there was read.
   *
   * @param lag the consumer's lag for the partition (log end minus position), -1 if unknown
   */
  void publishProgress(long lag) {
    releaseReturned();
    if (nextOffset < 0) {
      progress.publish(lag, -1, PartitionProgress.UNKNOWN, PartitionProgress.UNKNOWN);
    } else if (behindPreviousOwner()) {
      long resume = restoredCommit.offset();
      progress.publish(
          lag,
          Math.max(0, nextOffset - resume),
          PartitionProgress.UNKNOWN,
          PartitionProgress.UNKNOWN);
    } else {
      int oldest = ledger.oldest();
      if (oldest < 0) {
        progress.publish(lag, 0, PartitionProgress.NOTHING_HELD, PartitionProgress.NOTHING_HELD);
      } else {
        progress.publish(
            lag,
            Math.max(0, nextOffset - ledger.offset(oldest)),
            ledger.readWallMillis(oldest),
            ledger.eventTime(oldest));
      }
    }
  }

  /**
   * What holds the partition's commit back, in words, for the WARN of the resume-distance limit
   * (rule 66): the predecessor's commit, an open window, a window in its grace period, or a session
   * that has not ended.
   */
  String commitHolder() {
    if (behindPreviousOwner() || !startChecked) {
      return "the previous owner's commit, until this owner has read through offset "
          + readThroughOffset;
    }
    int oldest = ledger.oldest();
    if (oldest < 0) {
      return "nothing";
    }
    String record =
        "the record at offset "
            + ledger.offset(oldest)
            + " (event time "
            + TimeMath.describeMillis(ledger.eventTime(oldest))
            + ")";
    if (sessions != null) {
      return "a session that has not ended, which holds "
          + record
          + (sessions.maxSpanMillis() > 0
              ? ""
              : "; without maxSessionSpan a session that never falls silent holds it without bound");
    }
    long end = ledger.end(oldest);
    long watermark = windows.watermark();
    if (watermark >= end) {
      return "the grace period of the window ending at "
          + TimeMath.describeMillis(end)
          + " (it retires when the watermark reaches "
          + TimeMath.describeMillis(TimeMath.saturatedAdd(end, windows.graceMillis()))
          + "), which holds "
          + record;
    }
    return (slidingGrain > 0
            ? "the windows it starts or is in, the last ending by "
            : "the window ending at ")
        + TimeMath.describeMillis(end)
        + ", still open (the watermark is "
        + TimeMath.describeMillis(watermark)
        + "), which holds "
        + record;
  }

  /**
   * Returns the offset to commit with its checkpoint: the oldest record in a window not returned
   * yet, or the next offset to read when there is none. Call only once the partition has delivered
   * ({@code nextOffset >= 0}).
   *
   * <p>A checkpoint claims only what one owner's history proves: the records below {@code n} whose
   * window ends at or before {@code e} are in written rows or were late. This owner proves that for
   * the records it read itself, and inherits the previous owner's claim for the records below that
   * owner's {@code n}. Until it has read through that {@code n}, no single pair covers both (its
   * {@code e} with the previous {@code n} would claim records it never read, written by no one), so
   * it commits the previous owner's offset and checkpoint unchanged: the next owner starts where
   * this one did, and computes the same rows from the same records.
   *
   * @return the offset and its checkpoint metadata
   */
  OffsetAndMetadata committable() {
    releaseReturned();
    if (behindPreviousOwner() || !startChecked) {
      // Before its first records are checked (rule 65) a new checkpoint would hide a commit that
      // came without a usable one: the next owner must find what this one found.
      return restoredCommit;
    }
    int oldest = ledger.oldest();
    long offset;
    long watermark;
    long frontier;
    if (oldest < 0) {
      offset = nextOffset;
      watermark = judgedWatermark();
      frontier = frontier();
    } else {
      offset = ledger.offset(oldest);
      watermark = ledger.watermarkBefore(oldest);
      frontier = ledger.frontierBefore(oldest);
    }
    String decisions = wallClock.encodeFrom(offset);
    if (decisions == null || incompletePending) {
      // More wall-clock decisions since the offset than a checkpoint carries: the last checkpoint
      // that carried them all still holds (issue 32); the commit moves on once the oldest pending
      // windows are returned. Null: nothing this owner can claim yet. The same while the rows
      // that missing records may belong to are not bounded yet (rule 64).
      return lastFitting != null ? lastFitting : restoredCommit;
    }
    long written = Math.max(writtenThroughMillis, returnedThroughMillis);
    // The watermark this owner had, even when its seed was clamped below the previous owner's:
    // the next owner then judges the records it re-reads exactly as this one did.
    Checkpoint checkpoint =
        new Checkpoint(
            Math.min(written, finishedThroughMillis),
            frontier,
            Math.min(watermark, finishedThroughMillis),
            nextOffset,
            windows.graceMillis(),
            windows.earlyResultsMillis(),
            decisions,
            offset,
            incompleteBeforeMillis,
            windows.allowedLatenessMillis(),
            wallClock.futureSkewMillis());
    lastFitting = new OffsetAndMetadata(offset, checkpoint.encode());
    return lastFitting;
  }
}
