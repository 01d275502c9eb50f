package io.github.lowwater.kafka;

import java.util.Arrays;

/**
 * The decisions one partition's owners took from the wall clock rather than from the records, each
 * at the offset from which it applies, so that the partition's next owner re-reads the records
 * below its predecessor's read position under exactly the same decisions ({@code PER_PARTITION};
 * issue 32, defects 1 and 2):
 *
 * <ul>
 *   <li>{@link #RAISE} {@code q<a>:<w>}: before the record at offset {@code a} was read, a
 *       quiet-period advance raised the watermark to {@code w};
 *   <li>{@link #GUARD} {@code c<a>:<wall>}: from the record at offset {@code a} on, the
 *       future-timestamp guard judged records against the wall-clock reading {@code wall} (a record
 *       is beyond it iff {@code t > wall + maxFutureSkew}).
 * </ul>
 *
 * <p>A checkpoint carries the entries its range needs ({@link #encodeFrom}): every raise after its
 * committed offset, the guard reading in force at that offset, and every later one. The next owner
 * {@linkplain #restore restores} them and applies each one when its read position reaches the
 * entry's offset; beyond its predecessor's read position it records its own.
 *
 * <p>Not thread-safe: the polling thread. O(1) per record; entries are kept only until a commit
 * passes them, and written in offset order. The guard records a reading only when it changes a
 * verdict (a record within the new reading's limit but beyond the recorded one), so a device that
 * is always ahead adds none.
 */
final class WallClockHistory {

  /** The most entries a checkpoint carries: beyond, the commit stays at the last that fit. */
  static final int MAX_ENTRIES = 16;

  /** A quiet-period raise of the watermark. */
  static final char RAISE = 'q';

  /** A wall-clock reading of the future-timestamp guard. */
  static final char GUARD = 'c';

  /** No guard reading yet: every record with a time beyond {@code Long.MIN_VALUE + skew}. */
  static final long NO_READING = Long.MIN_VALUE;

  private char[] kinds = new char[4];
  private long[] offsets = new long[4];
  private long[] values = new long[4];
  private int size;

  /** Entries {@code [next, replayEnd)} are restored ones not applied yet. */
  private int next;

  private int replayEnd;

  /** The guard's reading in force. */
  private long guardWall = NO_READING;

  /**
   * Restores the entries of a checkpoint, to be replayed ({@link #due}), in offset order whatever
   * their order in {@code encoded}: versions before issue 45 could write a guard reading after a
   * raise at a later offset ({@code q3:…,c1:…}), and each entry means the same in either order.
   */
  void restore(String encoded) {
    size = 0;
    next = 0;
    if (encoded.isEmpty()) {
      replayEnd = 0;
      return;
    }
    for (String entry : encoded.split(",", -1)) {
      int colon = entry.indexOf(':');
      long offset = Long.parseLong(entry.substring(1, colon));
      append(entry.charAt(0), offset, Long.parseLong(entry.substring(colon + 1)));
    }
    sortByOffset(0, size);
    replayEnd = size;
  }

  /**
   * Checks the {@code h} field of a checkpoint: entries of a known kind, a non-negative offset and
   * a value, at most {@link #MAX_ENTRIES}. The order is not checked: {@link #encodeFrom} writes
   * them in offset order, and {@link #restore} sorts them (issue 45, item 1).
   *
   * @return the reason it is not well formed, or {@code null}
   */
  static String invalid(String encoded) {
    if (encoded.isEmpty()) {
      return "field 'h' is empty";
    }
    String[] entries = encoded.split(",", -1);
    if (entries.length > MAX_ENTRIES) {
      return "field 'h' has more than " + MAX_ENTRIES + " entries";
    }
    for (String entry : entries) {
      int colon = entry.indexOf(':');
      if (entry.length() < 4
          || (entry.charAt(0) != RAISE && entry.charAt(0) != GUARD)
          || colon < 2
          || !isLong(entry.substring(1, colon), false)
          || !isLong(entry.substring(colon + 1), true)) {
        return "field 'h' has a malformed entry";
      }
    }
    return null;
  }

