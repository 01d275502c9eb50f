package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link RowKey}: the record key of an output row, its layout and its refusals. */
class RowKeyTest {

  @Test
  void everyFieldComesBackAndTheLayoutIsTheDocumentedOne() {
    byte[] key = "sensor-7".getBytes(StandardCharsets.UTF_8);
    byte[] bytes = RowKey.encode(1_000, 301_000, "arrivals", 11, key);
    assertThat(bytes).hasSize(1 + 8 + 8 + 2 + "arrivals".length() + 4 + key.length);
    assertThat(bytes[0]).isEqualTo(RowKey.VERSION);
    RowKey k = RowKey.parse(bytes);
    assertThat(k.start()).isEqualTo(1_000);
    assertThat(k.end()).isEqualTo(301_000);
    assertThat(k.topic()).isEqualTo("arrivals");
    assertThat(k.partition()).isEqualTo(11);
    assertThat(k.key()).isEqualTo(key);
    assertThat(k).isEqualTo(RowKey.parse(bytes.clone())).hasSameHashCodeAs(RowKey.parse(bytes));
    assertThat(k.toString()).isEqualTo("RowKey{start=1000, end=301000, arrivals-11, 8 key bytes}");
  }

  @Test
  void aMergedRowAndASessionRowWithPanesAndANullKey() {
    RowKey merged = RowKey.parse(RowKey.encode(-5, RowKey.NO_END, "", -1, null));
    assertThat(merged.topic()).isEmpty();
    assertThat(merged.partition()).isEqualTo(-1);
    assertThat(merged.key()).isEmpty();
    assertThat(merged.toString()).contains("end=none");
  }

  @Test
  void randomKeysRoundTripAndDifferentFieldsGiveDifferentBytes() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 1_000; i++) {
      byte[] key = new byte[random.nextInt(20)];
      random.nextBytes(key);
      long start = random.nextLong();
      long end = random.nextBoolean() ? RowKey.NO_END : random.nextLong();
      String topic = "t" + random.nextInt(100);
      int partition = random.nextInt(-1, 1000);
      RowKey k = RowKey.parse(RowKey.encode(start, end, topic, partition, key));
      assertThat(new Object[] {k.start(), k.end(), k.topic(), k.partition(), k.key()})
          .containsExactly(start, end, topic, partition, key);
      assertThat(RowKey.encode(start, end, topic, partition + 1, key))
          .isNotEqualTo(RowKey.encode(start, end, topic, partition, key));
    }
  }

  @Test
  void parseRefusesWhatIsNotAKeyOfThisVersionAndNamesWhy() {
    assertThatThrownBy(() -> RowKey.parse(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a lowwater row key of version 1: 3 bytes, version 0");
    assertThatThrownBy(() -> RowKey.parse(new byte[0]))
        .hasMessage("not a lowwater row key of version 1: 0 bytes");
    byte[] bytes = RowKey.encode(0, 1, "abc", 0, new byte[0]);
    bytes[18] = 0x7f; // the topic's length, beyond the bytes
    assertThatThrownBy(() -> RowKey.parse(bytes))
        .hasMessageStartingWith("not a lowwater row key: topic length");
    assertThatThrownBy(() -> RowKey.parse(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> RowKey.encode(0, 1, "x".repeat(40_000), 0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("topic name too long for a row key");
  }
}
