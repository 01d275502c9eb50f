package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultDrain} in {@code PER_PARTITION}: a partition counts as returned only once its
 * results were computed, and results taken before a failure come first next time.
 */
class ResultDrainTest {

  /** Sums; its result throws while {@code failing[0]} and the sum is odd. */
  final boolean[] failing = {false};

  final Aggregator<Long, long[], Long> oddFails =
      Aggregators.of(
          () -> new long[1],
          (long[] acc, Long v) -> {
            acc[0] += v;
            return acc;
          },
          (long[] acc) -> {
            if (failing[0] && acc[0] % 2 == 1) {
              throw new IllegalStateException("result");
            }
            return acc[0];
          });

  PartitionState<String, Long, Long> partition(
      org.apache.kafka.common.TopicPartition tp, long value) {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(10), oddFails)
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    PartitionState<String, Long, Long> p = new PartitionState<>(tp, w, null, 0);
    w.add(p.source, 5, "k", value);
    w.add(p.source, 20, "k", 2L); // closes [0, 10)
    return p;
  }

  @Test
  void aListThatThrowsReturnsNothingAndTheNextCallReturnsEveryResult() {
    PartitionState<String, Long, Long> p0 = partition(P0, 2L);
    PartitionState<String, Long, Long> p1 = partition(P1, 3L);
    ResultDrain<String, Long, Long> drain = new ResultDrain<>();
    failing[0] = true;
    assertThatThrownBy(() -> drain.take(List.of(p0, p1))).hasMessage("result");
    assertThat(p0.returnedThroughMillis)
        .as("P0's results were computed, but not returned")
        .isEqualTo(WatermarkTracker.NO_WATERMARK);
    failing[0] = false;
    assertThat(drain.take(List.of(p0, p1)))
        .extracting(r -> r.source() + "=" + r.value())
        .containsExactly(P0 + "=2", P1 + "=3");
    assertThat(p0.returnedThroughMillis).isEqualTo(20);
    assertThat(p1.returnedThroughMillis).isEqualTo(20);
  }

  @Test
  void aVisitorGetsTheResultsLeftByAListThatThrewFirstAndARevokedPartitionsAreDropped() {
    PartitionState<String, Long, Long> p0 = partition(P0, 2L);
    PartitionState<String, Long, Long> p1 = partition(P1, 4L);
    PartitionState<String, Long, Long> p2 = partition(P0, 3L); // fails, after both
    ResultDrain<String, Long, Long> drain = new ResultDrain<>();
    failing[0] = true;
    assertThatThrownBy(() -> drain.take(List.of(p0, p1, p2))).hasMessage("result");
    drain.dropUnreturned(P1);
    failing[0] = false;
    List<String> visited = new ArrayList<>();
    int count =
        drain.drain(
            List.of(p2),
            new PartitionResultVisitor<>() {
              @Override
              public void visit(
                  org.apache.kafka.common.TopicPartition tp,
                  long start,
                  long end,
                  String key,
                  Long value) {
                visited.add(tp + "=" + value);
              }
            });
    assertThat(visited).containsExactly(P0 + "=2", P0 + "=3");
    assertThat(count).isEqualTo(2);
    assertThat(p2.returnedThroughMillis).isEqualTo(20);
  }
}
