package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowStats;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The assigned partitions and their published snapshot: readers see what the last publish saw,
 * whole, and the counters of the partitions handed over survive them.
 */
class PartitionTableTest {

  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);
  static final TopicPartition P2 = new TopicPartition("t", 2);

  static PartitionState<String, Long, Long> state(TopicPartition tp) {
    EventTimeWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .clock(new ManualClock())
            .build();
    return new PartitionState<>(tp, w, null, 0);
  }

  @Test
  void theViewIsWhatTheLastPublishSawInAssignmentOrder() {
    PartitionTable<String, Long, Long> table = new PartitionTable<>();
    assertThat(table.view().partitions()).isEmpty();
    assertThat(table.view().windows()).isEmpty();
    PartitionState<String, Long, Long> p2 = state(P2);
    PartitionState<String, Long, Long> p0 = state(P0);
    table.put(p2);
    table.put(p0);
    assertThat(table.view().partitions()).as("not yet published").isEmpty();
    table.publish(PartitionTable.NO_STATS);
    PartitionTable.View before = table.view();
    assertThat(before.partitions().keySet()).containsExactly(P2, P0);
    assertThat(before.windows()).containsExactly(p2.windows, p0.windows);
    assertThat(table.states()).containsExactly(p2, p0);
    assertThat(table.byPartition().keySet()).containsExactly(P2, P0);

    table.put(state(P1));
    assertThat(table.remove(P2)).isSameAs(p2);
    table.publish(PartitionTable.NO_STATS);
    assertThat(before.partitions().keySet()).as("a snapshot never changes").containsExactly(P2, P0);
    assertThat(table.view().partitions().keySet()).containsExactly(P0, P1);
    assertThat(table.contains(P2)).isFalse();
    assertThat(table.size()).isEqualTo(2);
  }

  @Test
  void theCountersOfPartitionsHandedOverAddUpButNotTheirOpenWindows() {
    PartitionTable<String, Long, Long> table = new PartitionTable<>();
    table.publish(new WindowStats(3, 2, 1, 7, 9, 4, 100));
    table.publish(new WindowStats(10, 20, 30, 1, 1, 40, 200));
    WindowStats retired = table.view().retired();
    assertThat(retired.accepted()).isEqualTo(13);
    assertThat(retired.late()).isEqualTo(22);
    assertThat(retired.futureEvents()).isEqualTo(31);
    assertThat(retired.finalizedWindows()).isEqualTo(44);
    assertThat(retired.openWindows()).as("gone with their partitions").isZero();
    assertThat(retired.openEntries()).isZero();
  }
}
