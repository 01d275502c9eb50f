package io.github.lowwater.cli;

/**
 * Bad input data: the replay stops with exit status 2 and this one-line message, which names the
 * line (or record) and the field, for example {@code line 17, field timestampMillis: not a number:
 * "12x"}.
 */
final class InputException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  InputException(String message) {
    super(message, null, false, false);
  }

  /** The message of a bad CSV line, as a whole. */
  static InputException line(long line, String problem) {
    return new InputException("line " + line + ": " + problem);
  }

  /** The message of a bad field of a CSV line. */
  static InputException field(long line, String field, String problem) {
    return new InputException("line " + line + ", field " + field + ": " + problem);
  }
}
