package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Aggregator#merge}: what hopping and session windows will combine their panes and sessions
 * with. Merging the accumulators of two parts of a sequence of values gives the result of folding
 * the whole sequence, for every built-in aggregator, in its object and its primitive form.
 */
class AggregatorMergeTest {

  @SuppressWarnings("unchecked")
  private static <A> Long foldAndMerge(Aggregator<Long, A, Long> agg, List<Long> values, int cut) {
    A left = agg.create();
    A right = agg.create();
    for (int i = 0; i < values.size(); i++) {
      if (i < cut) {
        left = agg.add(left, values.get(i));
      } else {
        right = agg.add(right, values.get(i));
      }
    }
    Long rightBefore = agg.result(right);
    A merged = agg.merge(left, right);
    assertThat(agg.result(right))
        .as("merge leaves its second argument as it was")
        .isEqualTo(rightBefore);
    return agg.result(merged);
  }

  private static <A> Long fold(Aggregator<Long, A, Long> agg, List<Long> values) {
    A a = agg.create();
    for (Long v : values) {
      a = agg.add(a, v);
    }
    return agg.result(a);
  }

  @SuppressWarnings("unchecked")
  private static Aggregator<Long, Object, Long> raw(Aggregator<?, ?, Long> agg) {
    return (Aggregator<Long, Object, Long>) agg;
  }

  @Test
  void mergingTwoPartsGivesTheResultOfFoldingTheWholeForEveryBuiltInAggregator() {
    List<Aggregator<Long, Object, Long>> builtIns =
        List.of(
            raw(Aggregators.count()),
            raw(Aggregators.sumLong()),
            raw(Aggregators.minLong()),
            raw(Aggregators.maxLong()),
            raw(
                Aggregators.<Long, long[], Long>of(
                    () -> new long[1],
                    (a, v) -> {
                      a[0] += v;
                      return a;
                    },
                    (a, b) -> {
                      a[0] += b[0];
                      return a;
                    },
                    a -> a[0])));
    for (long seed = 1; seed <= Trials.of(500); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      List<Long> values = new ArrayList<>();
      int n = random.nextInt(20);
      for (int i = 0; i < n; i++) {
        values.add(random.nextLong(-1_000_000, 1_000_000));
      }
      int cut = n == 0 ? 0 : random.nextInt(n + 1);
      for (Aggregator<Long, Object, Long> agg : builtIns) {
        assertThat(foldAndMerge(agg, values, cut))
            .as("%s, seed %d, values %s cut at %d", agg, seed, values, cut)
            .isEqualTo(fold(agg, values));
      }
      for (Aggregator<Long, Object, Long> agg : builtIns.subList(0, 4)) {
        LongFold primitive = (LongFold) agg;
        long left = primitive.initial();
        long right = primitive.initial();
        for (int i = 0; i < n; i++) {
          if (i < cut) {
            left = primitive.fold(left, values.get(i));
          } else {
            right = primitive.fold(right, values.get(i));
          }
        }
        assertThat(primitive.merge(left, right))
            .as("%s primitive", agg)
            .isEqualTo(fold(agg, values));
      }
    }
  }

  @Test
  void aSumWhoseMergeOverflowsIsRejected() {
    LongFold sum = (LongFold) Aggregators.sumLong();
    assertThatThrownBy(() -> sum.merge(Long.MAX_VALUE, 1)).isInstanceOf(ArithmeticException.class);
  }

  /**
   * An aggregator written before merge existed keeps compiling, and says clearly that it cannot.
   */
  @Test
  void anAggregatorThatDoesNotMergeSaysSoAndIsToldApartWithoutCallingIt() {
    Aggregator<Long, long[], Long> old =
        Aggregators.of(
            () -> new long[1],
            (a, v) -> {
              a[0] += v;
              return a;
            },
            a -> a[0]);
    assertThatThrownBy(() -> old.merge(new long[1], new long[1]))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("cannot merge accumulators")
        .hasMessageContaining("Aggregators.of(create, add, merge, result)");
    assertThat(Aggregator.canMerge(old)).isFalse();
    assertThat(Aggregator.canMerge(Aggregators.sumLong())).isTrue();
    assertThat(Aggregator.canMerge(Aggregators.count())).isTrue();
    assertThat(Aggregator.canMerge(Aggregators.of(() -> 0L, (a, v) -> a, Long::sum, a -> a)))
        .isTrue();
    Aggregator<Object, Object, Object> handWritten =
        new Aggregator<>() {
          @Override
          public Object create() {
            return null;
          }

          @Override
          public Object add(Object accumulator, Object value) {
            return value;
          }

          @Override
          public Object result(Object accumulator) {
            return accumulator;
          }
        };
    assertThat(Aggregator.canMerge(handWritten)).isFalse();
    assertThatThrownBy(() -> Aggregators.of(() -> 0L, (Long a, Long v) -> a, null, a -> a))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("merge");
  }
}
