package io.github.lowwater.window;

/**
 * For {@code MemoryFootprint} only: builds the package-private {@link KeyDictionary} of the
 * windows, so that its retained heap per key can be measured apart from the windows' entries. (The
 * benchmarks compile the library's sources, so this class sits in the library's package.)
 */
public final class DictionaryProbe {

  private DictionaryProbe() {}

  /**
   * Returns a dictionary holding the first {@code n} of {@code keys}, each used by one window.
   *
   * @param keys the keys, created by the caller (their objects are not part of the dictionary)
   * @param n how many to add
   * @return the dictionary, as an {@code Object}
   */
  public static Object dictionaryOf(String[] keys, int n) {
    // Every key stays in use (as in one window that holds them all): a sweep frees nothing.
    KeyDictionary dictionary = new KeyDictionary(live -> java.util.Arrays.fill(live, -1L));
    for (int k = 0; k < n; k++) {
      dictionary.id(keys[k]);
    }
    return dictionary;
  }
}
