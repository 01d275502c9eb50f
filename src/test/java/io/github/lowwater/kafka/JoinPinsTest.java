package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JoinPinsTest {

  @Test
  void thePartitionIsCommittedAtItsOldestRecordStillPinned() {
    JoinPins pins = new JoinPins();
    assertThat(pins.isEmpty()).isTrue();
    pins.pin(3, 100, 40); // offset 3 pinned until the watermark reaches 100
    pins.pin(4, 50, 41);
    pins.pin(5, 200, 42);
    assertThat(pins.oldestOffset()).isEqualTo(3);
    assertThat(pins.watermarkBeforeOldest()).isEqualTo(40);

    pins.release(99); // releases offset 4 only: offset 3 still holds the commit
    assertThat(pins.size()).isEqualTo(2);
    assertThat(pins.oldestOffset()).isEqualTo(3);

    pins.release(100); // at its pin time exactly: 3 goes, and 4 (released) with it
    assertThat(pins.oldestOffset()).isEqualTo(5);
    assertThat(pins.watermarkBeforeOldest()).isEqualTo(42);

    pins.release(Long.MAX_VALUE);
    assertThat(pins.isEmpty()).isTrue();
    assertThat(pins.size()).isZero();
  }
}
