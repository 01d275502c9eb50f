package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link WindowEntries}, in both its forms, against a {@link LinkedHashMap} of sums in
 * first-insertion order, over windows reused many times.
 */
class WindowEntriesTest {

  @SuppressWarnings("unchecked")
  private static final Aggregator<Object, Object, ?> OBJECT_SUM =
      (Aggregator<Object, Object, ?>)
          (Aggregator<?, ?, ?>)
              Aggregators.<Long, long[], Long>of(
                  () -> new long[1],
                  (a, v) -> {
                    a[0] = Math.addExact(a[0], v);
                    return a;
                  },
                  a -> a[0]);

  private static final LongFold LONG_SUM = (LongFold) Aggregators.sumLong();

  @Test
  void bothFormsMatchAnOrderedMapOverReusedWindows() {
    for (long seed = 1; seed <= Trials.of(30); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      boolean primitive = random.nextBoolean();
      WindowEntries entries = new WindowEntries(primitive);
      for (int window = 0; window < 20; window++) {
        int expected = random.nextInt(2_000);
        int idBound = random.nextInt(4_000); // ids may also go beyond it: the arrays grow
        entries.reset(window * 10L, window * 10L + 10, expected, idBound);
        assertThat(entries.dense())
            .as("dense iff long accumulators and half the ids expected")
            .isEqualTo(primitive && expected > 0 && 2L * expected >= idBound);
        assertThat(entries.start).isEqualTo(window * 10L);
        assertThat(entries.end).isEqualTo(window * 10L + 10);
        Map<Integer, Long> reference = new LinkedHashMap<>();
        int ids = 1 + random.nextInt(3_000);
        for (int i = 0; i < random.nextInt(5_000); i++) {
          int id = random.nextInt(ids);
          Long value = (long) random.nextInt(1_000);
          boolean isNew =
              primitive
                  ? entries.fold(id, value, LONG_SUM, idBound) // may turn dense on the way
                  : entries.fold(id, value, OBJECT_SUM);
          assertThat(isNew).isEqualTo(!reference.containsKey(id));
          reference.merge(id, value, Long::sum);
        }
        assertThat(entries.size()).isEqualTo(reference.size());
        assertThat(entries.primitive()).isEqualTo(primitive);
        assertThat(contents(entries)).as("seed %d window %d", seed, window).isEqualTo(reference);
        // The dictionary's sweep: the window adds its ids to the marks of the others.
        long[] live = new long[(ids + 64) >>> 6];
        live[ids >>> 6] |= 1L << ids; // an id of another window, above every id of this one
        entries.markIds(live);
        Set<Integer> marked = new HashSet<>(reference.keySet());
        marked.add(ids);
        assertThat(IdSetTest.marked(live)).as("seed %d window %d", seed, window).isEqualTo(marked);
      }
    }
  }

  private static Map<Integer, Long> contents(WindowEntries entries) {
    int[] ids = new int[entries.size()];
    entries.idsByPosition(ids);
    Map<Integer, Long> contents = new LinkedHashMap<>();
    for (int position = 0; position < ids.length; position++) {
      contents.put(
          ids[position],
          entries.primitive()
              ? entries.longAt(position, ids[position])
              : (Long) OBJECT_SUM.result(entries.objectAt(position)));
    }
    return contents;
  }

