package io.github.lowwater.test;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A restart on Kafka's {@link MockConsumer}: a new mock that starts from what the old one
 * committed, offsets and metadata (Lowwater's checkpoints), in the order the mock needs.
 *
 * <p>{@code MockConsumer} (kafka-clients 4.x) differs from a real consumer where a restart is
 * concerned: {@code subscribe}, {@code assign} and {@code unsubscribe} clear its committed offsets,
 * so the commits are carried over after the subscription; {@code committed} answers offset 0
 * without metadata for a partition it does not hold, so they are read from the old mock while it
 * still holds them; and {@code poll} delivers only records at or after the position, so after a
 * restart add the partitions' whole log again and it resumes at the committed offsets.
 */
public final class MockConsumers {

  private MockConsumers() {}

  /**
   * A new mock in the old one's place, as a process restarted after {@code old} stopped (or died):
   * subscribed to the partitions' topics with the listener, the old mock's commits of {@code
   * partitions} carried over, the same beginning offsets, and the partitions assigned through
   * {@code rebalance}, which runs the listener's {@code onPartitionsAssigned} (where Lowwater reads
   * the checkpoints).
   *
   * @param old the mock that stops; it must still hold {@code partitions} and know their beginning
   *     offsets ({@code updateBeginningOffsets})
   * @param partitions the partitions the new mock takes over
   * @param offsetResetStrategy the new mock's reset strategy, such as {@code "earliest"}
   * @param listener creates the listener for the new mock (build the object under test on it)
   * @param <K> the record key type
   * @param <V> the record value type
   * @return the new mock, its partitions assigned
   * @throws IllegalArgumentException if {@code old} lacks a beginning offset for a partition
   */
  public static <K, V> MockConsumer<K, V> restart(
      MockConsumer<K, V> old,
      Collection<TopicPartition> partitions,
      String offsetResetStrategy,
      Function<? super MockConsumer<K, V>, ? extends ConsumerRebalanceListener> listener) {
    Objects.requireNonNull(old, "old");
    Set<TopicPartition> taken = new HashSet<>(partitions);
    Map<TopicPartition, Long> beginnings;
    try {
      beginnings = old.beginningOffsets(taken);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(
          "old has no beginning offset for one of " + taken + ": call updateBeginningOffsets", e);
    }
    Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
    old.committed(taken)
        .forEach(
            (tp, om) -> {
              if (om != null) {
                committed.put(tp, om);
              }
            });
    Set<String> topics = new HashSet<>();
    taken.forEach(tp -> topics.add(tp.topic()));

    MockConsumer<K, V> next = new MockConsumer<>(offsetResetStrategy);
    next.subscribe(topics, listener.apply(next));
    next.commitSync(committed); // after subscribe, which clears the mock's commits
    next.updateBeginningOffsets(beginnings);
    next.rebalance(List.copyOf(taken));
    return next;
  }
}
