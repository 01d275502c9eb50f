package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.EventTimeWindows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watermark alignment for {@link ResultScope#MERGED}: an assigned partition whose frontier runs
 * more than {@code maxDrift} ahead of the watermark is paused ({@link Consumer#pause}) until it is
 * back within it.
 *
 * <p>Rules, each pinned by a test of this class:
 *
 * <ul>
 *   <li>{@code maxDrift >= allowedLateness} (checked by the builder), so the slowest active
 *       partition is never paused and the watermark always progresses (FLINK-40093).
 *   <li>Before the first watermark (an assigned partition has not delivered), the others align on
 *       the slowest <em>active</em> partition that has delivered: an idle partition's old frontier
 *       cannot get the only active one paused.
 *   <li>A partition the caller paused is the caller's: never counted as paused by the alignment,
 *       never resumed by it.
 *   <li>A partition the alignment paused and the caller resumed is paused again while still ahead.
 * </ul>
 *
 * <p>Not thread-safe; polling thread. O(assigned partitions) per poll; allocates only the lists of
 * partitions to pause or resume when there are some.
 */
final class Alignment {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private final Consumer<?, ?> consumer;
  private final long maxDriftMillis;

  /** Partitions paused by the alignment (not those the caller paused), in pause order. */
  private final Set<TopicPartition> paused = new LinkedHashSet<>();

  // Written by the polling thread only, read by metrics reporters on any thread.
  private volatile long pauses;
  private volatile long resumes;
  private volatile int pausedCount;

  Alignment(Consumer<?, ?> consumer, long maxDriftMillis) {
    this.consumer = consumer;
    this.maxDriftMillis = maxDriftMillis;
  }

  /**
   * Pauses the partitions too far ahead and resumes those back within the drift.
   *
   * @param assigned the assigned partitions
   * @param windows the merged windows, whose sources are the partitions
   * @param pausedNow the consumer's paused partitions, read once this poll
   */
  void align(
      Collection<TopicPartition> assigned,
      EventTimeWindows<?, ?, ?> windows,
      Set<TopicPartition> pausedNow) {
    long watermark = reference(assigned, windows);
    if (watermark == WatermarkTracker.NO_WATERMARK) {
      return;
    }
    List<TopicPartition> toPause = null;
    List<TopicPartition> toResume = null;
    for (TopicPartition tp : assigned) {
      boolean ours = paused.contains(tp);
      if (!ours && pausedNow.contains(tp)) {
        continue; // the caller's pause: not ours to take over or lift
      }
      long frontier = windows.frontier(tp);
      boolean ahead =
          frontier != WatermarkTracker.UNSEEN
              && TimeMath.saturatedSubtract(frontier, watermark) > maxDriftMillis;
      if (ahead && !(ours && pausedNow.contains(tp))) {
        if (toPause == null) {
          toPause = new ArrayList<>();
        }
        toPause.add(tp);
      } else if (!ahead && ours) {
        if (toResume == null) {
          toResume = new ArrayList<>();
        }
        toResume.add(tp);
      }
    }
    if (toPause != null) {
      consumer.pause(toPause);
      for (TopicPartition tp : toPause) {
        if (paused.add(tp)) {
          pauses++;
        }
      }
      pausedCount = paused.size();
      LOG.debug("alignment paused {} at watermark {}", toPause, TimeMath.describeMillis(watermark));
    }
    if (toResume != null) {
      consumer.resume(toResume);
      toResume.forEach(paused::remove);
      resumes += toResume.size();
      pausedCount = paused.size();
      LOG.debug(
          "alignment resumed {} at watermark {}", toResume, TimeMath.describeMillis(watermark));
    }
  }

  /**
   * The watermark to align on: the windows' watermark, or before there is one, the watermark the
   * active partitions that have delivered would make without the others.
   */
  private static long reference(
      Collection<TopicPartition> assigned, EventTimeWindows<?, ?, ?> windows) {
    long watermark = windows.watermark();
    if (watermark != WatermarkTracker.NO_WATERMARK) {
      return watermark;
    }
    long slowest = Long.MAX_VALUE;
    for (TopicPartition tp : assigned) {
      long frontier = windows.frontier(tp);
      if (frontier != WatermarkTracker.UNSEEN && windows.isActive(tp)) {
        slowest = Math.min(slowest, frontier);
      }
    }
    if (slowest == Long.MAX_VALUE) {
      return WatermarkTracker.NO_WATERMARK;
    }
    return TimeMath.saturatedSubtract(slowest, windows.allowedLatenessMillis());
  }

  /**
   * Forgets a revoked or lost partition: the consumer drops its pause with the assignment.
   *
   * @param tp the partition
   */
  void forget(TopicPartition tp) {
    paused.remove(tp);
    pausedCount = paused.size();
  }

  boolean pausedAny() {
    return !paused.isEmpty();
  }

  Set<TopicPartition> paused() {
    return paused;
  }

  long pauses() {
    return pauses;
  }

  /** The number of partitions paused by the alignment now; any thread. */
  int pausedCount() {
    return pausedCount;
  }

  long resumes() {
    return resumes;
  }
}
