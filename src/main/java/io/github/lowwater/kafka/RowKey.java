package io.github.lowwater.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The record key of a row that {@link TransactionalSink} writes to its output topic by default
 * ({@link RowRecords.KeyFormat#ROW_KEY}; {@link RowRecords.KeyFormat#WINDOW_KEY} writes the window
 * key alone instead), and its binary codec: what identifies the row, so that a compacted output
 * topic keeps one record per row (the latest pane) and a reader can tell the rows apart without
 * deserializing the value. Immutable; any thread.
 *
 * <p>The layout, big-endian:
 *
 * <pre>
 * byte    version       1
 * int64   start         the window's start, epoch milliseconds
 * int64   end           the window's end; Long.MIN_VALUE for a session row with panes
 * int16   topic length  n, 0 for a row merged over every partition
 * byte[n] topic         UTF-8, the input partition's topic
 * int32   partition     the input partition, -1 for a merged row
 * byte[]  key           the rest: the window key, as the sink's key serializer wrote it
 * </pre>
 *
 * <p>A session row with early results or a grace period is identified by (start, partition, key)
 * alone (semantics rule 56): its end grows from pane to pane, so its key's end is {@link #NO_END}
 * and the end is in the {@code lowwater.end} header. Every other row is identified by (start, end,
 * partition, key).
 */
public final class RowKey {

  /** The only version this class writes and reads. */
  public static final byte VERSION = 1;

  /** The end of a row whose identity does not include its end: a session row with panes. */
  public static final long NO_END = Long.MIN_VALUE;

  private static final int FIXED_BYTES = 1 + 8 + 8 + 2 + 4;

  private final long start;
  private final long end;
  private final String topic;
  private final int partition;
  private final byte[] key;

  private RowKey(long start, long end, String topic, int partition, byte[] key) {
    this.start = start;
    this.end = end;
    this.topic = topic;
    this.partition = partition;
    this.key = key;
  }

  /**
   * Encodes a key.
   *
   * @param start the window's start
   * @param end the window's end, or {@link #NO_END}
   * @param topic the input partition's topic, or {@code ""} for a merged row
   * @param partition the input partition, or -1 for a merged row
   * @param key the serialized window key; {@code null} is written as no bytes
   * @return the record key
   * @throws IllegalArgumentException if the topic's UTF-8 form is longer than 32,767 bytes
   */
  static byte[] encode(long start, long end, String topic, int partition, byte[] key) {
    byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
    if (topicBytes.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException("topic name too long for a row key: " + topic);
    }
    byte[] keyBytes = key == null ? new byte[0] : key;
    return ByteBuffer.allocate(FIXED_BYTES + topicBytes.length + keyBytes.length)
        .put(VERSION)
        .putLong(start)
        .putLong(end)
        .putShort((short) topicBytes.length)
        .put(topicBytes)
        .putInt(partition)
        .put(keyBytes)
        .array();
  }

  /**
   * Reads a record key of the output topic.
   *
   * @param bytes the record key
   * @return its fields
   * @throws NullPointerException if {@code bytes} is null
   * @throws IllegalArgumentException if {@code bytes} is not a key of this version
   */
  public static RowKey parse(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length < FIXED_BYTES || bytes[0] != VERSION) {
      throw new IllegalArgumentException(
          "not a lowwater row key of version "
              + VERSION
              + ": "
              + bytes.length
              + " bytes"
              + (bytes.length > 0 ? ", version " + bytes[0] : ""));
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
    long start = b.getLong();
    long end = b.getLong();
    int topicLength = b.getShort();
    if (topicLength < 0 || topicLength + FIXED_BYTES > bytes.length) {
      throw new IllegalArgumentException(
          "not a lowwater row key: topic length " + topicLength + " in " + bytes.length + " bytes");
    }
    byte[] topicBytes = new byte[topicLength];
    b.get(topicBytes);
    int partition = b.getInt();
    byte[] key = new byte[b.remaining()];
    b.get(key);
    return new RowKey(start, end, new String(topicBytes, StandardCharsets.UTF_8), partition, key);
  }

  /** Returns the window's start, epoch milliseconds. */
  public long start() {
    return start;
  }

  /** Returns the window's end, or {@link #NO_END} for a session row with panes. */
  public long end() {
    return end;
  }

  /** Returns the input partition's topic, {@code ""} for a merged row. */
  public String topic() {
    return topic;
  }

  /** Returns the input partition, -1 for a merged row. */
  public int partition() {
    return partition;
  }

  /** Returns a copy of the serialized window key. */
  public byte[] key() {
    return key.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey k
        && start == k.start
        && end == k.end
        && partition == k.partition
        && topic.equals(k.topic)
        && Arrays.equals(key, k.key);
  }

  @Override
  public int hashCode() {
    return Objects.hash(start, end, topic, partition, Arrays.hashCode(key));
  }

  @Override
  public String toString() {
    return "RowKey{start="
        + start
        + ", end="
        + (end == NO_END ? "none" : Long.toString(end))
        + ", "
        + topic
        + "-"
        + partition
        + ", "
        + key.length
        + " key bytes}";
  }
}
