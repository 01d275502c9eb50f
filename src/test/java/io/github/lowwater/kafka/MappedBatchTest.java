package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link MappedBatch}: every record mapped once, in order, and loaded back as the mapper made it; a
 * mapper that throws ends the batch at its record, with the records before it mapped; a clear keeps
 * no object of the mapper's.
 */
class MappedBatchTest {

  private static List<ConsumerRecord<String, String>> records(String... values) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      records.add(new ConsumerRecord<>("t", 0, 10 + i, "k" + i, values[i]));
    }
    return records;
  }

  /** "e": an event; "t": a time-only record; "m": a marker; "n": an event without a value. */
  private static final RecordMapper<String, String, String, Long> MAPPER =
      (r, out) -> {
        switch (r.value()) {
          case "e" -> out.emit(r.offset(), r.key(), r.offset() * 2);
          case "t" -> out.observe(r.offset());
          case "m" -> out.punctuate(r.offset());
          case "n" -> out.emit(r.offset(), r.key(), null);
          default -> throw new IllegalArgumentException("bad record " + r.offset());
        }
      };

  @Test
  void everyRecordIsMappedOnceAndLoadedBackAsTheMapperMadeIt() {
    MappedBatch<String, Long> batch = new MappedBatch<>();
    MappedRecord<String, Long> out = new MappedRecord<>();
    List<Long> mapped = new ArrayList<>();
    batch.map(
        records("e", "t", "m", "n", "e"),
        (r, o) -> {
          mapped.add(r.offset());
          MAPPER.map(r, o);
        },
        out);
    assertThat(mapped).containsExactly(10L, 11L, 12L, 13L, 14L);
    assertThat(batch.size()).isEqualTo(5);
    assertThat(batch.failure()).isNull();
    assertThat(batch.keys()).startsWith("k0", null, null, null, "k4");
    batch.load(0, out);
    assertThat(out.isEvent()).isTrue();
    assertThat(out.eventTimeMillis).isEqualTo(10);
    assertThat(out.value).isEqualTo(20L);
    batch.load(1, out);
    assertThat(out.kind).isEqualTo(MappedRecord.TIME);
    assertThat(out.eventTimeMillis).isEqualTo(11);
    batch.load(2, out);
    assertThat(out.kind).isEqualTo(MappedRecord.MARKER);
    batch.load(3, out);
    assertThat(out.kind).as("no value: skipped").isEqualTo(MappedRecord.NOTHING);
    assertThat(out.isEvent()).isFalse();
    batch.load(4, out);
    assertThat(out.key).isEqualTo("k4");
  }

  @Test
  void aMapperThatThrowsEndsTheBatchAtItsRecordWithTheRecordsBeforeItMapped() {
    MappedBatch<String, Long> batch = new MappedBatch<>();
    MappedRecord<String, Long> out = new MappedRecord<>();
    batch.map(records("e", "e", "x", "e"), MAPPER, out);
    assertThat(batch.size()).isEqualTo(2);
    assertThat(batch.failure())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad record 12");
    assertThat(out.key).as("the scratch output keeps nothing").isNull();
    batch.map(records("e"), MAPPER, out);
    assertThat(batch.failure()).as("a new batch starts clean").isNull();
    assertThat(batch.size()).isOne();
  }

  @Test
  void aClearKeepsNoObjectOfTheMappersAndTheArraysAreReused() {
    MappedBatch<String, Long> batch = new MappedBatch<>();
    MappedRecord<String, Long> out = new MappedRecord<>();
    batch.map(records("e", "e", "e"), MAPPER, out);
    Object[] keys = batch.keys();
    batch.clear();
    assertThat(batch.size()).isZero();
    assertThat(keys).containsOnlyNulls();
    batch.map(records("e", "e"), MAPPER, out);
    assertThat(batch.keys()).as("reused").isSameAs(keys);
  }
}
