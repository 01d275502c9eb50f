package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;

/**
 * What a partition's next owner needs, carried in the metadata of the partition's committed offset
 * ({@code OffsetAndMetadata.metadata()}), and its text codec. Immutable; any thread.
 *
 * <p>The format, version 1, is one line of ASCII: {@code lw1;e=<long>;f=<long>;w=<long>;n=<long>},
 * the four fields in any order, each exactly once, decimal {@code long}s ({@link
 * WatermarkTracker#NO_WATERMARK} for "none"). At most 95 characters, far under the broker's
 * 4,096-byte default {@code offset.metadata.max.bytes}. {@link #parse} rejects anything else with a
 * {@link CheckpointFormatException}, never with another exception: another tool may have committed
 * on the same group, and a later version of this library writes {@code lw2}.
 *
 * @param writtenThroughMillis every window of the partition that ends at or before this has been
 *     written (its results returned before the commit): a record of such a window is redelivered
 * @param frontierMillis the largest event time of the partition's records before the committed
 *     offset, as far as its owners saw
 * @param watermarkMillis the partition's watermark as of the committed offset: the next owner
 *     starts from it, so that it judges the re-read records as the previous owner did
 * @param readThroughOffset the offset after the last record the committing owner had read: a record
 *     of a written window below it is redelivered, one at or after it is truly late
 */
record Checkpoint(
    long writtenThroughMillis, long frontierMillis, long watermarkMillis, long readThroughOffset) {

  /** The version tag the encoded form starts with. */
  static final String VERSION = "lw1";

  /** Longer metadata is not ours: rejected before any parsing. */
  static final int MAX_LENGTH = 128;

  /** No window written, no frontier, no watermark: what a partition without metadata starts as. */
  static final Checkpoint NONE =
      new Checkpoint(
          WatermarkTracker.NO_WATERMARK,
          WatermarkTracker.NO_WATERMARK,
          WatermarkTracker.NO_WATERMARK,
          0);

  /**
   * Returns the encoded form.
   *
   * @return {@code lw1;e=...;f=...;w=...;n=...}
   */
  String encode() {
    return VERSION
        + ";e="
        + writtenThroughMillis
        + ";f="
        + frontierMillis
        + ";w="
        + watermarkMillis
        + ";n="
        + readThroughOffset;
  }

  /**
   * Decodes committed metadata.
   *
   * @param metadata the committed metadata, possibly {@code null} or empty
   * @return the checkpoint, or {@link #NONE} for {@code null} or empty metadata
   * @throws CheckpointFormatException if the metadata is not a version-1 checkpoint; never another
   *     exception
   */
  static Checkpoint parse(String metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return NONE;
    }
    if (metadata.length() > MAX_LENGTH) {
      throw new CheckpointFormatException(metadata, "longer than " + MAX_LENGTH + " characters");
    }
    String[] parts = metadata.split(";", -1);
    if (!VERSION.equals(parts[0])) {
      throw new CheckpointFormatException(metadata, "does not start with " + VERSION + ";");
    }
    if (parts.length != 5) {
      throw new CheckpointFormatException(
          metadata, "expected 4 fields, found " + (parts.length - 1));
    }
    long e = 0;
    long f = 0;
    long w = 0;
    long n = 0;
    int seen = 0;
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i];
      if (part.length() < 3 || part.charAt(1) != '=') {
        throw new CheckpointFormatException(metadata, "field " + i + " is not <name>=<value>");
      }
      char name = part.charAt(0);
      int bit =
          switch (name) {
            case 'e' -> 1;
            case 'f' -> 2;
            case 'w' -> 4;
            case 'n' -> 8;
            default ->
                throw new CheckpointFormatException(metadata, "unknown field '" + name + "'");
          };
      if ((seen & bit) != 0) {
        throw new CheckpointFormatException(metadata, "field '" + name + "' twice");
      }
      seen |= bit;
      long value = parseLong(metadata, name, part.substring(2));
      switch (name) {
        case 'e' -> e = value;
        case 'f' -> f = value;
        case 'w' -> w = value;
        default -> n = value;
      }
    }
    if (n < 0) {
      throw new CheckpointFormatException(metadata, "field 'n' is negative");
    }
    return new Checkpoint(e, f, w, n);
  }

  private static long parseLong(String metadata, char name, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-' && text.length() > 1)) {
        throw new CheckpointFormatException(metadata, "field '" + name + "' is not a long");
      }
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException ex) {
      throw new CheckpointFormatException(metadata, "field '" + name + "' is out of range");
    }
  }
}
