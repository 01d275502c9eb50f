package io.github.lowwater.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the lines of a UTF-8 input and numbers them, decoding each line on its own, so that bytes
 * that are not UTF-8 are reported with their line number and their byte within the line (a reader
 * that decodes ahead fails thousands of characters before the line it has returned, with the
 * decoder's "Input length = 1"). A line ends at {@code \n}; a {@code \r} before it is dropped.
 *
 * <p>Not thread-safe. Reads the stream in blocks of 8 KB; allocates one string per line, and a line
 * buffer that grows to the longest line.
 */
final class Utf8Lines {

  private final InputStream in;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final byte[] block = new byte[8192];
  private int position;
  private int limit;
  private byte[] line = new byte[256];
  private long number;

  Utf8Lines(InputStream in) {
    this.in = in;
  }

  /**
   * Returns the next line without its line end, or {@code null} at the end of the input.
   *
   * @throws InputException if the line is not UTF-8, naming the line and the byte
   * @throws IOException if reading fails
   */
  String next() throws IOException {
    int length = 0;
    boolean read = false;
    while (true) {
      if (position == limit && !fill()) {
        if (!read) {
          return null;
        }
        break;
      }
      read = true;
      int end = position;
      while (end < limit && block[end] != '\n') {
        end++;
      }
      length = append(length, end);
      boolean lineEnd = end < limit;
      position = lineEnd ? end + 1 : end;
      if (lineEnd) {
        break;
      }
    }
    number++;
    if (length > 0 && line[length - 1] == '\r') {
      length--;
    }
    ByteBuffer bytes = ByteBuffer.wrap(line, 0, length);
    try {
      return decoder.decode(bytes).toString();
    } catch (CharacterCodingException e) {
      // The decoder stops at the first byte of the bad sequence.
      throw InputException.line(
          number, "not valid UTF-8 (byte " + (bytes.position() + 1) + " of the line)");
    }
  }

  /** The number of the line {@link #next()} returned last, from 1; 0 before the first. */
  long number() {
    return number;
  }

  /** Reads the next block; false at the end of the input. */
  private boolean fill() throws IOException {
    int n = in.read(block);
    position = 0;
    limit = Math.max(n, 0);
    return n > 0;
  }

  /** Appends the block's bytes from the position to {@code end} to the line. */
  private int append(int length, int end) {
    int n = end - position;
    if (length + n > line.length) {
      line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
    }
    System.arraycopy(block, position, line, length, n);
    return length + n;
  }
}
