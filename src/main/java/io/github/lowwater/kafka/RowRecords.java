package io.github.lowwater.kafka;

import io.github.lowwater.window.Timing;
import io.github.lowwater.window.WindowResult;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A row as Kafka records: what {@link TransactionalSink} sends, public so that a loop that writes
 * rows to a topic with a plain producer (at least once) writes the same records.
 *
 * <p>The key is a {@link RowKey}: the window's start and end, the input partition and the window
 * key as the key serializer writes it, so that a compacted topic keeps one record per row, its
 * latest pane. A session row with early results or a grace period is identified by its start alone
 * (semantics rule 56): its key's end is {@link RowKey#NO_END}, and each row it replaces gets a
 * tombstone (a null value) before it. The value is the result as the value serializer writes it
 * (given the headers). Headers: {@value #END_HEADER} (8 bytes, big-endian), {@value #TIMING_HEADER}
 * ({@code EARLY}, {@code ON_TIME} or {@code LATE}, UTF-8), {@value #INDEX_HEADER} (4 bytes,
 * big-endian) and {@value #FINAL_HEADER} (1 byte, 1 or 0). No partition and no timestamp are set:
 * the producer's partitioner hashes the key (all the panes of a row go to one partition, in order)
 * and its clock stamps the record.
 *
 * <p>A value serializer that returns {@code null} is refused: a null value is a tombstone. A null
 * window key is written as no key bytes, as an empty one.
 *
 * <p>Immutable, if the serializers are; allocates the records, their keys, values and headers.
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
public final class RowRecords<K, R> {

  /** The header with the row's end, 8 bytes big-endian. */
  public static final String END_HEADER = "lowwater.end";

  /** The header with the row's timing, UTF-8: EARLY, ON_TIME or LATE. */
  public static final String TIMING_HEADER = "lowwater.timing";

  /** The header with the row's index among the rows of its window, 4 bytes big-endian. */
  public static final String INDEX_HEADER = "lowwater.index";

  /** The header that says whether the row is its window's last: 1 byte, 1 or 0. */
  public static final String FINAL_HEADER = "lowwater.final";

  private final String topic;
  private final Serializer<? super K> keySerializer;
  private final Serializer<? super R> valueSerializer;
  private final boolean keyedByStart;

  private RowRecords(
      String topic,
      Serializer<? super K> keySerializer,
      Serializer<? super R> valueSerializer,
      boolean keyedByStart) {
    this.topic = topic;
    this.keySerializer = keySerializer;
    this.valueSerializer = valueSerializer;
    this.keyedByStart = keyedByStart;
  }

  /**
   * The records of the rows of {@code windows}, for {@code topic}.
   *
   * @param windows the windows whose rows these are: their kind and panes decide the key's end
   * @param topic the output topic
   * @param keySerializer serializes the window key
   * @param valueSerializer serializes the result
   * @param <K> the window key type
   * @param <R> the result type
   * @return the format
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code topic} is blank
   */
  public static <K, R> RowRecords<K, R> of(
      KafkaWindows<K, ?, R> windows,
      String topic,
      Serializer<? super K> keySerializer,
      Serializer<? super R> valueSerializer) {
    Objects.requireNonNull(windows, "windows");
    Objects.requireNonNull(topic, "topic");
    if (topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
    }
    return new RowRecords<>(
        topic,
        Objects.requireNonNull(keySerializer, "keySerializer"),
        Objects.requireNonNull(valueSerializer, "valueSerializer"),
        windows.rowsIdentifiedByStart());
  }

  /** Returns the output topic. */
  public String topic() {
    return topic;
  }

  /**
   * Adds the records of one row to {@code out}: a tombstone for each row it replaces, then the row.
   * If a serializer throws, nothing is added.
   *
   * @param row a row of the windows
   * @param out where the records go
   */
  public void add(WindowResult<K, R> row, List<ProducerRecord<byte[], byte[]>> out) {
    TopicPartition source = (TopicPartition) row.source();
    String inputTopic = source == null ? "" : source.topic();
    int partition = source == null ? -1 : source.partition();
    byte[] key = keySerializer.serialize(topic, row.key());
    RecordHeaders headers = new RecordHeaders();
    headers.add(END_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(row.end()).array());
    headers.add(TIMING_HEADER, timing(row.timing()));
    headers.add(INDEX_HEADER, ByteBuffer.allocate(Integer.BYTES).putInt(row.index()).array());
    headers.add(FINAL_HEADER, new byte[] {(byte) (row.isFinal() ? 1 : 0)});
    byte[] value = valueSerializer.serialize(topic, headers, row.value());
    if (value == null) {
      throw new IllegalArgumentException(
          "the value serializer returned null for the row of window "
              + row.start()
              + " and key "
              + row.key()
              + ": a null value is a tombstone, which a compacted topic deletes the row for");
    }
    for (long replaced : row.replaces()) {
      byte[] k = RowKey.encode(replaced, RowKey.NO_END, inputTopic, partition, key);
      out.add(new ProducerRecord<>(topic, null, k, null));
    }
    long keyEnd = keyedByStart ? RowKey.NO_END : row.end();
    out.add(
        new ProducerRecord<>(
            topic,
            null,
            null,
            RowKey.encode(row.start(), keyEnd, inputTopic, partition, key),
            value,
            headers));
  }

  private static byte[] timing(Timing timing) {
    return timing.name().getBytes(StandardCharsets.US_ASCII);
  }
}
