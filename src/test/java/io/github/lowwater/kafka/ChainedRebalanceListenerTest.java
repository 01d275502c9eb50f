package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The order of {@link ChainedRebalanceListener}'s calls, and the drop that a throw cannot skip. */
class ChainedRebalanceListenerTest {

  static final List<TopicPartition> P0 = List.of(new TopicPartition("t", 0));

  final List<String> calls = new ArrayList<>();

  ChainedRebalanceListener listener(boolean throwing) {
    ConsumerRebalanceListener delegate =
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            calls.add("delegate assigned");
          }

          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            calls.add("delegate revoked");
            if (throwing) {
              throw new IllegalStateException("delegate failed");
            }
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> partitions) {
            calls.add("delegate lost");
            if (throwing) {
              throw new IllegalStateException("delegate failed");
            }
          }
        };
    return new ChainedRebalanceListener(
        p -> calls.add("assign " + p), p -> calls.add("forget " + p), delegate);
  }

  @Test
  void registersBeforeTheDelegateAndDropsAfterIt() {
    ChainedRebalanceListener l = listener(false);
    l.onPartitionsAssigned(P0);
    l.onPartitionsRevoked(P0);
    l.onPartitionsLost(P0);
    assertThat(calls)
        .containsExactly(
            "assign [t-0]",
            "delegate assigned",
            "delegate revoked",
            "forget [t-0]",
            "delegate lost",
            "forget [t-0]");
  }

  @Test
  void aThrowingDelegateStillHasThePartitionsDroppedAndItsExceptionPropagates() {
    ChainedRebalanceListener l = listener(true);
    assertThatThrownBy(() -> l.onPartitionsRevoked(P0)).hasMessage("delegate failed");
    assertThatThrownBy(() -> l.onPartitionsLost(P0)).hasMessage("delegate failed");
    assertThat(calls)
        .containsExactly("delegate revoked", "forget [t-0]", "delegate lost", "forget [t-0]");
  }

  @Test
  void withoutADelegateOnlyTheWindowsAreCalled() {
    ChainedRebalanceListener l =
        new ChainedRebalanceListener(p -> calls.add("assign"), p -> calls.add("forget"), null);
    l.onPartitionsAssigned(P0);
    l.onPartitionsRevoked(P0);
    l.onPartitionsLost(P0);
    assertThat(calls).containsExactly("assign", "forget", "forget");
  }
}
