package io.github.lowwater.spring;

import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;

/**
 * A member's rebalance listener: builds the member's windows for the container's consumer at its
 * first assignment, and hands every assignment, revocation and loss to the windows' own listener,
 * then refreshes the member's meters (their per-partition meters follow the assignment). The
 * container follows a loss with a revocation of the same partitions; the windows see the partitions
 * once. Nothing is committed here: the commit stays where the windows' checkpoints put it, and the
 * next owner starts from it.
 */
final class MemberRebalanceListener implements ConsumerAwareRebalanceListener {
  private final Member<?, ?, ?, ?, ?> member;

  MemberRebalanceListener(Member<?, ?, ?, ?, ?> member) {
    this.member = member;
  }

  @Override
  public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    try {
      member.listenerFor(consumer).onPartitionsAssigned(partitions);
    } finally {
      member.refreshObservation(); // the per-partition meters of the new partitions
    }
  }

  @Override
  public void onPartitionsRevokedBeforeCommit(
      Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    List<TopicPartition> held = member.held(partitions);
    if (!held.isEmpty()) {
      try {
        member.listenerFor(consumer).onPartitionsRevoked(held);
      } finally {
        member.refreshObservation();
      }
    }
  }

  @Override
  public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    List<TopicPartition> held = member.held(partitions);
    if (!held.isEmpty()) {
      try {
        member.listenerFor(consumer).onPartitionsLost(held);
      } finally {
        member.refreshObservation();
      }
    }
  }

  // The plain callbacks are not called by a container, which calls the ones with the consumer.
  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
}
