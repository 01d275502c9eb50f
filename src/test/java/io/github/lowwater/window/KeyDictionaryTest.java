package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link KeyDictionary} against a map from key to (id, newest window end), with the
 * eviction rule checked: a key is kept while a window not yet released uses it.
 */
class KeyDictionaryTest {

  /** A key whose hash codes collide in groups of 8, to exercise probe runs and shift-back. */
  private record Key(int n) {
    @Override
    public int hashCode() {
      return n / 8;
    }
  }

  @Test
  void idsAreStableWhileUsedAndEvictionFreesOnlyReleasedKeys() {
    for (long seed = 1; seed <= 30; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      KeyDictionary dictionary = new KeyDictionary();
      Map<Key, Integer> ids = new HashMap<>();
      Map<Key, Long> newest = new HashMap<>();
      long released = Long.MIN_VALUE;
      long window = 0;
      int universe = 50 + random.nextInt(3_000);
      for (int step = 0; step < 20_000; step++) {
        String where = "seed " + seed + " step " + step;
        if (random.nextInt(200) == 0) {
          window++; // a new window opens; the oldest ones are emitted now and then
        }
        if (random.nextInt(300) == 0) {
          long emitted = window - 1 - random.nextInt(2);
          dictionary.release(emitted);
          released = Math.max(released, emitted); // a release never goes back
        }
        Key key = new Key(random.nextInt(universe));
        int id = dictionary.id(key);
        assertThat(dictionary.key(id)).as(where).isEqualTo(key);
        Integer previous = ids.get(key);
        Long end = newest.get(key);
        if (previous != null && end != null && end > released) {
          assertThat(id).as(where + ": a key in use keeps its id").isEqualTo(previous);
        }
        ids.put(key, id);
        long windowEnd = window - random.nextInt(2); // a little disorder
        if (windowEnd > released) { // only an open window takes entries
          dictionary.use(id, windowEnd);
          newest.merge(key, windowEnd, Math::max);
        }
        // No two keys in use share an id.
        if (step % 1_000 == 0) {
          Set<Integer> inUse = new HashSet<>();
          for (Map.Entry<Key, Integer> e : ids.entrySet()) {
            Long n = newest.get(e.getKey());
            if (n != null && n > released) {
              assertThat(inUse.add(e.getValue())).as(where + " " + e.getKey()).isTrue();
              assertThat(dictionary.key(e.getValue())).as(where).isEqualTo(e.getKey());
            }
          }
        }
      }
    }
  }

  @Test
  void aSteadyChurnOfKeysDoesNotGrowTheTableWithoutBound() {
    KeyDictionary dictionary = new KeyDictionary();
    long window = 0;
    for (int round = 0; round < 200; round++) {
      window++;
      for (int k = 0; k < 1_000; k++) {
        String key = "w" + window + "k" + k; // every window brings 1,000 new keys
        dictionary.use(dictionary.id(key), window);
      }
      dictionary.release(window - 1); // the window before this one is emitted
    }
    assertThat(dictionary.size()).isLessThanOrEqualTo(3 * 1_000);
    assertThat(dictionary.capacity()).isLessThanOrEqualTo(8_192);
  }

  @Test
  void aKeyThatWasNeverUsedIsEvictedAtTheNextSweep() {
    KeyDictionary dictionary = new KeyDictionary();
    int orphan = dictionary.id("orphan"); // as when the aggregator threw on its first value
    dictionary.release(0);
    for (int k = 0; k < 11; k++) {
      dictionary.use(dictionary.id("k" + k), 10);
    }
    assertThat(dictionary.size()).isEqualTo(12); // 16 slots at 3/4: full
    int twelfth = dictionary.id("k11"); // the sweep makes room
    assertThat(dictionary.size()).isEqualTo(12); // the orphan went...
    assertThat(twelfth).isEqualTo(orphan); // ...and its id went to the new key
    assertThat(dictionary.capacity()).isEqualTo(32); // 11 of 16 left after the sweep: grown
    assertThat(dictionary.id("orphan")).isNotEqualTo(orphan).isEqualTo(12);
  }

  @Test
  void withNothingReleasedTheTableGrowsAndKeepsEveryKey() {
    KeyDictionary dictionary = new KeyDictionary();
    for (int k = 0; k < 10_000; k++) {
      assertThat(dictionary.id(k)).isEqualTo(k);
      dictionary.use(k, 5);
    }
    for (int k = 0; k < 10_000; k++) {
      assertThat(dictionary.id(k)).isEqualTo(k);
    }
    assertThat(dictionary.size()).isEqualTo(10_000);
    assertThat(dictionary.capacity()).isEqualTo(16_384); // 10,000 keys at a load of at most 3/4
  }
}
