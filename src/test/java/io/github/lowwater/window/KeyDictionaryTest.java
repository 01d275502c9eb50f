package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.testing.Trials;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link KeyDictionary} against a map from key to (id, newest window end), with the
 * eviction rule checked: a key is kept while a window not yet released uses it. The model plays the
 * windows: its {@link KeyDictionary.Users} marks the ids of the keys whose newest window is not
 * released.
 */
class KeyDictionaryTest {

  /** The windows' side, modelled: which key has an entry in which window, and what is emitted. */
  private static final class Windows implements KeyDictionary.Users {
    final Map<Object, Integer> ids = new HashMap<>();
    final Map<Object, Long> newest = new HashMap<>();
    long released = Long.MIN_VALUE;
    int sweeps;

    /** The key gets an entry in the window ending at {@code windowEnd}, under its current id. */
    void use(Object key, int id, long windowEnd) {
      ids.put(key, id);
      newest.merge(key, windowEnd, Math::max);
    }

    /** Every window ending at or before {@code emittedThrough} is emitted. */
    void release(KeyDictionary dictionary, long emittedThrough) {
      released = Math.max(released, emittedThrough); // a release never goes back
      dictionary.emitted();
    }

    boolean inUse(Object key) {
      Long end = newest.get(key);
      return end != null && end > released;
    }

    @Override
    public void markLive(long[] live) {
      sweeps++;
      for (Map.Entry<Object, Integer> e : ids.entrySet()) {
        if (inUse(e.getKey())) {
          int id = e.getValue();
          live[id >>> 6] |= 1L << id;
        }
      }
    }
  }

  /** A key whose hash codes collide in groups of 8, to exercise probe runs and shift-back. */
  private record Key(int n) {
    @Override
    public int hashCode() {
      return n / 8;
    }
  }

  @Test
  void findReturnsAKeysIdWithoutAddingAndMinusOneForAnAbsentKey() {
    KeyDictionary dictionary = new KeyDictionary(live -> {});
    assertThat(dictionary.find("a")).isEqualTo(-1);
    assertThat(dictionary.size()).isZero();
    int a = dictionary.id("a");
    int b = dictionary.id("b");
    assertThat(dictionary.find("a")).isEqualTo(a);
    assertThat(dictionary.find(new String("b"))).as("by equals").isEqualTo(b);
    assertThat(dictionary.find("c")).isEqualTo(-1);
    assertThat(dictionary.size()).isEqualTo(2);
  }

  @Test
  void idsAreStableWhileUsedAndEvictionFreesOnlyReleasedKeys() {
    for (long seed = 1; seed <= Trials.of(30); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      Windows model = new Windows();
      KeyDictionary dictionary = new KeyDictionary(model);
      long window = 0;
      int universe = 50 + random.nextInt(3_000);
      for (int step = 0; step < 20_000; step++) {
        String where = "seed " + seed + " step " + step;
        if (random.nextInt(200) == 0) {
          window++; // a new window opens; the oldest ones are emitted now and then
        }
        if (random.nextInt(300) == 0) {
          model.release(dictionary, window - 1 - random.nextInt(2));
        }
        Key key = new Key(random.nextInt(universe));
        boolean wasInUse = model.inUse(key);
        Integer previous = model.ids.get(key);
        int id = dictionary.id(key);
        assertThat(dictionary.key(id)).as(where).isEqualTo(key);
        if (wasInUse) {
          assertThat(id).as(where + ": a key in use keeps its id").isEqualTo(previous);
        }
        long windowEnd = window - random.nextInt(2); // a little disorder
        if (windowEnd > model.released) { // only an open window takes entries
          model.use(key, id, windowEnd);
        } else if (!wasInUse) {
          model.ids.remove(key); // as when the event is late: the key holds no entry
        }
        // No two keys in use share an id.
        if (step % 1_000 == 0) {
          Set<Integer> inUse = new HashSet<>();
          for (Map.Entry<Object, Integer> e : model.ids.entrySet()) {
            if (model.inUse(e.getKey())) {
              assertThat(inUse.add(e.getValue())).as(where + " " + e.getKey()).isTrue();
              assertThat(dictionary.key(e.getValue())).as(where).isEqualTo(e.getKey());
            }
          }
        }
      }
      assertThat(model.sweeps)
          .as("seed " + seed + ": the trace made the dictionary sweep")
          .isPositive();
    }
  }

