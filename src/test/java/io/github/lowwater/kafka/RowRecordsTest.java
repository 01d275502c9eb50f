package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** {@link RowRecords}: a row as Kafka records, key, value, headers and tombstones. */
class RowRecordsTest {

  final MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
  final ManualClock clock = new ManualClock(T0);

  KafkaWindows<String, Long, Long> tumbling() {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
        .clock(clock)
        .consumer(consumer)
        .build();
  }

  KafkaWindows<String, Long, Long> sessionPanes() {
    return KafkaWindows.<Long, Long>sessions(Duration.ofMinutes(1), Aggregators.count())
        .earlyResults(Duration.ofMinutes(1))
        .clock(clock)
        .consumer(consumer)
        .build();
  }

  @Test
  void aRowIsOneRecordWithItsIdentityInTheKeyAndItsPaneInTheHeaders() {
    RowRecords<String, Long> format =
        RowRecords.of(tumbling(), "out", new StringSerializer(), new LongSerializer());
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    format.add(new WindowResult<>(0, 300_000, "a", 7L, P0, Timing.LATE, 3, false), out);
    assertThat(out).hasSize(1);
    ProducerRecord<byte[], byte[]> r = out.get(0);
    assertThat(r.topic()).isEqualTo("out");
    assertThat(r.partition()).isNull();
    assertThat(r.timestamp()).isNull();
    RowKey k = RowKey.parse(r.key());
    assertThat(new Object[] {k.start(), k.end(), k.topic(), k.partition()})
        .containsExactly(0L, 300_000L, P0.topic(), 0);
    assertThat(new String(k.key(), StandardCharsets.UTF_8)).isEqualTo("a");
    assertThat(ByteBuffer.wrap(r.value()).getLong()).isEqualTo(7);
    assertThat(ByteBuffer.wrap(r.headers().lastHeader(RowRecords.END_HEADER).value()).getLong())
        .isEqualTo(300_000);
    assertThat(r.headers().lastHeader(RowRecords.TIMING_HEADER).value())
        .isEqualTo("LATE".getBytes(StandardCharsets.UTF_8));
    assertThat(ByteBuffer.wrap(r.headers().lastHeader(RowRecords.INDEX_HEADER).value()).getInt())
        .isEqualTo(3);
    assertThat(r.headers().lastHeader(RowRecords.FINAL_HEADER).value()).containsExactly(0);
    assertThat(r.headers().lastHeader(RowRecords.COMPLETE_HEADER).value()).containsExactly(1);
    assertThat(format.topic()).isEqualTo("out");
    format.add(new WindowResult<>(0, 300_000, "a", 7L, P0).incomplete(), out);
    assertThat(out.get(1).headers().lastHeader(RowRecords.COMPLETE_HEADER).value())
        .containsExactly(0);
  }

  @Test
  void aMergedRowHasNoPartitionAndASessionRowWithPanesIsKeyedByItsStartAfterItsTombstones() {
    RowRecords<String, Long> format =
        RowRecords.of(sessionPanes(), "out", new StringSerializer(), new LongSerializer());
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    format.add(
        new WindowResult<>(10, 500, "a", 2L, null, Timing.EARLY, 1, false, List.of(40L, 90L)), out);
    assertThat(out).hasSize(3);
    assertThat(out.subList(0, 2)).allSatisfy(r -> assertThat(r.value()).isNull());
    assertThat(out.stream().map(r -> RowKey.parse(r.key()).start())).containsExactly(40L, 90L, 10L);
    assertThat(out)
        .allSatisfy(r -> assertThat(RowKey.parse(r.key()).end()).isEqualTo(RowKey.NO_END));
    assertThat(RowKey.parse(out.get(2).key()).partition()).isEqualTo(-1);
    assertThat(RowKey.parse(out.get(2).key()).topic()).isEmpty();
  }

