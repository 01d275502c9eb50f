package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link MappedRecord}: the last call wins, and a reset keeps no object of the mapper's. */
class MappedRecordTest {

  @Test
  void theLastCallOfTheMapperDecidesWhatTheRecordIs() {
    MappedRecord<String, Long> out = new MappedRecord<>();
    assertThat(out.kind).isEqualTo(MappedRecord.NOTHING);
    out.emit(5, "k", 1L);
    assertThat(out.isEvent()).isTrue();
    out.observe(7);
    assertThat(out.kind).isEqualTo(MappedRecord.TIME);
    assertThat(out.eventTimeMillis).isEqualTo(7);
    assertThat(out.key).isNull();
    out.punctuate(9);
    assertThat(out.kind).isEqualTo(MappedRecord.MARKER);
    assertThat(out.eventTimeMillis).isEqualTo(9);
    out.emit(11, "k", null);
    assertThat(out.isEvent()).as("no value: skipped").isFalse();
  }

  @Test
  void aResetDropsTheKeyAndTheValue() {
    MappedRecord<String, Long> out = new MappedRecord<>();
    out.emit(5, "k", 1L);
    out.reset();
    assertThat(out.kind).isEqualTo(MappedRecord.NOTHING);
    assertThat(out.key).isNull();
    assertThat(out.value).isNull();
    assertThat(out.isEvent()).isFalse();
  }
}