  @Test
  void aSteadyChurnOfKeysDoesNotGrowTheTableWithoutBound() {
    Windows model = new Windows();
    KeyDictionary dictionary = new KeyDictionary(model);
    long window = 0;
    for (int round = 0; round < 200; round++) {
      window++;
      for (int k = 0; k < 1_000; k++) {
        String key = "w" + window + "k" + k; // every window brings 1,000 new keys
        model.use(key, dictionary.id(key), window);
      }
      model.release(dictionary, window - 1); // the window before this one is emitted
    }
    assertThat(dictionary.size()).isLessThanOrEqualTo(3 * 1_000);
    assertThat(dictionary.capacity()).isLessThanOrEqualTo(8_192);
  }

  @Test
  void aKeyThatWasNeverUsedIsEvictedAtTheNextSweep() {
    Windows model = new Windows();
    KeyDictionary dictionary = new KeyDictionary(model);
    int orphan = dictionary.id("orphan"); // as when the aggregator threw on its first value
    model.release(dictionary, 0);
    for (int k = 0; k < 11; k++) {
      String key = "k" + k;
      model.use(key, dictionary.id(key), 10);
    }
    assertThat(dictionary.size()).isEqualTo(12); // 16 slots at 3/4: full
    int twelfth = dictionary.id("k11"); // the sweep makes room
    assertThat(model.sweeps).isEqualTo(1);
    assertThat(dictionary.size()).isEqualTo(12); // the orphan went...
    assertThat(twelfth).isEqualTo(orphan); // ...and its id went to the new key
    assertThat(dictionary.capacity()).isEqualTo(32); // 11 of 16 left after the sweep: grown
    assertThat(dictionary.id("orphan")).isNotEqualTo(orphan).isEqualTo(12);
  }

  @Test
  void withNothingReleasedTheTableGrowsAndKeepsEveryKey() {
    Windows model = new Windows();
    KeyDictionary dictionary = new KeyDictionary(model);
    for (int k = 0; k < 10_000; k++) {
      assertThat(dictionary.id(k)).isEqualTo(k);
      model.use(k, k, 5);
    }
    for (int k = 0; k < 10_000; k++) {
      assertThat(dictionary.id(k)).isEqualTo(k);
    }
    assertThat(dictionary.size()).isEqualTo(10_000);
    assertThat(dictionary.capacity()).isEqualTo(16_384); // 10,000 keys at a load of at most 3/4
    assertThat(model.sweeps).as("one sweep, the first growth; none after: nothing emitted").isOne();
  }

  @Test
  void aSweepRunsOnlyWhenAWindowWasEmittedSinceTheLast() {
    Windows model = new Windows();
    KeyDictionary dictionary = new KeyDictionary(model);
    for (int k = 0; k < 12; k++) {
      model.use(k, dictionary.id(k), 5); // 12 of 16 slots: the next new key makes room
    }
    dictionary.id(12);
    assertThat(model.sweeps).isOne(); // the first growth sweeps once
    assertThat(dictionary.capacity()).isEqualTo(32);
    for (int k = 13; k < 24; k++) {
      model.use(k, dictionary.id(k), 5);
    }
    dictionary.id(24); // 24 of 32: would grow, but nothing was emitted: no sweep, grow
    assertThat(model.sweeps).isOne();
    assertThat(dictionary.capacity()).isEqualTo(64);
    model.release(dictionary, 5); // every window that holds a key is emitted
    for (int k = 25; k < 48; k++) {
      dictionary.id(k); // keys of late events: no window holds them
    }
    dictionary.id(48); // 48 of 64: sweeps, frees every key, then adds this one
    assertThat(model.sweeps).isEqualTo(2);
    assertThat(dictionary.capacity()).isEqualTo(64);
    assertThat(dictionary.size()).isOne();
    assertThat(dictionary.key(dictionary.id(48))).isEqualTo(48);
  }

  @Test
  void findAgreesWithIdForEveryKeyWhateverItsSlotAndEveryIdIsBelowTheBound() {
    Windows model = new Windows(); // every key in use: none is evicted
    KeyDictionary dictionary = new KeyDictionary(model);
    Map<Integer, Integer> ids = new HashMap<>();
    for (int k = 0; k < 2_000; k++) {
      int id = dictionary.id(k);
      model.use(k, id, 10);
      assertThat(id).as("key %d", k).isLessThan(dictionary.idBound()).isNotNegative();
      ids.put(k, id);
    }
    for (int k = 0; k < 2_000; k++) {
      assertThat(dictionary.find(k)).as("key %d", k).isEqualTo(ids.get(k));
    }
    assertThat(dictionary.find(2_000)).isEqualTo(-1);
    assertThat(dictionary.idBound()).isEqualTo(2_000);
  }

