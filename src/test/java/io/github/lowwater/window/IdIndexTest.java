package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Model-based: {@link IdIndex} against a {@link HashMap} and a list of insertion order. */
class IdIndexTest {

  @Test
  void matchesAHashMapOnRandomInsertsLookupsAndClears() {
    for (long seed = 1; seed <= Trials.of(40); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int universe = 1 + random.nextInt(random.nextBoolean() ? 50 : 5_000);
      IdIndex index = new IdIndex(random.nextInt(100));
      Map<Integer, Integer> reference = new HashMap<>();
      List<Integer> order = new ArrayList<>();
      for (int step = 0; step < 6_000; step++) {
        int id = random.nextInt(universe);
        String where = "seed " + seed + " step " + step + " id " + id;
        int found = index.positionOf(id);
        if (reference.containsKey(id)) {
          assertThat(found).as(where).isEqualTo(reference.get(id));
        } else {
          assertThat(found).as(where).isNegative();
          if (random.nextInt(4) > 0) {
            int position = index.insert(id, found);
            assertThat(position).as(where).isEqualTo(order.size());
            reference.put(id, position);
            order.add(id);
          }
        }
        assertThat(index.size()).as(where).isEqualTo(reference.size());
        if (random.nextInt(2_000) == 0) {
          index.clear(random.nextInt(3 * reference.size() + 1));
          reference.clear();
          order.clear();
        }
      }
      int[] ids = new int[index.size()];
      index.idsByPosition(ids);
      assertThat(ids)
          .as("seed %d", seed)
          .containsExactly(order.stream().mapToInt(i -> i).toArray());
      long[] live = new long[(universe + 63) >>> 6];
      index.markIds(live);
      assertThat(IdSetTest.marked(live)).as("seed %d", seed).isEqualTo(reference.keySet());
    }
  }

  @Test
  void theLoadFactorStaysAtMostThreeQuartersSoAnEntryCostsAtMost22Bytes() {
    IdIndex index = new IdIndex(0);
    for (int id = 0; id < 100_000; id++) {
      index.insert(id, index.positionOf(id));
      assertThat(index.size() * 4L).isLessThanOrEqualTo(index.capacity() * 3L);
    }
    assertThat(index.capacity()).isEqualTo(1 << 18); // 100,000 / 0.75 rounded up to a power of 2
  }

  @Test
  void presizingAvoidsGrowthAndClearKeepsOrReplacesTheTable() {
    assertThat(new IdIndex(12).capacity()).isEqualTo(16);
    assertThat(new IdIndex(13).capacity()).isEqualTo(32);
    IdIndex index = new IdIndex(1_000);
    int capacity = index.capacity();
    for (int id = 0; id < 1_000; id++) {
      index.insert(id, index.positionOf(id));
    }
    assertThat(index.capacity()).isEqualTo(capacity);
    index.clear(1_000);
    assertThat(index.size()).isZero();
    assertThat(index.capacity()).isEqualTo(capacity);
    assertThat(index.positionOf(5)).isNegative();
    index.clear(10); // four times too large at least: replaced by a small table
    assertThat(index.capacity()).isEqualTo(16);
    index.clear(100_000);
    assertThat(index.capacity()).isEqualTo(IdIndex.capacityFor(100_000));
  }

  @Test
  void theLargestIdsAndCapacitiesAreHandled() {
    IdIndex index = new IdIndex(0);
    int big = Integer.MAX_VALUE - 1;
    index.insert(big, index.positionOf(big));
    index.insert(0, index.positionOf(0));
    assertThat(index.positionOf(big)).isZero();
    assertThat(index.positionOf(0)).isEqualTo(1);
    int[] ids = new int[2];
    index.idsByPosition(ids);
    assertThat(ids).containsExactly(big, 0);
    assertThat(IdIndex.capacityFor(Integer.MAX_VALUE)).isEqualTo(1 << 30);
  }

  @Test
  void clearKeepsATableExactlyFourTimesTooLarge() {
    IdIndex index = new IdIndex(48);
    assertThat(index.capacity()).isEqualTo(64);
    index.insert(3, index.positionOf(3));
    index.clear(12); // 16 slots would do: 64 is four times that, not more
    assertThat(index.capacity()).isEqualTo(64);
    assertThat(index.size()).isZero();
    assertThat(index.positionOf(3)).isNegative();
    index.clear(11); // still 16 slots: kept
    assertThat(index.capacity()).isEqualTo(64);
  }

  /** A touch reads the home slot of each id, skips the negative ones, and changes nothing. */
  @Test
  void aTouchReadsTheHomeSlotOfEachIdAndChangesNothing() {
    IdIndex index = new IdIndex(4);
    index.insert(5, index.positionOf(5)); // the first insert lands in its home slot
    long slotOf5 = (long) (5 + 1) << 32; // position 0
    assertThat(index.touch(new int[] {5, -1, 5}, 3)).isEqualTo(2 * slotOf5);
    assertThat(index.touch(new int[] {5, 5}, 1)).as("only [0, n)").isEqualTo(slotOf5);
    assertThat(index.touch(new int[] {-1}, 1)).isZero();
    assertThat(index.size()).isOne();
    assertThat(index.positionOf(5)).isZero();
  }
}
