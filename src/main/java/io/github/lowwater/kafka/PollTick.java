package io.github.lowwater.kafka;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-poll work of {@link KafkaWindows} after the poll's records: a heartbeat for each paused
 * partition (paused time is neither idle nor quiet), the scope's part ({@link
 * WindowScope#afterPoll}: the idleness re-evaluation, the quiet-period advance, the alignment's
 * pauses and resumes), each partition's progress for other threads (its lag and resume point), and
 * the group watermark's periodic read. Not thread-safe: the polling thread. Per poll: {@code
 * paused()}, {@code assignment()} and one {@code currentLag} per partition, none a remote call;
 * with a progress group, at most one asynchronous Admin call per interval.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class PollTick<K, V, R> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private final Consumer<?, ?> consumer;
  private final WindowScope<K, V, R> scope;
  private final GroupWatermark groupWatermark;

  /** How long a partition behind its predecessor waits for a record before its position is read. */
  private final long quietAfterNanos;

  /** The progress group, or {@code null}. */
  private final ProgressGroup progress;

  /** Checks a partition whose history starts past its committed offset (rule 65). */
  private final MissingRecords missing;

  /** The resume-distance limit (rule 66). */
  private final ResumeLimit resumeLimit;

  PollTick(
      Consumer<?, ?> consumer,
      WindowScope<K, V, R> scope,
      GroupWatermark groupWatermark,
      long quietAfterNanos,
      ProgressGroup progress,
      MissingRecords missing,
      ResumeLimit resumeLimit) {
    this.missing = missing;
    this.resumeLimit = resumeLimit;
    this.consumer = consumer;
    this.scope = scope;
    this.groupWatermark = groupWatermark;
    this.quietAfterNanos = quietAfterNanos;
    this.progress = progress;
  }

  /**
   * The work of a poll after its records.
   *
   * @param table the assigned partitions
   * @param nowNanos the poll's monotonic time
   * @param wall the poll's wall-clock time
   */
  void afterRecords(PartitionTable<K, V, R> table, long nowNanos, long wall) {
    Set<TopicPartition> paused = consumer.paused();
    for (TopicPartition tp : paused) {
      PartitionState<K, V, R> p = table.get(tp);
      if (p != null) {
        p.windows.heartbeat(p.source);
        scope.activity(p, nowNanos); // paused time is not quiet
      }
    }
    for (PartitionState<K, V, R> p : table.states()) {
      if (p.behindPreviousOwner()
          && !paused.contains(p.partition)
          && nowNanos - p.lastRecordNanos >= quietAfterNanos) {
        checkReadPosition(p);
      }
    }
    for (PartitionState<K, V, R> p : table.states()) {
      if (p.ownWatermark
          && !p.startChecked
          && !p.behindPreviousOwner()
          && !paused.contains(p.partition)
          && nowNanos - p.lastRecordNanos >= quietAfterNanos) {
        startAtPosition(p);
      }
    }
    scope.afterPoll(table, paused, nowNanos, wall);
    Set<TopicPartition> assigned = table.size() == 0 ? Set.of() : consumer.assignment();
    for (PartitionState<K, V, R> p : table.states()) {
      p.publishProgress(assigned.contains(p.partition) ? lag(p.partition) : -1);
    }
    resumeLimit.check(table.states());
    if (progress != null) {
      progress.maybeCommit(table.states(), nowNanos);
    }
    groupWatermark.maybeRefresh(nowNanos);
  }

  /**
   * The consumer's lag for a partition it holds, from what its fetches told it (no remote call):
   * the log end, or the last stable offset under {@code read_committed}, minus its position; -1
   * when it does not know yet.
   */
  private long lag(TopicPartition tp) {
    OptionalLong lag = consumer.currentLag(tp);
    return lag.isPresent() ? lag.getAsLong() : -1;
  }

  /**
   * A member of a co-partitioned task that has delivered no record on this instance for the quiet
   * period since its assignment (semantics rule 73): its history starts at the consumer's position,
   * checked as a first record there would be (rule 65), so that the quiet-period raise of its own
   * watermark that follows has an offset to be recorded at and a checkpoint of its own to be
   * committed with (without a commit it had no offset; with one, it would commit its predecessor's
   * checkpoint unchanged until its first record, without the raise). A position the consumer does
   * not know yet is asked again at a later poll.
   *
   * @throws MissingRecordsException under {@code FAIL}, when records before the position may be
   *     missing; nothing changed
   */
  private void startAtPosition(PartitionState<K, V, R> p) {
    if (!consumer.assignment().contains(p.partition)) {
      return; // assigned to these windows only: no position to read
    }
    long position;
    try {
      position = consumer.position(p.partition, Duration.ZERO);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      return; // not known yet: a later poll asks again
    }
    if (!p.startChecked && missing.check(p, position) != MissingRecords.NOTHING) {
      p.missingRecords();
    }
    p.startAt(position);
  }

  /**
   * A partition whose new owner has had no record for the quiet period while still behind its
   * predecessor's read position {@code n}: the records up to {@code n} may be gone (retention
   * deleted them before this owner read them, and the consumer's offset reset skipped them). Then
   * the consumer's position is at or past {@code n}, and the partition goes on from there (issue
   * 32, defect 7); otherwise nothing changes. A position the consumer does not know yet is asked
   * again at a later poll.
   */
  private void checkReadPosition(PartitionState<K, V, R> p) {
    if (!consumer.assignment().contains(p.partition)) {
      return; // assigned to these windows only (a test, a manual assignment ended): nothing to ask
    }
    long position;
    try {
      position = consumer.position(p.partition, Duration.ZERO);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      return; // not known yet: the consumer looks it up, and a later poll asks again
    }
    long committed = p.nextOffset;
    // Sessions from a checkpoint are checked at their first record, which may start them anew.
    boolean checkNow = !(p.sessions() && p.restoredCheckpoint);
    if (!p.startChecked
        && checkNow
        && p.restoredCommit != null
        && position >= p.readThroughOffset) {
      // Its history starts at the position, past records it never received: rule 65, before any
      // change (under FAIL the exception leaves the partition as it was, and the next poll asks).
      if (missing.check(p, position) != MissingRecords.NOTHING) {
        p.missingRecords();
      }
    }
    if (p.readPositionSkippedTo(position)) {
      LOG.warn(
          "{}: the records from offset {} to {} are gone (retention or compaction deleted them"
              + " before this owner read them; its predecessor had read up to {}): the partition"
              + " goes on from {}, and the rows of windows that held those records lack them"
              + " unless the predecessor wrote them",
          p.partition,
          committed,
          position,
          p.readThroughOffset,
          position);
    }
  }
}
