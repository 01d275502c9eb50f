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
 * <p>The key, by default ({@link KeyFormat#ROW_KEY}), is a {@link RowKey}: the window's start and
 * end, the input partition and the window key as the key serializer writes it, so that a compacted
 * topic keeps one record per row, its latest pane. With {@link KeyFormat#WINDOW_KEY} the key is the
 * window key alone, as the key serializer writes it, and the rest of the row's identity is in
 * headers: see there what that costs. A session row with early results or a grace period is
 * identified by its start alone (semantics rule 56): its key's end is {@link RowKey#NO_END}, and
 * each row it replaces gets a tombstone (a null value) before it. The value is the result as the
 * value serializer writes it (given the headers). Headers: {@value #END_HEADER} (8 bytes,
 * big-endian), {@value #TIMING_HEADER} ({@code EARLY}, {@code ON_TIME} or {@code LATE}, UTF-8),
 * {@value #INDEX_HEADER} (4 bytes, big-endian), {@value #FINAL_HEADER} (1 byte, 1 or 0) and {@value
 * #COMPLETE_HEADER} (1 byte, 1 or 0: {@link WindowResult#isComplete()}). No partition and no
 * timestamp are set: the producer's partitioner hashes the key (all the panes of a row go to one
 * partition, in order) and its clock stamps the record.
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

  /**
   * The header that says whether the row is complete ({@link WindowResult#isComplete()}): 1 byte, 1
   * or 0. A reader that keeps one row per window keeps a complete one over an incomplete one.
   */
  public static final String COMPLETE_HEADER = "lowwater.complete";

  /**
   * {@link KeyFormat#WINDOW_KEY} only: the header with the row's start (of a tombstone: the start
   * of the row it deletes), 8 bytes big-endian.
   */
  public static final String START_HEADER = "lowwater.start";

  /**
   * {@link KeyFormat#WINDOW_KEY} only: the header with the input partition's topic, UTF-8; empty
   * for a row merged over every partition.
   */
  public static final String TOPIC_HEADER = "lowwater.topic";

  /**
   * {@link KeyFormat#WINDOW_KEY} only: the header with the input partition, 4 bytes big-endian; -1
   * for a row merged over every partition.
   */
  public static final String PARTITION_HEADER = "lowwater.partition";

  /**
   * What a row's record key is. The choice does not touch exactly-once: the records go in the same
   * transaction either way.
   */
  public enum KeyFormat {
    /**
     * The default: a {@link RowKey}, the row's whole identity (start, end unless the row is a
     * session row with panes, input topic and partition, window key). Distinct rows have distinct
     * keys, so a compacted topic keeps every row, each at its latest pane, and a tombstone deletes
     * exactly the row it names. The identity is in the key, where every tool and connector sees it,
     * not in headers some of them drop. The price: a reader needs {@link RowKey#parse} (or its
     * documented layout) to read the window key, and the output partition is a hash of the whole
     * row key, so the rows of one window key spread over the output partitions.
     */
    ROW_KEY,

    /**
     * The window key alone, as the key serializer writes it ({@code null} written as no bytes), so
     * that a reader deserializes it with the same deserializer as the input's, and the producer's
     * partitioner sends every row of a window key to one output partition, as a topic keyed by that
     * serializer is partitioned. The rest of the row's identity goes in the headers {@value
     * #START_HEADER}, {@value #TOPIC_HEADER} and {@value #PARTITION_HEADER}, besides the pane's.
     * The key no longer tells rows apart: the windows of a key, and in {@code PER_PARTITION} the
     * rows of a key from different input partitions, share one record key. So <b>do not compact the
     * output topic</b> unless keeping only the latest row of each window key (whatever its window
     * and partition) is what you want; a reader that keeps rows identifies them by the key and
     * those headers. A session row with panes is still preceded by a tombstone for each row it
     * replaces: its key is the window key (the key the replaced row was written under, since a
     * session replaces only rows of its own key) and its headers {@value #START_HEADER}, {@value
     * #TOPIC_HEADER} and {@value #PARTITION_HEADER} name the row it deletes (no end, timing, index
     * or final header). On a compacted topic it is harmless: the row that replaces it follows with
     * the same key.
     */
    WINDOW_KEY
  }

  private final String topic;
  private final Serializer<? super K> keySerializer;
  private final Serializer<? super R> valueSerializer;
  private final boolean keyedByStart;
  private final KeyFormat keyFormat;

  private RowRecords(
      String topic,
      Serializer<? super K> keySerializer,
      Serializer<? super R> valueSerializer,
      boolean keyedByStart,
      KeyFormat keyFormat) {
    this.topic = topic;
    this.keySerializer = keySerializer;
    this.valueSerializer = valueSerializer;
    this.keyedByStart = keyedByStart;
    this.keyFormat = keyFormat;
  }

  /**
   * The records of the rows of {@code windows}, for {@code topic}, keyed by a {@link RowKey}
   * ({@link KeyFormat#ROW_KEY}).
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
    return of(windows, topic, keySerializer, valueSerializer, KeyFormat.ROW_KEY);
  }

  /**
   * The records of the rows of {@code windows}, for {@code topic}, keyed as {@code keyFormat} says.
   *
   * @param windows the windows whose rows these are: their kind and panes decide the key's end
   * @param topic the output topic
   * @param keySerializer serializes the window key
   * @param valueSerializer serializes the result
   * @param keyFormat what the record key is
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
      Serializer<? super R> valueSerializer,
      KeyFormat keyFormat) {
    Objects.requireNonNull(windows, "windows");
    Objects.requireNonNull(topic, "topic");
    if (topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
    }
    return new RowRecords<>(
        topic,
        Objects.requireNonNull(keySerializer, "keySerializer"),
        Objects.requireNonNull(valueSerializer, "valueSerializer"),
        windows.rowsIdentifiedByStart(),
        Objects.requireNonNull(keyFormat, "keyFormat"));
  }

  /** Returns the output topic. */
  public String topic() {
    return topic;
  }

  /** Returns what the record key is. */
  public KeyFormat keyFormat() {
    return keyFormat;
  }

  /**
   * Adds the records of one row to {@code out}: a tombstone for each row it replaces, then the row.
   * If a serializer throws, nothing is added.
   *
   * @param row a row of the windows
   * @param out where the records go
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the value serializer returns {@code null}
   * @throws RuntimeException what a serializer throws
   */
  public void add(WindowResult<K, R> row, List<ProducerRecord<byte[], byte[]>> out) {
    Objects.requireNonNull(row, "row");
    Objects.requireNonNull(out, "out");
    TopicPartition source = (TopicPartition) row.source();
    String inputTopic = source == null ? "" : source.topic();
    int partition = source == null ? -1 : source.partition();
    byte[] key = keySerializer.serialize(topic, row.key());
    boolean windowKey = keyFormat == KeyFormat.WINDOW_KEY;
    RecordHeaders headers = new RecordHeaders();
    if (windowKey) {
      identify(headers, row.start(), inputTopic, partition);
    }
    headers.add(END_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(row.end()).array());
    headers.add(TIMING_HEADER, timing(row.timing()));
    headers.add(INDEX_HEADER, ByteBuffer.allocate(Integer.BYTES).putInt(row.index()).array());
    headers.add(FINAL_HEADER, new byte[] {(byte) (row.isFinal() ? 1 : 0)});
    headers.add(COMPLETE_HEADER, new byte[] {(byte) (row.isComplete() ? 1 : 0)});
    byte[] value = valueSerializer.serialize(topic, headers, row.value());
    if (value == null) {
      throw new IllegalArgumentException(
          "the value serializer returned null for the row of window "
              + row.start()
              + " and key "
              + row.key()
              + ": a null value is a tombstone, which a compacted topic deletes the row for");
    }
    byte[] windowKeyBytes = key == null ? new byte[0] : key;
    for (long replaced : row.replaces()) {
      if (windowKey) { // the key the replaced row was written under; the headers name the row
        RecordHeaders deleted = new RecordHeaders();
        identify(deleted, replaced, inputTopic, partition);
        out.add(new ProducerRecord<>(topic, null, null, windowKeyBytes, null, deleted));
      } else {
        byte[] k = RowKey.encode(replaced, RowKey.NO_END, inputTopic, partition, key);
        out.add(new ProducerRecord<>(topic, null, k, null));
      }
    }
    long keyEnd = keyedByStart ? RowKey.NO_END : row.end();
    byte[] recordKey =
        windowKey ? windowKeyBytes : RowKey.encode(row.start(), keyEnd, inputTopic, partition, key);
    out.add(new ProducerRecord<>(topic, null, null, recordKey, value, headers));
  }

  /** Adds the row's identity beside the window key: {@link KeyFormat#WINDOW_KEY}. */
  private static void identify(
      RecordHeaders headers, long start, String inputTopic, int partition) {
    headers.add(START_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(start).array());
    headers.add(TOPIC_HEADER, inputTopic.getBytes(StandardCharsets.UTF_8));
    headers.add(PARTITION_HEADER, ByteBuffer.allocate(Integer.BYTES).putInt(partition).array());
  }

  private static byte[] timing(Timing timing) {
    return timing.name().getBytes(StandardCharsets.US_ASCII);
  }
}
