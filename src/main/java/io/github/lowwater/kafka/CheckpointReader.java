package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeWindows;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what the previous owners of newly assigned partitions committed: the committed offsets,
 * through the consumer, and the {@link Checkpoint} in each offset's metadata. Metadata that is not
 * a checkpoint this version reads (another tool's, a later version's) is logged once per partition
 * and read as {@link Checkpoint#NONE}. Not thread-safe: the polling thread (the rebalance listener
 * runs there).
 */
final class CheckpointReader {

  /** Under the driver's logger, as before this class was split out of it. */
  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private final Consumer<?, ?> consumer;

  /** Partitions whose unreadable checkpoint was logged. */
  private final Set<TopicPartition> unreadableLogged = new HashSet<>();

  private final Set<TopicPartition> panesLogged = new HashSet<>();

  CheckpointReader(Consumer<?, ?> consumer) {
    this.consumer = consumer;
  }

  /** The committed offsets of {@code partitions} (absent: none). */
  Map<TopicPartition, OffsetAndMetadata> committed(List<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(new HashSet<>(partitions));
    Map<TopicPartition, OffsetAndMetadata> present = new HashMap<>();
    if (committed != null) {
      committed.forEach(
          (tp, om) -> {
            if (om != null) {
              present.put(tp, om);
            }
          });
    }
    return present;
  }

  /** The checkpoint in a committed offset's metadata; unreadable metadata is logged once. */
  Checkpoint parse(TopicPartition tp, OffsetAndMetadata om) {
    try {
      return Checkpoint.parse(om.metadata());
    } catch (CheckpointFormatException e) {
      if (unreadableLogged.add(tp)) {
        LOG.warn(
            "{}: the metadata committed with offset {} is not a checkpoint this version reads;"
                + " the partition starts without one ({})",
            tp,
            om.offset(),
            e.getMessage());
      }
      return Checkpoint.NONE;
    }
  }

  /**
   * Returns why a committed offset comes without a checkpoint this partition can use, or {@code
   * null} when {@code parsed} is usable: no metadata (a tool's reset or recommit), metadata that is
   * not a checkpoint this version reads, or a checkpoint committed with another offset (carried
   * from another log: MirrorMaker 2 translates a group's offsets to another cluster and copies the
   * metadata unchanged, so its offsets are the other log's).
   *
   * @param om the committed offset and metadata
   * @param parsed what {@link #parse} read from it
   */
  static String unusable(OffsetAndMetadata om, Checkpoint parsed) {
    if (parsed == Checkpoint.NONE) {
      return om.metadata() == null || om.metadata().isEmpty()
          ? "its offset was committed without a checkpoint (a tool's reset or recommit)"
          : "the metadata committed with its offset is not a checkpoint this version reads";
    }
    if (!parsed.describes(om.offset())) {
      return "its checkpoint was committed with offset "
          + parsed.committedOffset()
          + " and is found with offset "
          + om.offset()
          + ": carried from another log (MirrorMaker 2's offset translation to another cluster)"
          + " or recommitted by a tool, so the offsets it names are not this log's";
    }
    return null;
  }

  /**
   * Returns whether a checkpoint was written by windows that judge lateness otherwise than {@code
   * w} with the guard's {@code futureSkewMillis}: another grace period or period of early results
   * (version 1: neither), or, where it records them ({@code l}, {@code s}), another allowed
   * lateness or future guard (issue 45, item 1). Logs it once per partition, at WARN: the records
   * the windows re-read give other rows than the previous owner's. The checkpoint is used all the
   * same; its claims hold whatever the options.
   */
  boolean warnIfJudgedOtherwise(
      TopicPartition tp,
      Checkpoint checkpoint,
      EventTimeWindows<?, ?, ?> w,
      long futureSkewMillis) {
    if (checkpoint == Checkpoint.NONE
        || checkpoint.sameJudgement(
            w.graceMillis(), w.earlyResultsMillis(), w.allowedLatenessMillis(), futureSkewMillis)) {
      return false;
    }
    if (panesLogged.add(tp)) {
      LOG.warn(
          "{}: its checkpoint was written with allowed lateness {} ms, future guard {} ms, grace"
              + " {} ms and early results every {} ms, these windows have {} ms, {} ms, {} ms"
              + " and {} ms (-1: not recorded or no guard; 0: none); the rows of the windows it"
              + " re-reads will differ from the previous owner's, and its records found late are"
              + " reported LATE",
          tp,
          checkpoint.latenessMillis(),
          checkpoint.futureSkewMillis(),
          checkpoint.graceMillis(),
          checkpoint.earlyMillis(),
          w.allowedLatenessMillis(),
          futureSkewMillis,
          w.graceMillis(),
          w.earlyResultsMillis());
    }
    return true;
  }
}
