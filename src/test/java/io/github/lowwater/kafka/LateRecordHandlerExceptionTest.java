package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.add;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.join;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * A late record handler may throw checked exceptions, as the other callbacks that hand records or
 * rows out of the library do ({@code ResultSink}, the Spring starter's {@code RowWriter} and {@code
 * DeadLetterHandler}).
 */
class LateRecordHandlerExceptionTest {

  /**
   * Guards the convention of issue 45 (item 3): {@code DeadLetterHandler} could throw a checked
   * exception (a failed dead-letter write) and {@code LateRecordHandler} could not. A checked
   * exception fails the poll as an unchecked one does: {@code onPoll} throws it wrapped in an
   * {@code IllegalStateException} naming the record, the consumer is rewound to the late record,
   * and the next poll hands it to the handler again.
   */
  @Test
  void aCheckedExceptionFromTheLateHandlerFailsThePollAndTheLateRecordComesAgain() {
    List<String> handled = new ArrayList<>();
    int[] failures = {1};
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .clock(new ManualClock(T0.plus(Duration.ofMinutes(30))))
            .consumer(consumer)
            .lateRecordHandler(
                (record, reason, eventTimeMillis, windowEndMillis, watermarkMillis) -> {
                  if (failures[0]-- > 0) {
                    throw new IOException("the dead-letter table is down");
                  }
                  handled.add(record.offset() + " " + reason);
                })
            .build();
    join(consumer, windows);
    // Offset 1 closes [0, 5) on P0's watermark; offset 2 belongs to it: late.
    add(consumer, record(P0, 0, 1, "a"), record(P0, 1, 12, "b"), record(P0, 2, 3, "c"));

    assertThatThrownBy(
            () -> windows.onPoll(consumer.poll(Duration.ZERO), ConsumerRecord::key, r -> 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the late record handler failed on arrivals-0@2")
        .hasCauseInstanceOf(IOException.class);
    assertThat(consumer.position(P0)).as("rewound to the late record").isEqualTo(2);
    assertThat(windows.stats().late()).isZero();

    add(consumer, record(P0, 2, 3, "c")); // the mock delivers from the position on
    windows.onPoll(consumer.poll(Duration.ZERO), ConsumerRecord::key, r -> 1L);

    assertThat(handled).containsExactly("2 LATE");
    assertThat(windows.stats().late()).isEqualTo(1);
    assertThat(windows.pollFinalized()).extracting(w -> w.key()).containsExactly("a");
  }
}