  /**
   * The memory rule: after a sweep the table holds at most half of its slots. Seven keys left and
   * the new one fill exactly half of 16: no growth; eight left and the new one would not fit in
   * half: it grows.
   */
  @Test
  void afterASweepTheTableGrowsOnlyIfItWouldBeMoreThanHalfFull() {
    for (int kept = 7; kept <= 8; kept++) {
      Windows model = new Windows();
      KeyDictionary dictionary = new KeyDictionary(model);
      for (int k = 0; k < 12; k++) {
        model.use(k, dictionary.id(k), k < kept ? 10 : 5);
      }
      model.release(dictionary, 5); // the keys beyond the kept ones are evictable
      dictionary.id(12); // 13 of 16 would pass 3/4: sweeps first
      assertThat(model.sweeps).isOne();
      assertThat(dictionary.size()).isEqualTo(kept + 1);
      assertThat(dictionary.capacity()).as("%d kept", kept).isEqualTo(kept == 7 ? 16 : 32);
    }
  }

  /**
   * The lookup ahead finds without adding, and a sweep forgets it: the keys it found may be evicted
   * by that sweep, and the rest of the batch probes again, so ids go to keys in exactly the order
   * one-by-one lookups give them.
   */
  @Test
  void idsFoundAheadAreForgottenByASweep() {
    Windows model = new Windows();
    KeyDictionary dictionary = new KeyDictionary(model);
    Object[] batch = new Object[14];
    for (int k = 0; k < batch.length; k++) {
      batch[k] = new Key(k);
    }
    int[] ids = new int[10];
    for (int k = 0; k < 10; k++) {
      ids[k] = dictionary.id(batch[k]); // in no window: evictable at the next sweep
    }
    dictionary.emitted();
    assertThat(dictionary.resolveAhead(batch, 0, 14)).isEqualTo(14);
    assertThat(dictionary.size()).as("adds nothing").isEqualTo(10);
    dictionary.expect(3, batch[3]);
    assertThat(dictionary.id(batch[3])).isEqualTo(ids[3]);
    for (int k = 0; k < 3; k++) {
      dictionary.id("new" + k); // the third new key passes 3/4 of 16: sweeps, evicting the ten
    }
    assertThat(model.sweeps).isOne();
    assertThat(dictionary.resolved()).as("forgotten").isZero();
    dictionary.expect(4, batch[4]);
    assertThat(dictionary.find(batch[4])).as("evicted: probed, not answered").isEqualTo(-1);
  }

  /**
   * {@code expect} answers for the very object only, and only for a key found ahead: an equal key
   * still takes the probe, and a key absent then is added by {@code id} as usual.
   */
  @Test
  void anExpectedKeyIsAnsweredByIdentityAndForgottenAtTheEndOfTheBatch() {
    KeyDictionary dictionary = new KeyDictionary(live -> {});
    String a = new String("a");
    int idA = dictionary.id("a");
    int b = dictionary.id("b");
    assertThat(dictionary.resolveAhead(new Object[] {a, "c"}, 0, 2)).isEqualTo(2);
    dictionary.expect(0, a);
    assertThat(dictionary.id(a)).isEqualTo(idA);
    assertThat(dictionary.find("b")).isEqualTo(b);
    dictionary.expect(1, "c");
    int c = dictionary.id("c");
    assertThat(c).as("absent ahead: added now").isNotIn(idA, b);
    assertThat(dictionary.find("c")).isEqualTo(c);
    dictionary.endAhead();
    assertThat(dictionary.find(a)).isEqualTo(idA);
    assertThat(dictionary.resolved()).isZero();
  }

  /**
   * The lookup stops at a null key without an exception, and at a key whose {@code hashCode} throws
   * with it, the ids before it found.
   */
  @Test
  void aNullKeyIsSkippedAndAThrowingOneEndsTheLookup() {
    KeyDictionary dictionary = new KeyDictionary(live -> {});
    int z = dictionary.id("z");
    assertThat(dictionary.resolveAhead(new Object[] {"a", null, "z"}, 0, 3)).isEqualTo(3);
    dictionary.expect(1, null);
    dictionary.expect(2, "z");
    assertThat(dictionary.id("z")).isEqualTo(z);
    Object bad =
        new Object() {
          @Override
          public int hashCode() {
            throw new IllegalStateException("no hash");
          }
        };
    Object[] batch = {"x", "y", "z", bad};
    assertThatThrownBy(() -> dictionary.resolveAhead(batch, 0, 4)).hasMessage("no hash");
    assertThat(dictionary.resolved()).isEqualTo(3);
    dictionary.expect(2, "z");
    assertThat(dictionary.find("z")).isEqualTo(z);
    assertThat(dictionary.size()).isOne();
  }
}
