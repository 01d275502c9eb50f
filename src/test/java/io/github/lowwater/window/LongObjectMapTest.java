package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Model-based: {@link LongObjectMap} against {@link HashMap} on seeded random operations. */
class LongObjectMapTest {

  @Test
  void matchesHashMapOnRandomOperationsIncludingCollidingKeys() {
    for (long seed = 1; seed <= Trials.of(50); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      LongObjectMap<String> map = new LongObjectMap<>();
      Map<Long, String> reference = new HashMap<>();
      List<Long> keys = new ArrayList<>();
      long stride = random.nextBoolean() ? 300_000 : 1L << random.nextInt(40);
      for (int i = 0; i < 200; i++) {
        keys.add(random.nextInt(3) == 0 ? random.nextLong() : (i - 100) * stride);
      }
      keys.add(Long.MIN_VALUE);
      keys.add(Long.MAX_VALUE);
      keys.add(0L);
      for (int step = 0; step < 5_000; step++) {
        long key = keys.get(random.nextInt(keys.size()));
        String where = "seed " + seed + " step " + step + " key " + key;
        if (random.nextInt(3) > 0) {
          if (!reference.containsKey(key)) {
            map.putNew(key, "v" + key);
            reference.put(key, "v" + key);
          }
        } else {
          assertThat(map.remove(key)).as(where).isEqualTo(reference.remove(key) != null);
        }
        assertThat(map.size()).as(where).isEqualTo(reference.size());
        long probe = keys.get(random.nextInt(keys.size()));
        assertThat(map.get(probe)).as(where + " get " + probe).isEqualTo(reference.get(probe));
      }
      for (long k : keys) {
        assertThat(map.get(k)).as("seed %d final %d", seed, k).isEqualTo(reference.get(k));
      }
      for (long k : keys) {
        map.remove(k);
      }
      assertThat(map.size()).as("seed %d emptied", seed).isZero();
      assertThat(map.get(keys.get(0))).isNull();
    }
  }
}
