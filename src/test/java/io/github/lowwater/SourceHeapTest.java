package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.WatermarkTracker.Source;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link SourceHeap} against a plain list of its sources, rescanned for the smallest
 * contribution, on seeded random inserts, removals and raises of contributions (at the root and
 * elsewhere, settled or not in between). A failure names its seed and step.
 */
class SourceHeapTest {

  @Test
  void theSettledRootHoldsTheSmallestContributionOnRandomOperations() {
    for (long seed = 1; seed <= Trials.of(300); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      Source[] pool = new Source[1 + random.nextInt(40)];
      for (int i = 0; i < pool.length; i++) {
        pool[i] = new Source(null, "s" + i);
      }
      SourceHeap heap = new SourceHeap();
      List<Source> reference = new ArrayList<>();
      for (int step = 0; step < 2_000; step++) {
        Source s = pool[random.nextInt(pool.length)];
        int dice = random.nextInt(10);
        String op;
        if (dice < 4 && !reference.contains(s)) {
          op = "insert " + s + " at " + s.contribution;
          heap.insert(s);
          reference.add(s);
        } else if (dice < 6 && reference.contains(s)) {
          op = "remove " + s;
          heap.remove(s);
          reference.remove(s);
        } else {
          s.contribution = raised(random, s.contribution);
          op = "raise " + s + " to " + s.contribution;
        }
        String where = "seed " + seed + " step " + step + " " + op;
        assertThat(heap.size()).as(where).isEqualTo(reference.size());
        Set<Integer> indexes = new HashSet<>();
        Set<Integer> ids = new HashSet<>();
        for (Source p : pool) {
          assertThat(heap.contains(p))
              .as(where + " contains " + p)
              .isEqualTo(reference.contains(p));
          if (reference.contains(p)) {
            assertThat(heap.positionOf(p))
                .as(where + " index of " + p)
                .isBetween(0, heap.size() - 1);
            assertThat(indexes.add(heap.positionOf(p)))
                .as(where + " unique index of " + p)
                .isTrue();
            assertThat(p.heapId).as(where + " compact id of " + p).isBetween(0, heap.size() - 1);
            assertThat(ids.add(p.heapId)).as(where + " unique id of " + p).isTrue();
          } else {
            assertThat(heap.positionOf(p))
                .as(where + " index of " + p)
                .isEqualTo(SourceHeap.NOT_IN_HEAP);
            assertThat(p.heapId).as(where + " id of " + p).isEqualTo(SourceHeap.NOT_IN_HEAP);
          }
        }
        if (!reference.isEmpty() && random.nextBoolean()) { // unsettled steps let keys go stale
          Source root = heap.settleRoot();
          long min = reference.stream().mapToLong(p -> p.contribution).min().getAsLong();
          assertThat(root.contribution).as(where + " root " + root).isEqualTo(min);
          assertThat(heap.isRoot(root)).as(where).isTrue();
          assertThat(reference.stream().filter(heap::isRoot).count()).as(where).isEqualTo(1);
        }
      }
    }
  }

  /** Contributions only grow: sometimes to a tie, sometimes far, sometimes to the top. */
  private static long raised(SplittableRandom random, long contribution) {
    int dice = random.nextInt(20);
    if (dice == 0) {
      return Long.MAX_VALUE;
    }
    if (dice < 3) {
      return contribution;
    }
    if (contribution == Long.MIN_VALUE) {
      return random.nextLong(-100, 100);
    }
    return TimeMath.saturatedAdd(contribution, random.nextInt(dice < 15 ? 10 : 1_000));
  }

  /**
   * A regression guard: a removal from inside the heap moves the last source into the hole, and
   * when that source's key is below the hole's parent it must sift up, or the root stops being the
   * minimum.
   */
  @Test
  void aRemovalFromInsideTheHeapSiftsTheLastSourceUpWhenItIsSmallerThanTheParent() {
    SourceHeap heap = new SourceHeap();
    long[] keys = {0, 10, 1, 11, 12, 2, 3}; // a valid heap as inserted; 3 lands below 1
    Source[] s = new Source[keys.length];
    for (int i = 0; i < keys.length; i++) {
      s[i] = new Source(null, "k" + keys[i]);
      s[i].contribution = keys[i];
      heap.insert(s[i]);
    }
    assertThat(heap.positionOf(s[3])).isEqualTo(3);
    heap.remove(s[3]); // the hole below 10 takes 3, which must rise above 10
    assertThat(heap.positionOf(s[6])).isEqualTo(1);
    heap.remove(s[0]);
    heap.remove(s[2]);
    heap.remove(s[5]);
    assertThat(heap.settleRoot()).isSameAs(s[6]);
  }

  @Test
  void drainingTheRootGivesTheContributionsInAscendingOrderAcrossTheLongRange() {
    SourceHeap heap = new SourceHeap();
    long[] contributions = {5, Long.MAX_VALUE, -3, Long.MIN_VALUE, 0, 5, -3, 1L << 62, 17, 9, 2};
    for (int i = 0; i < contributions.length; i++) {
      Source s = new Source(null, i);
      s.contribution = contributions[i];
      heap.insert(s);
    }
    List<Long> drained = new ArrayList<>();
    while (heap.size() > 0) {
      Source root = heap.settleRoot();
      drained.add(root.contribution);
      heap.remove(root);
      assertThat(heap.contains(root)).isFalse();
    }
    assertThat(drained)
        .containsExactly(
            Long.MIN_VALUE, -3L, -3L, 0L, 2L, 5L, 5L, 9L, 17L, 1L << 62, Long.MAX_VALUE);
  }

  @Test
  void aRootRaisedPastItsChildrenSinksUntilTheRootIsTheSmallestAgain() {
    SourceHeap heap = new SourceHeap();
    Source a = source(1);
    Source b = source(2);
    Source c = source(3);
    heap.insert(a);
    heap.insert(b);
    heap.insert(c);
    b.contribution = 10; // b's key stays 2 until b reaches the root
    a.contribution = 20;
    assertThat(heap.settleRoot()).isSameAs(c);
    assertThat(heap.isRoot(a)).isFalse();
    c.contribution = 30;
    assertThat(heap.settleRoot()).isSameAs(b);
    b.contribution = 30;
    assertThat(heap.settleRoot().contribution).isEqualTo(20);
  }

  @Test
  void theLastSourceLeavesAnEmptyHeapThatTakesSourcesAgain() {
    SourceHeap heap = new SourceHeap();
    Source a = source(7);
    heap.insert(a);
    heap.remove(a);
    assertThat(heap.size()).isZero();
    assertThat(heap.contains(a)).isFalse();
    assertThat(heap.isRoot(a)).isFalse();
    heap.insert(a);
    assertThat(heap.settleRoot()).isSameAs(a);
  }

  private static Source source(long contribution) {
    Source s = new Source(null, "c" + contribution);
    s.contribution = contribution;
    return s;
  }
}
