package io.github.lowwater.join;

import io.github.lowwater.window.Aggregator;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * The co-group of two streams per window and key, as an {@link Aggregator} of {@link Sided} values
 * that any window kind takes (tumbling, hopping, session; with early results, a grace period, and
 * in {@code KafkaWindows}): each side is folded with its own aggregator, and the row says, per key,
 * whether the sides matched, differed, or one of them is missing ({@link Reconciled.Status},
 * semantics rule 71).
 *
 * <p>The windows close on one watermark over the sources of both streams, so a row is emitted once
 * its window is sealed on both sides: a record that is merely delayed on one side is still folded
 * in, and only a record that is really missing gives {@code LEFT_ONLY} or {@code RIGHT_ONLY}. A
 * record of either side that arrives after its window closed takes the windows' late path, its
 * {@link Sided} value saying its side. With a grace period, a record of its window's grace period
 * corrects the row; in a consumer group ({@code KafkaWindows} with {@code
 * ResultScope.CO_PARTITIONED}) such records are held until the window retires and each key gets one
 * corrected {@code LATE} row (semantics rules 71 and 72): a replica's backlog read within the grace
 * period turns the {@code LEFT_ONLY} rows of its outage into {@code MATCHED} ones.
 *
 * <p>Costs what the two side aggregators cost, plus one accumulator object per (window, key) and
 * one {@link Reconciled} per row. The comparison is called once per row, when the row is computed;
 * an exception from it follows {@link Aggregator#result}'s contract (the row stays queued).
 *
 * <pre>{@code
 * TumblingWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
 *     TumblingWindows.builder(
 *             Duration.ofMinutes(1),
 *             Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
 *         .build();
 * windows.add(sourcePartition, t, accountId, Sided.left(amount));
 * windows.add(targetPartition, t, accountId, Sided.right(amount));
 * }</pre>
 */
public final class Reconciliation {

  private Reconciliation() {}

  /**
   * Returns the co-group aggregator of two sides.
   *
   * @param left folds the left values of a key in a window
   * @param right folds the right values
   * @param same whether a left result and a right result agree; called only when both sides have
   *     values
   * @param <L> the left value type
   * @param <R> the right value type
   * @param <A> the left result type
   * @param <B> the right result type
   * @return the aggregator; it merges (hopping and session windows need it) iff both side
   *     aggregators do
   * @throws NullPointerException if an argument is null
   */
  public static <L, R, A, B> Aggregator<Sided<L, R>, ?, Reconciled<A, B>> of(
      Aggregator<? super L, ?, A> left,
      Aggregator<? super R, ?, B> right,
      BiPredicate<? super A, ? super B> same) {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
    Objects.requireNonNull(same, "same");
    return Aggregator.canMerge(left) && Aggregator.canMerge(right)
        ? new MergingCoGroup<>(left, right, same)
        : new CoGroup<>(left, right, same);
  }

  /** Both sides' accumulators of one (window, key), each null until its side's first value. */
  static final class Pair {
    Object left;
    Object right;
    long leftCount;
    long rightCount;
  }

  /** The aggregator; raw accumulator types because each side's is the user's own. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static class CoGroup<L, R, A, B> implements Aggregator<Sided<L, R>, Pair, Reconciled<A, B>> {
    final Aggregator left;
    final Aggregator right;
    private final BiPredicate<? super A, ? super B> same;

    CoGroup(
        Aggregator<? super L, ?, A> left,
        Aggregator<? super R, ?, B> right,
        BiPredicate<? super A, ? super B> same) {
      this.left = left;
      this.right = right;
      this.same = same;
    }

    @Override
    public Pair create() {
      return new Pair();
    }

    @Override
    public Pair add(Pair acc, Sided<L, R> value) {
      if (value.side() == JoinSide.LEFT) {
        Object a = left.add(acc.left == null ? left.create() : acc.left, value.left());
        acc.left = a;
        acc.leftCount++;
      } else {
        Object b = right.add(acc.right == null ? right.create() : acc.right, value.right());
        acc.right = b;
        acc.rightCount++;
      }
      return acc;
    }

    @Override
    public Reconciled<A, B> result(Pair acc) {
      A a = acc.left == null ? null : (A) left.result(acc.left);
      B b = acc.right == null ? null : (B) right.result(acc.right);
      Reconciled.Status status;
      if (acc.left == null) {
        status = Reconciled.Status.RIGHT_ONLY;
      } else if (acc.right == null) {
        status = Reconciled.Status.LEFT_ONLY;
      } else {
        status = same.test(a, b) ? Reconciled.Status.MATCHED : Reconciled.Status.DIFFERENT;
      }
      return new Reconciled<>(status, a, b, acc.leftCount, acc.rightCount);
    }

    @Override
    public String toString() {
      return "Reconciliation[" + left + ", " + right + "]";
    }
  }

  /** The aggregator when both sides merge: hopping and session windows may use it. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static final class MergingCoGroup<L, R, A, B> extends CoGroup<L, R, A, B> {

    MergingCoGroup(
        Aggregator<? super L, ?, A> left,
        Aggregator<? super R, ?, B> right,
        BiPredicate<? super A, ? super B> same) {
      super(left, right, same);
    }

    @Override
    public Pair merge(Pair into, Pair other) {
      // Compute both sides before changing `into`, so that a throwing merge changes nothing.
      Object l = mergeSide(left, into.left, other.left);
      Object r = mergeSide(right, into.right, other.right);
      into.left = l;
      into.right = r;
      into.leftCount += other.leftCount;
      into.rightCount += other.rightCount;
      return into;
    }

    /** Merges {@code other} into {@code into} without sharing {@code other}'s accumulator. */
    private static Object mergeSide(Aggregator side, Object into, Object other) {
      if (other == null) {
        return into;
      }
      return side.merge(into == null ? side.create() : into, other);
    }
  }
}
