package io.github.lowwater.kafka;

/**
 * What a {@link KafkaJoin} instance has done, counted across its tasks as they come and go (a task
 * dropped at a revocation or a rewind keeps its counts here), so that every count only grows: the
 * monotonic counters a metrics registry expects. Written by the polling thread only (so the
 * increments of these volatile fields are not racing); read from any thread.
 */
final class JoinCounters {

  /** Pairs returned by {@code pollResults()}. */
  volatile long pairs;

  /** Unmatched rows returned by {@code pollResults()}. */
  volatile long unmatched;

  /** Rows computed again from re-read records and not returned: a checkpoint says they were. */
  volatile long suppressed;

  /** Late records of the left side, re-read ones included. */
  volatile long lateLeft;

  /** Late records of the right side, re-read ones included. */
  volatile long lateRight;

  /** Late records re-read below a checkpoint's position, not reported to the handler again. */
  volatile long redelivered;

  /** Records with a null value. */
  volatile long skipped;

  /** Quiet-period advances of a partition's own watermark taken here (replays not counted). */
  volatile long quietAdvances;

  /** Records of partitions without a formed task, read again once it is formed. */
  volatile long ignored;
}
