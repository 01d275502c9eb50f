package io.github.lowwater.window;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Common {@link Aggregator}s. The built-in ones keep a mutable primitive cell per (window, key), so
 * adding a value allocates nothing; they throw {@link ArithmeticException} on {@code long} overflow
 * instead of wrapping (the window is then left unchanged).
 */
public final class Aggregators {

  private Aggregators() {}

  /**
   * Counts the values, of any type: {@code TumblingWindows<String, Long, Long> w =
   * TumblingWindows.builder(size, Aggregators.count()).build();} infers the value type from the
   * assignment.
   *
   * @return an aggregator whose result is the number of values added
   */
  public static Aggregator<Object, ?, Long> count() {
    return Count.INSTANCE;
  }

  /**
   * Sums {@code long} values.
   *
   * @return an aggregator whose result is the sum of the values
   */
  public static Aggregator<Long, ?, Long> sumLong() {
    return SumLong.INSTANCE;
  }

  /**
   * Keeps the smallest {@code long} value.
   *
   * @return an aggregator whose result is the minimum of the values
   */
  public static Aggregator<Long, ?, Long> minLong() {
    return MinLong.INSTANCE;
  }

  /**
   * Keeps the largest {@code long} value.
   *
   * @return an aggregator whose result is the maximum of the values
   */
  public static Aggregator<Long, ?, Long> maxLong() {
    return MaxLong.INSTANCE;
  }

  /**
   * Builds an aggregator from three functions.
   *
   * @param create makes an empty accumulator
   * @param add adds a value to an accumulator and returns the accumulator to keep
   * @param result turns an accumulator into the result
   * @param <V> the value type
   * @param <A> the accumulator type
   * @param <R> the result type
   * @return the aggregator
   * @throws NullPointerException if any argument is null
   */
  public static <V, A, R> Aggregator<V, A, R> of(
      Supplier<A> create, BiFunction<A, ? super V, A> add, Function<? super A, R> result) {
    Objects.requireNonNull(create, "create");
    Objects.requireNonNull(add, "add");
    Objects.requireNonNull(result, "result");
    return new Aggregator<>() {
      @Override
      public A create() {
        return create.get();
      }

      @Override
      public A add(A accumulator, V value) {
        return add.apply(accumulator, value);
      }

      @Override
      public R result(A accumulator) {
        return result.apply(accumulator);
      }
    };
  }

  /** A mutable {@code long}, the accumulator of the built-in aggregators. */
  static final class LongCell {
    long value;

    LongCell(long value) {
      this.value = value;
    }
  }

  private enum Count implements Aggregator<Object, LongCell, Long> {
    INSTANCE;

    @Override
    public LongCell create() {
      return new LongCell(0);
    }

    @Override
    public LongCell add(LongCell accumulator, Object value) {
      accumulator.value = Math.addExact(accumulator.value, 1);
      return accumulator;
    }

    @Override
    public Long result(LongCell accumulator) {
      return accumulator.value;
    }

    @Override
    public String toString() {
      return "Aggregators.count()";
    }
  }

  private enum SumLong implements Aggregator<Long, LongCell, Long> {
    INSTANCE;

    @Override
    public LongCell create() {
      return new LongCell(0);
    }

    @Override
    public LongCell add(LongCell accumulator, Long value) {
      accumulator.value = Math.addExact(accumulator.value, value);
      return accumulator;
    }

    @Override
    public Long result(LongCell accumulator) {
      return accumulator.value;
    }

    @Override
    public String toString() {
      return "Aggregators.sumLong()";
    }
  }

  private enum MinLong implements Aggregator<Long, LongCell, Long> {
    INSTANCE;

    @Override
    public LongCell create() {
      return new LongCell(Long.MAX_VALUE);
    }

    @Override
    public LongCell add(LongCell accumulator, Long value) {
      accumulator.value = Math.min(accumulator.value, value);
      return accumulator;
    }

    @Override
    public Long result(LongCell accumulator) {
      return accumulator.value;
    }

    @Override
    public String toString() {
      return "Aggregators.minLong()";
    }
  }

  private enum MaxLong implements Aggregator<Long, LongCell, Long> {
    INSTANCE;

    @Override
    public LongCell create() {
      return new LongCell(Long.MIN_VALUE);
    }

    @Override
    public LongCell add(LongCell accumulator, Long value) {
      accumulator.value = Math.max(accumulator.value, value);
      return accumulator;
    }

    @Override
    public Long result(LongCell accumulator) {
      return accumulator.value;
    }

    @Override
    public String toString() {
      return "Aggregators.maxLong()";
    }
  }
}
