package io.github.lowwater.kafka;

import java.util.Collection;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * The listener that {@link KafkaWindows#rebalanceListener()} returns: registers assigned
 * partitions, then calls the application's own listener; on revocation and loss calls the
 * application's listener first (it still sees the partitions' state), then drops the partitions
 * even if it threw. Runs on the polling thread, inside {@code poll}.
 */
final class ChainedRebalanceListener implements ConsumerRebalanceListener {

  private final Consumer<Collection<TopicPartition>> assign;
  private final Consumer<Collection<TopicPartition>> forget;
  private final ConsumerRebalanceListener delegate;

  /**
   * Creates the listener.
   *
   * @param assign registers assigned partitions
   * @param forget drops revoked or lost partitions
   * @param delegate the application's listener, or {@code null}
   */
  ChainedRebalanceListener(
      Consumer<Collection<TopicPartition>> assign,
      Consumer<Collection<TopicPartition>> forget,
      ConsumerRebalanceListener delegate) {
    this.assign = assign;
    this.forget = forget;
    this.delegate = delegate;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    assign.accept(partitions);
    if (delegate != null) {
      delegate.onPartitionsAssigned(partitions);
    }
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    leave(partitions, false);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    leave(partitions, true);
  }

  /** The delegate first, then the drop, which its exception cannot skip. */
  private void leave(Collection<TopicPartition> partitions, boolean lost) {
    try {
      if (delegate != null) {
        if (lost) {
          delegate.onPartitionsLost(partitions);
        } else {
          delegate.onPartitionsRevoked(partitions);
        }
      }
    } finally {
      forget.accept(partitions);
    }
  }
}
