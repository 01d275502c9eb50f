package io.github.lowwater.window;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Common {@link Aggregator}s. {@link TumblingWindows} keeps the accumulators of the built-in ones
 * ({@link #count()}, {@link #sumLong()}, {@link #minLong()}, {@link #maxLong()}) as primitive
 * {@code long}s, 8 bytes per (window, key), with no object per accumulator; used directly, through
 * {@link Aggregator}, they keep a mutable cell, so adding a value allocates nothing. They throw
 * {@link ArithmeticException} on {@code long} overflow instead of wrapping (the window is then left
 * unchanged).
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
    return LongAggregator.COUNT;
  }

  /**
   * Sums {@code long} values.
   *
   * @return an aggregator whose result is the sum of the values
   */
  public static Aggregator<Long, ?, Long> sumLong() {
    return longValues(LongAggregator.SUM);
  }

  /**
   * Keeps the smallest {@code long} value.
   *
   * @return an aggregator whose result is the minimum of the values
   */
  public static Aggregator<Long, ?, Long> minLong() {
    return longValues(LongAggregator.MIN);
  }

  /**
   * Keeps the largest {@code long} value.
   *
   * @return an aggregator whose result is the maximum of the values
   */
  public static Aggregator<Long, ?, Long> maxLong() {
    return longValues(LongAggregator.MAX);
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
    return new Functions<>(create, add, result);
  }

  /**
   * Returns an aggregator from four functions, one that merges: what hopping and session windows
   * need ({@link Aggregator#merge}).
   *
   * @param create creates an empty accumulator
   * @param add adds a value to an accumulator and returns the accumulator to keep
   * @param merge combines two accumulators of one key, leaving the second as it was, and returns
   *     the accumulator to keep
   * @param result computes the result of an accumulator
   * @param <V> the value type
   * @param <A> the accumulator type
   * @param <R> the result type
   * @return the aggregator
   * @throws NullPointerException if a function is null
   */
  public static <V, A, R> Aggregator<V, A, R> of(
      Supplier<A> create,
      BiFunction<A, ? super V, A> add,
      BinaryOperator<A> merge,
      Function<? super A, R> result) {
    Objects.requireNonNull(merge, "merge");
    return new MergingFunctions<>(create, add, merge, result);
  }

  /** An aggregator of three functions; it cannot merge ({@link Aggregator#canMerge} says so). */
  private static class Functions<V, A, R> implements Aggregator<V, A, R> {
    private final Supplier<A> create;
    private final BiFunction<A, ? super V, A> add;
    private final Function<? super A, R> result;

    Functions(Supplier<A> create, BiFunction<A, ? super V, A> add, Function<? super A, R> result) {
      this.create = Objects.requireNonNull(create, "create");
      this.add = Objects.requireNonNull(add, "add");
      this.result = Objects.requireNonNull(result, "result");
    }

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
  }

  /** An aggregator of four functions, one that merges. */
  private static final class MergingFunctions<V, A, R> extends Functions<V, A, R> {
    private final BinaryOperator<A> merge;

    MergingFunctions(
        Supplier<A> create,
        BiFunction<A, ? super V, A> add,
        BinaryOperator<A> merge,
        Function<? super A, R> result) {
      super(create, add, result);
      this.merge = merge;
    }

    @Override
    public A merge(A left, A right) {
      return merge.apply(left, right);
    }
  }

  /** The built-in long aggregators take {@code Long} values: the cast narrows what they accept. */
  @SuppressWarnings("unchecked")
  private static Aggregator<Long, ?, Long> longValues(LongAggregator aggregator) {
    return (Aggregator<Long, ?, Long>) (Aggregator<?, ?, Long>) aggregator;
  }

  /** A mutable {@code long}, the accumulator of the built-in aggregators used directly. */
  static final class LongCell {
    long value;

    LongCell(long value) {
      this.value = value;
    }
  }

  /**
   * The built-in {@code long} aggregators: each defines its {@link LongFold}, from which its {@link
   * Aggregator} form follows.
   */
  private enum LongAggregator implements Aggregator<Object, LongCell, Long>, LongFold {
    COUNT("count()", 0) {
      @Override
      public long fold(long accumulator, Object value) {
        return Math.addExact(accumulator, 1);
      }

      @Override
      public long merge(long left, long right) {
        return Math.addExact(left, right);
      }
    },
    SUM("sumLong()", 0) {
      @Override
      public long fold(long accumulator, Object value) {
        return Math.addExact(accumulator, (Long) value);
      }

      @Override
      public long merge(long left, long right) {
        return Math.addExact(left, right);
      }
    },
    MIN("minLong()", Long.MAX_VALUE) {
      @Override
      public long fold(long accumulator, Object value) {
        return Math.min(accumulator, (Long) value);
      }

      @Override
      public long merge(long left, long right) {
        return Math.min(left, right);
      }
    },
    MAX("maxLong()", Long.MIN_VALUE) {
      @Override
      public long fold(long accumulator, Object value) {
        return Math.max(accumulator, (Long) value);
      }

      @Override
      public long merge(long left, long right) {
        return Math.max(left, right);
      }
    };

    private final String name;
    private final long initial;

    LongAggregator(String name, long initial) {
      this.name = name;
      this.initial = initial;
    }

    @Override
    public long initial() {
      return initial;
    }

    @Override
    public LongCell create() {
      return new LongCell(initial);
    }

    @Override
    public LongCell add(LongCell accumulator, Object value) {
      accumulator.value = fold(accumulator.value, value);
      return accumulator;
    }

    @Override
    public Long result(LongCell accumulator) {
      return accumulator.value;
    }

    @Override
    public LongCell merge(LongCell left, LongCell right) {
      left.value = merge(left.value, right.value);
      return left;
    }

    @Override
    public String toString() {
      return "Aggregators." + name;
    }
  }
}