  /**
   * Issue 32, item 12: the record key was always a {@link RowKey}, so every reader of the output
   * topic needed Lowwater to read it. With {@code WINDOW_KEY} it is the window key as the user's
   * serializer writes it, and the rest of the row's identity travels in headers.
   */
  @Test
  void withTheWindowKeyFormatTheRecordKeyIsTheSerializedWindowKeyAndTheIdentityIsInHeaders() {
    RowRecords<String, Long> format =
        RowRecords.of(
            tumbling(),
            "out",
            new StringSerializer(),
            new LongSerializer(),
            RowRecords.KeyFormat.WINDOW_KEY);
    assertThat(format.keyFormat()).isEqualTo(RowRecords.KeyFormat.WINDOW_KEY);
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    format.add(new WindowResult<>(0, 300_000, "a", 7L, P0, Timing.LATE, 3, false), out);
    format.add(new WindowResult<>(0, 300_000, null, 1L, null, Timing.ON_TIME, 0, true), out);

    ProducerRecord<byte[], byte[]> r = out.get(0);
    assertThat(r.key()).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
    assertThat(ByteBuffer.wrap(r.value()).getLong()).isEqualTo(7);
    assertThat(longHeader(r, RowRecords.START_HEADER)).isZero();
    assertThat(longHeader(r, RowRecords.END_HEADER)).isEqualTo(300_000);
    assertThat(r.headers().lastHeader(RowRecords.TOPIC_HEADER).value())
        .isEqualTo(P0.topic().getBytes(StandardCharsets.UTF_8));
    assertThat(intHeader(r, RowRecords.PARTITION_HEADER)).isEqualTo(P0.partition());
    assertThat(intHeader(r, RowRecords.INDEX_HEADER)).isEqualTo(3);
    assertThat(r.headers().lastHeader(RowRecords.TIMING_HEADER).value())
        .isEqualTo("LATE".getBytes(StandardCharsets.UTF_8));
    // A null window key is no bytes, not a null key (which a compacted topic refuses), and a
    // merged row has no partition.
    ProducerRecord<byte[], byte[]> merged = out.get(1);
    assertThat(merged.key()).isEmpty();
    assertThat(intHeader(merged, RowRecords.PARTITION_HEADER)).isEqualTo(-1);
    assertThat(merged.headers().lastHeader(RowRecords.TOPIC_HEADER).value()).isEmpty();
    // The default keeps the RowKey, without the identity headers.
    RowRecords<String, Long> byDefault =
        RowRecords.of(tumbling(), "out", new StringSerializer(), new LongSerializer());
    assertThat(byDefault.keyFormat()).isEqualTo(RowRecords.KeyFormat.ROW_KEY);
    List<ProducerRecord<byte[], byte[]>> rowKeyed = new ArrayList<>();
    byDefault.add(new WindowResult<>(0, 300_000, "a", 7L, P0, Timing.LATE, 3, false), rowKeyed);
    assertThat(RowKey.parse(rowKeyed.get(0).key()).start()).isZero();
    assertThat(rowKeyed.get(0).headers().lastHeader(RowRecords.START_HEADER)).isNull();
  }

  /**
   * Issue 32, item 12: with the window key as the record key, a replaced session row's tombstone
   * must still delete that row: it is keyed by the window key (the key the replaced row was written
   * under) and names the replaced row's start and partition in its headers; without them a reader
   * could not tell which of the key's rows it deletes.
   */
  @Test
  void withTheWindowKeyFormatASessionRowsTombstoneNamesTheReplacedRowInItsHeaders() {
    RowRecords<String, Long> format =
        RowRecords.of(
            sessionPanes(),
            "out",
            new StringSerializer(),
            new LongSerializer(),
            RowRecords.KeyFormat.WINDOW_KEY);
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    format.add(
        new WindowResult<>(10, 500, "a", 2L, P0, Timing.EARLY, 1, false, List.of(40L, 90L)), out);
    assertThat(out).hasSize(3);
    assertThat(out).allSatisfy(r -> assertThat(r.key()).isEqualTo("a".getBytes(UTF8)));
    assertThat(out.subList(0, 2)).allSatisfy(r -> assertThat(r.value()).isNull());
    assertThat(out.stream().map(r -> longHeader(r, RowRecords.START_HEADER)))
        .containsExactly(40L, 90L, 10L);
    assertThat(out).allSatisfy(r -> assertThat(intHeader(r, RowRecords.PARTITION_HEADER)).isZero());
    assertThat(out.get(0).headers().lastHeader(RowRecords.END_HEADER)).isNull();
    assertThat(out.get(0).headers().lastHeader(RowRecords.INDEX_HEADER)).isNull();
    assertThatThrownBy(
            () ->
                RowRecords.of(
                    tumbling(), "out", new StringSerializer(), new LongSerializer(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keyFormat");
  }

  static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  static long longHeader(ProducerRecord<byte[], byte[]> r, String name) {
    return ByteBuffer.wrap(r.headers().lastHeader(name).value()).getLong();
  }

  static int intHeader(ProducerRecord<byte[], byte[]> r, String name) {
    return ByteBuffer.wrap(r.headers().lastHeader(name).value()).getInt();
  }

  @Test
  void aSerializerThatThrowsAddsNothingAndBadArgumentsAreNamed() {
    Serializer<Long> failing =
        (topic, v) -> {
          throw new IllegalArgumentException("no");
        };
    RowRecords<String, Long> format =
        RowRecords.of(sessionPanes(), "out", new StringSerializer(), failing);
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    assertThatThrownBy(
            () ->
                format.add(
                    new WindowResult<>(10, 500, "a", 2L, P0, Timing.EARLY, 1, false, List.of(4L)),
                    out))
        .hasMessage("no");
    assertThat(out).isEmpty();
    assertThatThrownBy(() -> RowRecords.of(tumbling(), " ", new StringSerializer(), failing))
        .hasMessage("topic must not be blank: ' '");
    assertThatThrownBy(() -> RowRecords.of(tumbling(), "out", null, failing))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keySerializer");
  }
}