  @Test
  void anIndexedWindowTurnsDenseWhenItsIndexWouldGrowHoldingHalfTheIds() {
    WindowEntries entries = new WindowEntries(true).reset(0, 10, 0, 1_000);
    assertThat(entries.dense()).isFalse(); // nothing expected: indexed, 16 slots
    Map<Integer, Long> reference = new LinkedHashMap<>();
    for (int k = 0; k < 12; k++) { // 12 of 16 slots: full at a load of 3/4
      int id = 29 - 2 * k; // any order: first-seen order must survive the move
      entries.fold(id, (long) k, LONG_SUM, 26);
      entries.fold(id, 1L, LONG_SUM, 26);
      reference.put(id, k + 1L);
    }
    assertThat(entries.dense()).isFalse();
    entries.fold(40, 7L, LONG_SUM, 27); // the index would grow; 2 x 13 < 27: stays indexed
    reference.put(40, 7L);
    assertThat(entries.dense()).isFalse();
    assertThat(contents(entries)).isEqualTo(reference);

    WindowEntries turning = new WindowEntries(true).reset(0, 10, 0, 1_000);
    Map<Integer, Long> expected = new LinkedHashMap<>();
    for (int k = 0; k < 12; k++) {
      int id = 29 - 2 * k;
      turning.fold(id, (long) k, LONG_SUM, 26);
      expected.put(id, (long) k);
    }
    assertThat(turning.fold(40, 7L, LONG_SUM, 26)).isTrue(); // 2 x 13 >= 26: turns dense
    expected.put(40, 7L);
    assertThat(turning.dense()).isTrue();
    assertThat(turning.size()).isEqualTo(13);
    assertThat(contents(turning)).isEqualTo(expected);
    assertThat(turning.fold(29, 5L, LONG_SUM, 26)).isFalse(); // and folds on, by id
    expected.merge(29, 5L, Long::sum);
    assertThat(contents(turning)).isEqualTo(expected);
    // Reused as an indexed window, then turning dense again: nothing of the first life is left.
    turning.reset(10, 20, 0, 1_000);
    assertThat(turning.dense()).isFalse();
    Map<Integer, Long> again = new LinkedHashMap<>();
    for (int k = 0; k < 13; k++) {
      turning.fold(k, 1L, LONG_SUM, 20);
      again.put(k, 1L);
    }
    assertThat(turning.dense()).isTrue();
    assertThat(contents(turning)).isEqualTo(again);
  }

  @Test
  void aFoldThatThrowsChangesNothing() {
    for (int form = 0; form < 3; form++) { // dense, indexed long, indexed object
      boolean primitive = form < 2;
      WindowEntries entries = new WindowEntries(primitive).reset(0, 10, 10, form == 0 ? 10 : 100);
      assertThat(entries.dense()).isEqualTo(form == 0);
      fold(entries, 3, Long.MAX_VALUE);
      assertThatThrownBy(() -> fold(entries, 3, 1L)).isInstanceOf(ArithmeticException.class);
      assertThatThrownBy(() -> fold(entries, 4, "not a long"))
          .isInstanceOf(ClassCastException.class);
      assertThat(contents(entries)).containsExactly(Map.entry(3, Long.MAX_VALUE));
    }
  }

  private static boolean fold(WindowEntries entries, int id, Object value) {
    return entries.primitive()
        ? entries.fold(id, value, LONG_SUM)
        : entries.fold(id, value, OBJECT_SUM);
  }

  @Test
  void aReusedWindowHoldsNoAccumulatorOfTheWindowBefore() {
    WindowEntries entries = new WindowEntries(false).reset(0, 10, 0, 0);
    List<Object> accumulators = new ArrayList<>();
    for (int id = 0; id < 100; id++) {
      fold(entries, id, 1L);
      accumulators.add(entries.objectAt(id));
    }
    entries.dropAccumulators();
    for (int position = 0; position < 100; position++) {
      assertThat(entries.objectAt(position)).isNull();
    }
    entries.reset(10, 20, 100, 100);
    assertThat(entries.size()).isZero();
    assertThat(fold(entries, 99, 5L)).isTrue();
    assertThat(contents(entries)).containsExactly(Map.entry(99, 5L));
  }

