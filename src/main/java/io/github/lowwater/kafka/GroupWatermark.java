package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer group's watermark, read from Kafka itself: the minimum, over every partition of the
 * subscribed topics, of the written-through time {@code e} of the {@link Checkpoint} committed with
 * its offset. A partition without a readable checkpoint holds it at {@link
 * WatermarkTracker#NO_WATERMARK}. Every window of every partition that ends at or before it has
 * been written by whichever instance owned the partition, and no later record can change it: that
 * is what {@code e} claims, and a checkpoint claims only what one owner's history proves. (Before
 * this version it was the minimum of {@code w}, the watermark before the committed offset, which
 * lagged {@code e} by the records held in windows not yet written.)
 *
 * <p>Read on the polling thread at most once per interval: {@code consumer.committed} is a round
 * trip to the group coordinator, bounded by {@link #TIMEOUT}. While this member's own rebalance is
 * pending at the coordinator the request waits behind it (seen on the classic protocol: up to the
 * full timeout), so the bound is short: a read that does not answer in time keeps the previous
 * value and is retried at the next interval, at a cost of at most {@link #TIMEOUT} per interval
 * during a rebalance. A first failure is logged at INFO (usual during a rebalance), {@link
 * #WARN_AFTER} in a row at WARN, once. {@link #value()} may be read from any thread.
 */
final class GroupWatermark {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /** Failed reads in a row after which the failure is logged at WARN (once). */
  static final int WARN_AFTER = 5;

  /** The bound on one read of the committed offsets: short, so that a rebalance stalls little. */
  static final Duration TIMEOUT = Duration.ofMillis(250);

  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(GroupWatermark.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Consumer<?, ?> consumer;
  private final long intervalNanos;
  private boolean read;

  /** Failed reads in a row. */
  private int failures;

  private long lastReadNanos;
  private long value = WatermarkTracker.NO_WATERMARK;

  GroupWatermark(Consumer<?, ?> consumer, long intervalNanos) {
    this.consumer = consumer;
    this.intervalNanos = intervalNanos;
  }

  /**
   * Reads the committed checkpoints if the interval has passed since the last read.
   *
   * @param nowNanos the monotonic reading of this poll
   */
  void maybeRefresh(long nowNanos) {
    if (read && nowNanos - lastReadNanos < intervalNanos) {
      return;
    }
    read = true;
    lastReadNanos = nowNanos;
    try {
      refresh();
      if (failures >= WARN_AFTER) {
        LOG.info("read the group's committed checkpoints again after {} failures", failures);
      }
      failures = 0;
    } catch (WakeupException | InterruptException e) {
      throw e; // consumer.wakeup() and interrupts belong to the caller's loop
    } catch (RuntimeException e) {
      failures++;
      if (failures == 1) {
        LOG.info(
            "could not read the group's committed checkpoints ({}: usual while this member's"
                + " rebalance is pending); groupWatermark stays at {}",
            e.getClass().getSimpleName(),
            TimeMath.describeMillis(value()));
      } else if (failures == WARN_AFTER) {
        LOG.warn(
            "could not read the group's committed checkpoints {} times in a row; groupWatermark"
                + " stays at {} (last: {})",
            failures,
            TimeMath.describeMillis(value()),
            e.toString());
      } else {
        LOG.debug("could not read the group's committed checkpoints ({} in a row)", failures, e);
      }
    }
  }

  private void refresh() {
    Set<String> topics = consumer.subscription();
    if (topics.isEmpty()) {
      topics = new HashSet<>();
      for (TopicPartition tp : consumer.assignment()) {
        topics.add(tp.topic());
      }
    }
    Set<TopicPartition> partitions = new HashSet<>();
    for (String topic : topics) {
      for (PartitionInfo info : consumer.partitionsFor(topic, TIMEOUT)) {
        partitions.add(new TopicPartition(info.topic(), info.partition()));
      }
    }
    if (partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(partitions, TIMEOUT);
    VALUE.setRelease(this, minimum(partitions, committed));
  }

  /**
   * The minimum committed written-through time over {@code partitions}; {@link
   * WatermarkTracker#NO_WATERMARK} as soon as one has none.
   */
  static long minimum(
      Set<TopicPartition> partitions, Map<TopicPartition, OffsetAndMetadata> committed) {
    long min = Long.MAX_VALUE;
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata om = committed.get(tp);
      if (om == null) {
        return WatermarkTracker.NO_WATERMARK;
      }
      long w;
      try {
        w = Checkpoint.parse(om.metadata()).writtenThroughMillis();
      } catch (CheckpointFormatException e) {
        return WatermarkTracker.NO_WATERMARK;
      }
      min = Math.min(min, w);
    }
    return min;
  }

  long value() {
    return (long) VALUE.getAcquire(this);
  }
}
