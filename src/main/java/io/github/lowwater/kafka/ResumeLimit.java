package io.github.lowwater.kafka;

import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resume-distance limit ({@link KafkaWindows.Builder#resumeDistanceLimit}, semantics rule 66):
 * after each poll's progress is published, counts the partitions whose resume distance is over the
 * limit, and logs one WARN each time a partition goes over it, naming what holds its commit. Not
 * thread-safe: the polling thread; the count is read from any thread.
 */
final class ResumeLimit {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /** No limit. */
  static final long NONE = Long.MAX_VALUE;

  private final long limit;

  /** The partitions over the limit as of the last poll; written by the polling thread only. */
  private volatile int over;

  ResumeLimit(long limit) {
    this.limit = limit;
  }

  /** After the partitions published their progress: counts and logs the crossings. */
  void check(Collection<? extends PartitionState<?, ?, ?>> partitions) {
    if (limit == NONE) {
      return;
    }
    int n = 0;
    for (PartitionState<?, ?, ?> p : partitions) {
      long distance = p.progress.resumeDistance();
      boolean isOver = distance > limit;
      if (isOver) {
        n++;
        if (!p.overResumeLimit) {
          LOG.warn(
              "{}: a new owner would read {} records again, over the resumeDistanceLimit of {}:"
                  + " the commit is held by {}",
              p.partition,
              distance,
              limit,
              p.commitHolder());
        }
      }
      p.overResumeLimit = isOver;
    }
    over = n;
  }

  /** The partitions over the limit as of the last poll; 0 without a limit. Any thread. */
  int over() {
    return over;
  }
}