  @Test
  void theBuiltInLongAggregatorsStartFromTheirIdentityInBothForms() {
    long[] positives = {7, 3, 12};
    long[] negatives = {-7, -3, -12};
    assertThat(fold(Aggregators.minLong(), positives)).isEqualTo(3); // not min(0, ...)
    assertThat(fold(Aggregators.maxLong(), negatives)).isEqualTo(-3); // not max(0, ...)
    assertThat(fold(Aggregators.sumLong(), negatives)).isEqualTo(-22);
    assertThat(fold(Aggregators.count(), negatives)).isEqualTo(3);
    WindowEntries entries = new WindowEntries(true).reset(0, 10, 0, 0);
    for (long v : positives) {
      entries.fold(5, (Object) v, (LongFold) Aggregators.minLong());
    }
    assertThat(entries.longAt(0, 5)).isEqualTo(3);
  }

  /** The object form of an aggregator, used directly: create, add each value, result. */
  @SuppressWarnings("unchecked")
  private static long fold(Aggregator<? super Long, ?, Long> aggregator, long[] values) {
    Aggregator<Long, Object, Long> direct = (Aggregator<Long, Object, Long>) aggregator;
    Object accumulator = direct.create();
    for (long v : values) {
      Object next = direct.add(accumulator, v);
      assertThat(next).as("the cell is reused").isSameAs(accumulator);
    }
    return direct.result(accumulator);
  }

  @Test
  void resetAloneLetsTheAccumulatorsOfTheWindowBeforeGo() {
    WindowEntries entries = new WindowEntries(false).reset(0, 10, 0, 0);
    for (int id = 0; id < 20; id++) {
      fold(entries, id, 1L);
    }
    entries.reset(10, 20, 20, 20); // as a hopping window does before combining its panes again
    for (int position = 0; position < 20; position++) {
      assertThat(entries.objectAt(position)).as("position %d", position).isNull();
    }
  }

  @Test
  void aWindowOpensDenseIffItExpectsAtLeastHalfOfTheIdsAndAtLeastOneKey() {
    assertThat(new WindowEntries(true).reset(0, 10, 5, 10).dense()).as("5 of 10").isTrue();
    assertThat(new WindowEntries(true).reset(0, 10, 4, 10).dense()).as("4 of 10").isFalse();
    assertThat(new WindowEntries(true).reset(0, 10, 0, 0).dense())
        .as("nothing expected, no id yet: indexed, to turn dense if it fills")
        .isFalse();
    assertThat(new WindowEntries(false).reset(0, 10, 10, 10).dense())
        .as("objects are never dense")
        .isFalse();
  }

  @Test
  void theFoldWithoutAnIdBoundSaysWhetherTheKeyIsNew() {
    WindowEntries entries = new WindowEntries(true).reset(0, 10, 0, 0);
    assertThat(entries.fold(7, 1L, LONG_SUM)).isTrue();
    assertThat(entries.fold(7, 2L, LONG_SUM)).isFalse();
    assertThat(entries.fold(8, 2L, LONG_SUM)).isTrue();
    assertThat(contents(entries)).containsExactly(Map.entry(7, 3L), Map.entry(8, 2L));
  }

  /**
   * A touch reads what the folds of the ids will read, in either form, and changes nothing: the
   * dense form's accumulators, skipping ids beyond its array and negative ones.
   */
  @Test
  void aTouchReadsWhatTheFoldsWillReadInEitherFormAndChangesNothing() {
    WindowEntries indexed = new WindowEntries(true).reset(0, 10, 0, 1_000);
    indexed.fold(7, 3L, LONG_SUM, 1_000);
    assertThat(indexed.dense()).isFalse();
    assertThat(indexed.touch(new int[] {7, -1}, 2)).isEqualTo((long) (7 + 1) << 32);
    WindowEntries dense = new WindowEntries(true).reset(0, 10, 8, 8);
    assertThat(dense.dense()).isTrue();
    dense.fold(2, 5L, LONG_SUM, 8);
    dense.fold(3, 4L, LONG_SUM, 8);
    assertThat(dense.touch(new int[] {2, 3, -1, 1 << 20}, 4)).isEqualTo(9);
    assertThat(dense.size()).isEqualTo(2);
    assertThat(new WindowEntries(true).reset(0, 10, 8, 8).touch(new int[] {2}, 1)).isZero();
  }
}
