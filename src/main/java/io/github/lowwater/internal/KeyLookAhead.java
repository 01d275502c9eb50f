package io.github.lowwater.internal;

/**
 * The windows' key lookahead, for the Kafka driver in another package: the batch path of {@code
 * EventTimeWindows.addAll}, open to a caller that decides each record itself (late, redelivered, or
 * into the windows) and so cannot hand the windows a whole batch. Not part of the API: the window
 * package installs the one implementation when {@code EventTimeWindows} is loaded, which is before
 * any windows exist to be passed here.
 *
 * <p>The protocol: {@link #lookAhead} over the keys of the records about to be added, then, before
 * each record's calls into the windows, {@link #expect} with its index and the same key object,
 * then {@link #end} (in a {@code finally}). An optimization only: the windows' results are the same
 * without it, or if it is used out of order.
 */
public abstract class KeyLookAhead {

  private static volatile KeyLookAhead installed;

  /** For the implementation. */
  protected KeyLookAhead() {}

  /**
   * Installs the implementation; the window package calls it once.
   *
   * @param lookAhead the implementation
   * @throws IllegalStateException if one is installed already
   */
  public static void install(KeyLookAhead lookAhead) {
    if (installed != null) {
      throw new IllegalStateException("a KeyLookAhead is installed already: " + installed);
    }
    installed = lookAhead;
  }

  /**
   * Returns the implementation.
   *
   * @return the one the window package installed
   */
  public static KeyLookAhead get() {
    return installed;
  }

  /**
   * Looks up {@code keys[from, to)} in the windows' key dictionary, adding none; a null key is
   * skipped, and a key whose {@code hashCode} or {@code equals} throws ends the lookup silently.
   *
   * @param windows an {@code EventTimeWindows}
   * @param keys the keys of the coming records
   * @param eventTimesMillis their event times
   * @param from the first, inclusive
   * @param to the last, exclusive
   */
  public abstract void lookAhead(
      Object windows, Object[] keys, long[] eventTimesMillis, int from, int to);

  /**
   * Names the record about to be added.
   *
   * @param windows the windows of the lookahead
   * @param index the record's index, from the lookahead's {@code from}
   * @param key the same object as {@code keys[from + index]}
   */
  public abstract void expect(Object windows, int index, Object key);

  /**
   * Ends the lookahead: the windows forget its ids and keys.
   *
   * @param windows the windows of the lookahead
   */
  public abstract void end(Object windows);
}
