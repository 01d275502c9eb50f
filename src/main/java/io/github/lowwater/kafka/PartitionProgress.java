package io.github.lowwater.kafka;

/**
 * One partition's progress as other threads read it (issue 33): the consumer's lag, the resume
 * distance (the records a new owner would read again: from the offset the partition would commit to
 * its read position), and the wall-clock time and event time of the record at that offset. Written
 * once per poll on the polling thread ({@link PartitionState#publishProgress}), read from any
 * thread: each value is recent and never torn; the four are not one snapshot.
 */
final class PartitionProgress {

  /** Not known: the partition has not delivered, or its new owner has not re-read to the commit. */
  static final long UNKNOWN = Long.MIN_VALUE;

  /** No record is held: a new owner would resume at the read position. */
  static final long NOTHING_HELD = Long.MAX_VALUE;

  private volatile long lag = -1;
  private volatile long resumeDistance = -1;
  private volatile long resumeReadMillis = UNKNOWN;
  private volatile long resumeEventTimeMillis = UNKNOWN;

  void publish(long lag, long resumeDistance, long resumeReadMillis, long resumeEventTimeMillis) {
    this.lag = lag;
    this.resumeDistance = resumeDistance;
    this.resumeReadMillis = resumeReadMillis;
    this.resumeEventTimeMillis = resumeEventTimeMillis;
  }

  long lag() {
    return lag;
  }

  long resumeDistance() {
    return resumeDistance;
  }

  long resumeReadMillis() {
    return resumeReadMillis;
  }

  long resumeEventTimeMillis() {
    return resumeEventTimeMillis;
  }
}
