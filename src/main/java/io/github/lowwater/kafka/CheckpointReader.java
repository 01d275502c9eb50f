package io.github.lowwater.kafka;

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
}
