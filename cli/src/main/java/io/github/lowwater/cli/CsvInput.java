package io.github.lowwater.cli;

import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the CSV export the replay tool takes, in UTF-8: a header line {@code
 * partition,offset,timestampMillis,key}, then one record per line. The key is everything after the
 * third comma (it may contain commas, and may be empty). Blank lines and a trailing {@code \r} are
 * ignored. Not thread-safe; allocates one string per line and per field.
 */
final class CsvInput {

  static final String HEADER = "partition,offset,timestampMillis,key";

  private CsvInput() {}

  /**
   * Reads every record of {@code in} into {@code sink}, in file order.
   *
   * @return the number of records read
   * @throws InputException at the first bad line (not UTF-8, or a bad field), naming the line
   *     number, and the field or the byte
   * @throws IOException if reading fails
   */
  static long read(InputStream in, RecordSink sink) throws IOException {
    Utf8Lines lines = new Utf8Lines(in);
    String header = lines.next();
    if (header == null || !header.equals(HEADER)) {
      throw InputException.field(
          1,
          "header",
          "expected \"" + HEADER + "\": " + (header == null ? "empty file" : quote(header)));
    }
    long records = 0;
    for (String line = lines.next(); line != null; line = lines.next()) {
      long lineNumber = lines.number();
      if (line.isBlank()) {
        continue;
      }
      int c1 = line.indexOf(',');
      int c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
      int c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
      if (c3 < 0) {
        String missing = c1 < 0 ? "offset" : c2 < 0 ? "timestampMillis" : "key";
        throw InputException.field(lineNumber, missing, "missing: " + quote(line));
      }
      int partition = partition(lineNumber, line.substring(0, c1));
      long offset = number(lineNumber, "offset", line.substring(c1 + 1, c2));
      if (offset < 0) {
        throw InputException.field(lineNumber, "offset", "negative: " + offset);
      }
      long timestampMillis = number(lineNumber, "timestampMillis", line.substring(c2 + 1, c3));
      sink.accept(partition, offset, timestampMillis, line.substring(c3 + 1));
      records++;
    }
    return records;
  }

  private static int partition(long lineNumber, String text) {
    long p = number(lineNumber, "partition", text);
    if (p < 0 || p > Integer.MAX_VALUE) {
      throw InputException.field(lineNumber, "partition", "not a partition number: " + quote(text));
    }
    return (int) p;
  }

  private static long number(long lineNumber, String field, String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw InputException.field(lineNumber, field, "not a number: " + quote(text));
    }
  }

  /** Quotes a field for a message, shortened to 40 characters so that the message stays a line. */
  static String quote(String text) {
    String t = text.length() > 40 ? text.substring(0, 40) + "..." : text;
    return "\"" + t + "\"";
  }
}
