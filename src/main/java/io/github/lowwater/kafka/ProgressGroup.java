package io.github.lowwater.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress group (issue 33): every assigned partition's processed position, committed under a
 * second group id that no consumer joins, through the caller's {@link Admin}, at most once per
 * interval. Lag monitors pointed at it ({@code kafka-consumer-groups}, Burrow, KEDA, exporters)
 * show the true lag, while the real group's committed offsets, which trail by design, are never
 * touched. Each instance writes only the partitions it holds.
 *
 * <p>Never blocks the polling thread: {@code alterConsumerGroupOffsets} is sent and not waited for;
 * while a call is in flight the next intervals send nothing; a call that fails is logged (one WARN
 * when a run of failures starts, one INFO when it ends) and the next interval sends again; nothing
 * is thrown into the loop. Polling thread, except the completion, which runs on the Admin client's
 * thread and only sets volatile fields and logs. Per sent call, one map of the assigned partitions.
 */
final class ProgressGroup {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /**
   * What the builder fixed.
   *
   * @param admin the caller's Admin client
   * @param groupId the group the positions are committed under
   * @param intervalNanos the least time between two calls
   */
  record Config(Admin admin, String groupId, long intervalNanos) {}

  private final Admin admin;
  private final String groupId;
  private final long intervalNanos;

  private boolean sentOnce;
  private long lastSentNanos;
  private volatile boolean inFlight;
  private volatile boolean failing;
  private volatile long commits;
  private volatile long failures;

  ProgressGroup(Config config) {
    this.admin = config.admin();
    this.groupId = config.groupId();
    this.intervalNanos = config.intervalNanos();
  }

  /** The group id the positions are committed under. */
  String groupId() {
    return groupId;
  }

  /**
   * Sends the positions of the partitions that have read a record, unless the interval since the
   * last call has not passed or that call is still in flight.
   */
  void maybeCommit(Collection<? extends PartitionState<?, ?, ?>> partitions, long nowNanos) {
    if (inFlight || (sentOnce && nowNanos - lastSentNanos < intervalNanos)) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
    for (PartitionState<?, ?, ?> p : partitions) {
      if (p.nextOffset >= 0) {
        positions.put(p.partition, new OffsetAndMetadata(p.nextOffset));
      }
    }
    if (positions.isEmpty()) {
      return;
    }
    sentOnce = true;
    lastSentNanos = nowNanos;
    inFlight = true;
    KafkaFuture<Void> sent;
    try {
      sent = admin.alterConsumerGroupOffsets(groupId, positions).all();
    } catch (RuntimeException e) { // a closed Admin, a bad request: never into the loop
      completed(e);
      return;
    }
    sent.whenComplete((ignored, e) -> completed(e));
  }

  private void completed(Throwable e) {
    if (e == null) {
      commits++;
      if (failing) {
        failing = false;
        LOG.info("progress group {}: committing the processed positions again", groupId);
      }
    } else {
      failures++;
      if (!failing) {
        failing = true;
        LOG.warn(
            "progress group {}: could not commit the processed positions ({}: {}); trying again at"
                + " the next interval, lag monitors reading it see the last positions committed",
            groupId,
            e.getClass().getName(),
            e.getMessage());
      }
    }
    inFlight = false;
  }

  /** Calls that committed the positions. Any thread. */
  long commits() {
    return commits;
  }

  /** Calls that failed. Any thread. */
  long failures() {
    return failures;
  }
}
