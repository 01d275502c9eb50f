package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * The per-partition readings of a {@link KafkaWindows} that meters and operators read from any
 * thread: each partition's frontier, watermark, processed lag and resume distance, and their maxima
 * over the assigned partitions, as published at the end of the last {@code onPoll} (issue 46: the
 * role in its own file). Reads the published view of the {@link PartitionTable} only, never the
 * polling thread's state. The methods are documented where the public ones are, on {@code
 * KafkaWindows}.
 */
final class PartitionReadings {

  private final PartitionTable<?, ?, ?> table;

  PartitionReadings(PartitionTable<?, ?, ?> table) {
    this.table = table;
  }

  long frontier(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? WatermarkTracker.UNSEEN : p.publishedFrontier();
  }

  long oldestSessionStart(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? WatermarkTracker.NO_WATERMARK : p.publishedOldestSessionStart();
  }

  long processedLag(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? -1 : p.progress.lag();
  }

  long resumeDistance(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? -1 : p.progress.resumeDistance();
  }

  long resumeAgeMillis(TopicPartition partition, long nowMillis) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? -1 : age(nowMillis, p.progress.resumeReadMillis());
  }

  long resumeEventAgeMillis(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? -1 : age(p.publishedFrontier(), p.progress.resumeEventTimeMillis());
  }

  long maxProcessedLag() {
    long max = -1;
    for (PartitionState<?, ?, ?> p : table.view().partitions().values()) {
      max = Math.max(max, p.progress.lag());
    }
    return max;
  }

  long maxResumeDistance() {
    long max = -1;
    for (PartitionState<?, ?, ?> p : table.view().partitions().values()) {
      max = Math.max(max, p.progress.resumeDistance());
    }
    return max;
  }

  long maxResumeAgeMillis(long nowMillis) {
    long max = -1;
    for (PartitionState<?, ?, ?> p : table.view().partitions().values()) {
      max = Math.max(max, age(nowMillis, p.progress.resumeReadMillis()));
    }
    return max;
  }

  long watermark(TopicPartition partition) {
    PartitionState<?, ?, ?> p = assigned(partition);
    return p == null ? WatermarkTracker.NO_WATERMARK : p.windows.watermark();
  }

  /** {@code now - then}, 0 when nothing is held, -1 when either is not known; never negative. */
  private static long age(long nowMillis, long thenMillis) {
    if (thenMillis == PartitionProgress.NOTHING_HELD) {
      return 0;
    }
    if (thenMillis == PartitionProgress.UNKNOWN || nowMillis == WatermarkTracker.UNSEEN) {
      return -1;
    }
    return Math.max(0, TimeMath.saturatedSubtract(nowMillis, thenMillis));
  }

  /** The partition's published state, or {@code null} if it is not assigned. */
  private PartitionState<?, ?, ?> assigned(TopicPartition partition) {
    return table.view().partitions().get(Objects.requireNonNull(partition, "partition"));
  }
}
