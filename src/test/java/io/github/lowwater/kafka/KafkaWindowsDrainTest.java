package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsBuilderTest.record;
import static io.github.lowwater.kafka.KafkaWindowsTest.MINUTE;
import static io.github.lowwater.kafka.KafkaWindowsTest.NOW;
import static io.github.lowwater.kafka.KafkaWindowsTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsTest.T;
import static io.github.lowwater.kafka.KafkaWindowsTest.builder;
import static io.github.lowwater.kafka.KafkaWindowsTest.feed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.WindowResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaWindows#drainFinalized(PartitionResultVisitor)}: the results of {@code
 * pollFinalized()} without allocation, in both scopes, and a visitor that throws holds back the
 * commit of the partition it was visiting.
 */
class KafkaWindowsDrainTest {

  private static void feedBoth(KafkaWindows<String, Long, Long> w) {
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    feed(w, record(P0, 0, T + MINUTE), record(P0, 1, T + 2 * MINUTE));
    feed(w, record(P1, 0, T + 3 * MINUTE), record(P1, 1, T + 4 * MINUTE));
    feed(w, record(P0, 2, T + 11 * MINUTE), record(P1, 2, T + 12 * MINUTE));
  }

  /** Collects results as pollFinalized() would return them, counting primitive calls. */
  private static final class Collector implements PartitionResultVisitor<String, Long> {
    final List<WindowResult<String, Long>> results = new ArrayList<>();
    int primitive;

    @Override
    public void visit(TopicPartition p, long start, long end, String key, Long value) {
      results.add(new WindowResult<>(start, end, key, value, p));
    }

    @Override
    public void visitLong(TopicPartition p, long start, long end, String key, long value) {
      primitive++;
      visit(p, start, end, key, value);
    }
  }

  @Test
  void drainingHandsOverWhatPollingReturnsInBothScopes() {
    for (ResultScope scope : ResultScope.values()) {
      KafkaWindows<String, Long, Long> polled =
          builder(new ManualClock(NOW))
              .resultScope(scope)
              .consumer(new MockConsumer<>("earliest"))
              .build();
      KafkaWindows<String, Long, Long> drained =
          builder(new ManualClock(NOW))
              .resultScope(scope)
              .consumer(new MockConsumer<>("earliest"))
              .build();
      feedBoth(polled);
      feedBoth(drained);
      List<WindowResult<String, Long>> expected = polled.pollFinalized();
      Collector collector = new Collector();
      assertThat(drained.drainFinalized(collector)).isEqualTo(expected.size());
      assertThat(collector.results).as("%s", scope).isEqualTo(expected).isNotEmpty();
      assertThat(collector.primitive).isEqualTo(expected.size());
      assertThat(drained.committableOffsets()).isEqualTo(polled.committableOffsets());
      assertThat(drained.drainFinalized(collector)).isZero();
    }
  }

  @Test
  void aThrowingVisitorHoldsBackTheCommitOfThePartitionItWasVisiting() {
    KafkaWindows<String, Long, Long> windows =
        builder(new ManualClock(NOW)).consumer(new MockConsumer<>("earliest")).build();
    feedBoth(windows);
    Map<TopicPartition, Long> before =
        KafkaWindowsBuilderTest.offsets(windows.committableOffsets());
    PartitionResultVisitor<String, Long> failOnP1 =
        (p, start, end, key, value) -> {
          if (p.equals(P1)) {
            throw new IllegalStateException("sink down");
          }
        };
    assertThatThrownBy(() -> windows.drainFinalized(failOnP1)).hasMessage("sink down");
    Map<TopicPartition, Long> after = KafkaWindowsBuilderTest.offsets(windows.committableOffsets());
    assertThat(after.get(P0)).as("P0 was drained").isEqualTo(2L);
    assertThat(after.get(P1)).as("P1 was not").isEqualTo(before.get(P1)).isZero();
    Collector collector = new Collector();
    windows.drainFinalized(collector);
    assertThat(collector.results)
        .containsExactly(new WindowResult<>(T, T + 5 * MINUTE, "k", 2L, P1));
    assertThat(KafkaWindowsBuilderTest.offsets(windows.committableOffsets()))
        .isEqualTo(Map.of(P0, 2L, P1, 2L));
    assertThatThrownBy(() -> windows.drainFinalized(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("visitor");
  }

  /**
   * Issue 16: a visitor that calls back into the windows it is draining (here: feeding the next
   * poll from inside the drain, which in {@code PER_PARTITION} reached the other partitions'
   * windows mid-drain) is refused before anything changes; the next drain hands out the same
   * results.
   */
  @Test
  void aVisitorThatCallsBackIntoTheWindowsIsRefusedAndTheNextDrainHandsOutTheSameResults() {
    for (ResultScope scope : ResultScope.values()) {
      KafkaWindows<String, Long, Long> w =
          builder(new ManualClock(NOW))
              .resultScope(scope)
              .consumer(new MockConsumer<>("earliest"))
              .build();
      feedBoth(w);
      Collector seen = new Collector();
      PartitionResultVisitor<String, Long> reentrant =
          new PartitionResultVisitor<>() {
            @Override
            public void visit(TopicPartition p, long start, long end, String key, Long value) {
              seen.visit(p, start, end, key, value);
              feed(w, record(P1, 3, T + 13 * MINUTE));
            }
          };
      assertThatThrownBy(() -> w.drainFinalized(reentrant))
          .as("%s", scope)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("onPoll called from a result visitor");
      KafkaWindows<String, Long, Long> reference =
          builder(new ManualClock(NOW))
              .resultScope(scope)
              .consumer(new MockConsumer<>("earliest"))
              .build();
      feedBoth(reference);
      Collector expected = new Collector();
      reference.drainFinalized(expected);
      Collector again = new Collector();
      w.drainFinalized(again);
      assertThat(again.results).as("%s", scope).isNotEmpty().isEqualTo(expected.results);
      assertThat(seen.results).containsExactly(expected.results.get(0));
      assertThat(w.stats().accepted()).isEqualTo(reference.stats().accepted());
    }
  }
}
