package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Model-based: {@link IdSet} against a {@link HashSet} and a list of insertion order. */
class IdSetTest {

  @Test
  void matchesAHashSetAndItsInsertionOrderAcrossClears() {
    for (long seed = 1; seed <= Trials.of(40); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int universe = 1 + random.nextInt(random.nextBoolean() ? 70 : 10_000);
      IdSet set = new IdSet(random.nextInt(universe), random.nextInt(100));
      Set<Integer> reference = new HashSet<>();
      List<Integer> order = new ArrayList<>();
      for (int step = 0; step < 8_000; step++) {
        int id = random.nextInt(universe);
        String where = "seed " + seed + " step " + step + " id " + id;
        assertThat(set.contains(id)).as(where).isEqualTo(reference.contains(id));
        if (!reference.contains(id) && random.nextBoolean()) {
          set.add(id);
          reference.add(id);
          order.add(id);
        }
        assertThat(set.size()).as(where).isEqualTo(order.size());
        if (random.nextInt(3_000) == 0) {
          set.clear();
          reference.clear();
          order.clear();
          for (int probe = 0; probe < universe; probe++) {
            assertThat(set.contains(probe)).as(where + " cleared " + probe).isFalse();
          }
        }
      }
      for (int position = 0; position < order.size(); position++) {
        assertThat(set.idAt(position))
            .as("seed %d position %d", seed, position)
            .isEqualTo(order.get(position));
      }
      long[] live = new long[(universe + 63) >>> 6];
      set.markIds(live);
      assertThat(marked(live)).as("seed %d", seed).isEqualTo(reference);
    }
  }

  /** The ids whose bit is set in {@code bits}. */
  static Set<Integer> marked(long[] bits) {
    Set<Integer> ids = new HashSet<>();
    for (int id = 0; id < 64 * bits.length; id++) {
      if ((bits[id >>> 6] & (1L << id)) != 0) {
        ids.add(id);
      }
    }
    return ids;
  }

  @Test
  void idsBeyondTheSizedBoundAndAtTheWordEdgesAreHeld() {
    IdSet set = new IdSet(0, 0);
    int[] edges = {0, 63, 64, 127, 128, 1_000_003, 10_000_019};
    for (int id : edges) {
      assertThat(set.contains(id)).isFalse();
      set.add(id);
      assertThat(set.contains(id)).isTrue();
    }
    assertThat(set.contains(62)).isFalse();
    assertThat(set.contains(65)).isFalse();
    assertThat(set.size()).isEqualTo(edges.length);
    assertThat(set.footprintBytes()).isGreaterThan(10_000_019 / 8);
  }

  @Test
  void theFootprintCountsAtLeastABitPerIdOfTheRangeAndFourBytesPerMember() {
    IdSet set = new IdSet(0, 0);
    for (int id = 0; id < 300; id++) {
      set.add(id);
    }
    assertThat(set.footprintBytes()).isGreaterThanOrEqualTo(8L * ((300 + 63) / 64) + 4L * 300);
  }
}
