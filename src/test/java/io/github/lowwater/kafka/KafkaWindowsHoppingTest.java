package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * Hopping windows behind {@link KafkaWindows}: the options, and the owner change that only a
 * hopping record can cause (a record re-read whose first windows were written and whose last is
 * open). The randomized model over thousands of owner changes is {@code HandOverModelTest}.
 */
class KafkaWindowsHoppingTest {

  final KafkaWindowsOwnerChangesTest f = new KafkaWindowsOwnerChangesTest();

  KafkaWindows.Builder<Long, Long> fiveEveryOne() {
    return f.builder(ResultScope.PER_PARTITION, Duration.ZERO).hopping(Duration.ofMinutes(1));
  }

  /**
   * A reads r1 at minute 4 into windows ending at 5 to 9, writes the two that end by 6 (they also
   * hold r0), commits at r1 and crashes. B re-reads r1: it goes into the same windows, but the two
   * written ones must not be written again with r1 alone.
   */
  @Test
  void aReReadRecordNeverRewritesTheWrittenWindowsItAlsoBelongsTo() {
    ConsumerRecord<String, String> r0 = record(P0, 0, 1, "a");
    ConsumerRecord<String, String> r1 = record(P0, 1, 4, "a");
    ConsumerRecord<String, String> r2 = record(P0, 2, 6, "a");
    KafkaWindows<String, Long, Long> a = f.owner(fiveEveryOne(), P0);
    KafkaWindowsTest.feed(a, r0, r1, r2);
    f.write(a);
    Map<List<Object>, Long> written = new HashMap<>(f.rows);
    assertThat(written).containsEntry(Arrays.asList(millis(1), P0, "a"), 2L); // [1,6): r0 + r1
    f.commit(a);
    assertThat(f.group.get(P0).offset()).as("r1's pane is not freed").isEqualTo(1);

    KafkaWindows<String, Long, Long> b = f.owner(fiveEveryOne(), P0);
    b.onPoll(f.fromCommitted(r0, r1, r2), ConsumerRecord::key, r -> 1L);
    List<WindowResult<String, Long>> again = b.pollFinalized();
    assertThat(again).as("windows ending by 6 were written by A").isEmpty();
    b.finishAll();
    f.write(b);
    // One uninterrupted reading, for the truth.
    KafkaWindows<String, Long, Long> truth =
        fiveEveryOne().consumer(new MockConsumer<>("earliest")).build();
    truth.rebalanceListener().onPartitionsAssigned(List.of(P0));
    KafkaWindowsTest.feed(truth, r0, r1, r2);
    truth.finishAll();
    Map<List<Object>, Long> expected = new HashMap<>();
    for (WindowResult<String, Long> r : truth.pollFinalized()) {
      expected.put(Arrays.asList(r.start(), r.source(), r.key()), r.value());
    }
    assertThat(f.rows).isEqualTo(expected);
    for (Map.Entry<List<Object>, Long> e : written.entrySet()) {
      assertThat(f.rows).as("never rewritten").containsEntry(e.getKey(), e.getValue());
    }
  }

  @Test
  void hoppingNamesABadAdvanceAndBuildRefusesAnAggregatorThatCannotMerge() {
    KafkaWindows.Builder<Long, Long> b =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
    assertThatThrownBy(() -> b.hopping(Duration.ofMinutes(6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("advance must be <= size (PT5M): PT6M");
    b.hopping(Duration.ofMinutes(1));
    assertThatThrownBy(() -> b.hopping(Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("hopping was already set to PT1M");
    Aggregator<Long, long[], Long> noMerge =
        Aggregators.of(
            () -> new long[1],
            (long[] acc, Long v) -> {
              acc[0] += v;
              return acc;
            },
            (long[] acc) -> acc[0]);
    KafkaWindows.Builder<Long, Long> c =
        KafkaWindows.builder(Duration.ofMinutes(5), noMerge)
            .hopping(Duration.ofMinutes(1))
            .consumer(new MockConsumer<>("earliest"));
    assertThatThrownBy(c::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hopping windows combine accumulators with Aggregator.merge");
  }
}