  private static boolean isLong(String text, boolean signed) {
    if (text.isEmpty() || text.length() > 20) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9') && !(signed && i == 0 && c == '-' && text.length() > 1)) {
        return false;
      }
    }
    try {
      Long.parseLong(text);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Whether a restored entry applies before the record at {@code offset} (or a read position). */
  boolean due(long offset) {
    return next < replayEnd && offsets[next] <= offset;
  }

  /** The kind of the next restored entry; call only when {@link #due}. */
  char dueKind() {
    return kinds[next];
  }

  /** Applies the next restored entry and returns its value: a watermark or a guard reading. */
  long applyDue() {
    long value = values[next];
    if (kinds[next] == GUARD) {
      guardWall = value;
    }
    next++;
    return value;
  }

  /** Whether restored entries are still to be applied. */
  boolean replaying() {
    return next < replayEnd;
  }

  /**
   * Records a quiet-period raise to {@code watermarkMillis} before the record at {@code offset}; a
   * later raise at the same offset replaces it.
   */
  void raised(long offset, long watermarkMillis) {
    if (size > replayEnd && kinds[size - 1] == RAISE && offsets[size - 1] == offset) {
      values[size - 1] = watermarkMillis;
      return;
    }
    append(RAISE, offset, watermarkMillis);
  }

  /** The guard's reading in force, or {@link #NO_READING}. */
  long guardWall() {
    return guardWall;
  }

  /**
   * Records a guard reading that applies from the record at {@code offset} on. It may precede a
   * restored raise still to be replayed: an owner that turns the guard on re-reads its
   * predecessor's records with its own readings (issue 45, item 1); {@link #encodeFrom} puts it in
   * its place.
   */
  void guardRead(long offset, long wallMillis) {
    guardWall = wallMillis;
    append(GUARD, offset, wallMillis);
  }

  /**
   * Forgets every guard reading: an owner without the guard carries none, so that a later owner
   * with it judges the records this one read by its own readings, not by a reading older than them.
   * Call only once the restored entries are all applied, as {@link #encodeFrom}.
   */
  void forgetGuardReadings() {
    int to = 0;
    for (int i = 0; i < size; i++) {
      if (kinds[i] != GUARD) {
        kinds[to] = kinds[i];
        offsets[to] = offsets[i];
        values[to] = values[i];
        to++;
      }
    }
    size = to;
  }

  /**
   * Returns the entries a checkpoint committed at {@code committedOffset} needs, and forgets those
   * that no later checkpoint can need (this owner's commit never moves back): the raises after it,
   * the guard reading in force at it and the later ones. Call only once the restored entries are
   * all applied.
   *
   * @return the {@code h} field, empty for none, or {@code null} if more than {@link #MAX_ENTRIES}
   */
  String encodeFrom(long committedOffset) {
    sortByOffset(0, size);
    int keep = 0;
    int baseline = -1;
    for (int i = 0; i < size; i++) {
      if (offsets[i] > committedOffset) {
        break;
      }
      if (kinds[i] == GUARD) {
        baseline = i;
      }
      keep = i + 1;
    }
    // Drop [0, keep) but the baseline guard reading.
    int to = 0;
    for (int i = 0; i < size; i++) {
      if (i >= keep || i == baseline) {
        kinds[to] = kinds[i];
        offsets[to] = offsets[i];
        values[to] = values[i];
        to++;
      }
    }
    size = to;
    next = 0;
    replayEnd = 0;
    if (size > MAX_ENTRIES) {
      return null;
    }
    StringBuilder b = new StringBuilder(size * 24);
    for (int i = 0; i < size; i++) {
      b.append(i == 0 ? "" : ",").append(kinds[i]).append(offsets[i]).append(':').append(values[i]);
    }
    return b.toString();
  }

  /** The number of entries held (for tests). */
  int size() {
    return size;
  }

  /**
   * Sorts entries {@code [from, to)} by offset, stably (a raise and a reading at one offset keep
   * their order). An insertion sort: the entries are in order but for a few readings that an owner
   * which turned the guard on took below its predecessor's raises, so it is O(n) in practice.
   */
  private void sortByOffset(int from, int to) {
    for (int i = from + 1; i < to; i++) {
      char kind = kinds[i];
      long offset = offsets[i];
      long value = values[i];
      int j = i - 1;
      while (j >= from && offsets[j] > offset) {
        kinds[j + 1] = kinds[j];
        offsets[j + 1] = offsets[j];
        values[j + 1] = values[j];
        j--;
      }
      kinds[j + 1] = kind;
      offsets[j + 1] = offset;
      values[j + 1] = value;
    }
  }

  private void append(char kind, long offset, long value) {
    if (size == kinds.length) {
      kinds = Arrays.copyOf(kinds, size * 2);
      offsets = Arrays.copyOf(offsets, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    kinds[size] = kind;
    offsets[size] = offset;
    values[size] = value;
    size++;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("WallClockHistory{");
    for (int i = 0; i < size; i++) {
      b.append(i == 0 ? "" : ", ")
          .append(kinds[i])
          .append(offsets[i])
          .append(':')
          .append(values[i]);
    }
    return b.append('}').toString();
  }
}
