package io.github.lowwater.kafka;

/**
 * Committed offset metadata that is not a checkpoint this version can read. The partition then
 * starts as one without a checkpoint; {@link KafkaWindows} logs it once.
 */
final class CheckpointFormatException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** How much of foreign metadata a message quotes. */
  private static final int QUOTED = 80;

  CheckpointFormatException(String metadata, String problem) {
    super("not a Lowwater checkpoint (" + problem + "): \"" + quote(metadata) + "\"");
  }

  private static String quote(String metadata) {
    String head = metadata.length() <= QUOTED ? metadata : metadata.substring(0, QUOTED) + "...";
    StringBuilder b = new StringBuilder(head.length());
    for (int i = 0; i < head.length(); i++) {
      char c = head.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? '?' : c); // no control characters into a log line
    }
    return b.toString();
  }
}
