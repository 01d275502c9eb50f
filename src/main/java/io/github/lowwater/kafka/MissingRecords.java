package io.github.lowwater.kafka;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, before a partition's first records of a new history are processed, whether its reading
 * may lack records that an uninterrupted reading had (semantics rule 65), and applies the {@link
 * MissingRecordsPolicy}. A history begins at assignment (or at a rewind) and is checked once, from
 * what the assignment read (the committed offset and whether its checkpoint is usable) and from the
 * first delivered offset: no remote call per poll. The log start is read ({@code beginningOffsets},
 * one blocking call) only when the first offset is not the committed one, or when the partition is
 * found to lack records (for the log line). Not thread-safe: the polling thread; the count is read
 * from any thread.
 */
final class MissingRecords {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /** What {@link #check} found: nothing is missing. */
  static final int NOTHING = 0;

  /** What {@link #check} found: records may be missing; the partition's rows are to be marked. */
  static final int MARK = 1;

  /**
   * What {@link #check} found: records may be missing and the restored checkpoint describes another
   * log: the partition starts again without it, and its rows are marked.
   */
  static final int RESTART = 2;

  private final Consumer<?, ?> consumer;
  private final MissingRecordsPolicy policy;

  /** Partitions whose exception ({@code FAIL}) was logged and counted, until they read on. */
  private final Set<TopicPartition> failing = new HashSet<>();

  /** Histories found to lack records; written by the polling thread only. */
  private volatile long events;

  MissingRecords(Consumer<?, ?> consumer, MissingRecordsPolicy policy) {
    this.consumer = consumer;
    this.policy = policy;
  }

  /**
   * Checks the first records of a partition's history, before any is processed: {@link #NOTHING},
   * {@link #MARK} or {@link #RESTART}. Under {@code FAIL} it throws instead of marking, and the
   * partition stays unchecked: the next poll that delivers its records checks again.
   *
   * @param p the partition, {@link PartitionState#startChecked} false
   * @param firstOffset the offset of the first record delivered
   * @throws MissingRecordsException under {@link MissingRecordsPolicy#FAIL}, when records may be
   *     missing
   */
  int check(PartitionState<?, ?, ?> p, long firstOffset) {
    long committed = p.restoredCommit != null ? p.restoredCommit.offset() : -1;
    long from = Math.max(committed, 0); // without a commit, the history should start at 0
    String reason;
    long logStart = -1;
    int outcome = MARK;
    if (p.unusableCheckpoint != null && from > 0) {
      reason = p.unusableCheckpoint;
    } else if (firstOffset > from) {
      logStart = logStart(p.partition);
      if (committed < 0) {
        reason =
            "it has no committed offset and its first record is at offset "
                + firstOffset
                + ": the records before it were deleted or skipped (auto.offset.reset), or the"
                + " group's commits expired (offsets.retention.minutes)";
      } else if (logStart < 0) {
        reason =
            "its first record is at offset "
                + firstOffset
                + ", past the committed offset, and the log start could not be read: the records"
                + " in between may have been deleted";
      } else if (logStart > committed) {
        reason =
            "the records from the committed offset to the log start were deleted (retention or"
                + " deleteRecords) before this owner read them";
        // A session's extent depends on every record: without the deleted ones, this reading's
        // sessions are not the ones the checkpoint says were written, and a session it would drop
        // as written may hold records nobody wrote. The partition starts without the checkpoint.
        outcome = p.restoredCheckpoint && p.sessions() ? RESTART : MARK;
      } else {
        return nothing(p); // the gap holds transaction markers, aborted or compacted records
      }
    } else if (firstOffset < from) {
      reason =
          "its first record is at offset "
              + firstOffset
              + ", below the committed offset: the commit lies beyond the log's end (a truncated"
              + " or re-created topic), so its checkpoint does not describe this log";
      outcome = p.restoredCheckpoint ? RESTART : MARK;
    } else {
      return nothing(p);
    }
    if (logStart < 0 && reason != null) {
      logStart = logStart(p.partition);
    }
    String message =
        p.partition
            + ": its reading may lack records: "
            + reason
            + " (committed offset "
            + (committed < 0 ? "none" : Long.toString(committed))
            + ", log start "
            + (logStart < 0 ? "unknown" : Long.toString(logStart))
            + ", first offset read "
            + firstOffset
            + ")";
    if (policy == MissingRecordsPolicy.FAIL) {
      if (failing.add(p.partition)) {
        events++;
        LOG.warn("{}; missingRecordsPolicy FAIL: onPoll throws until an operator decides", message);
      }
      throw new MissingRecordsException(
          message + "; missingRecordsPolicy FAIL", p.partition, committed, logStart, firstOffset);
    }
    events++;
    LOG.warn(
        "{}; its rows that those records could belong to are marked incomplete"
            + " (WindowResult.isComplete() false)",
        message);
    p.startChecked = true;
    return outcome;
  }

  private int nothing(PartitionState<?, ?, ?> p) {
    failing.remove(p.partition);
    p.startChecked = true;
    return NOTHING;
  }

  /** The partition's log start offset, or -1 if it could not be read. */
  private long logStart(TopicPartition tp) {
    try {
      Map<TopicPartition, Long> start = consumer.beginningOffsets(Set.of(tp));
      Long offset = start == null ? null : start.get(tp);
      return offset == null ? -1 : offset;
    } catch (RuntimeException e) {
      LOG.debug("{}: could not read its log start", tp, e);
      return -1;
    }
  }

  /** How many partition histories were found to lack records. Any thread. */
  long events() {
    return events;
  }
}
