package io.github.lowwater.join;

import java.util.Objects;

/**
 * A value tagged with its side, the input of a {@link Reconciliation}: the windows take one value
 * type, and this says which stream each value came from. Immutable; one small object per record.
 *
 * @param <L> the left value type
 * @param <R> the right value type
 */
public final class Sided<L, R> {

  private final JoinSide side;
  private final Object value;

  private Sided(JoinSide side, Object value) {
    this.side = side;
    this.value = Objects.requireNonNull(value, "value");
  }

  /**
   * Tags a left value.
   *
   * @param value the value
   * @param <L> the left value type
   * @param <R> the right value type
   * @return the tagged value
   * @throws NullPointerException if {@code value} is null
   */
  public static <L, R> Sided<L, R> left(L value) {
    return new Sided<>(JoinSide.LEFT, value);
  }

  /**
   * Tags a right value.
   *
   * @param value the value
   * @param <L> the left value type
   * @param <R> the right value type
   * @return the tagged value
   * @throws NullPointerException if {@code value} is null
   */
  public static <L, R> Sided<L, R> right(R value) {
    return new Sided<>(JoinSide.RIGHT, value);
  }

  /**
   * Returns the side.
   *
   * @return the side
   */
  public JoinSide side() {
    return side;
  }

  /**
   * Returns the left value.
   *
   * @return the value
   * @throws IllegalStateException if this is a right value
   */
  @SuppressWarnings("unchecked") // tagged LEFT only by left(L)
  public L left() {
    if (side != JoinSide.LEFT) {
      throw new IllegalStateException("a right value has no left(): " + this);
    }
    return (L) value;
  }

  /**
   * Returns the right value.
   *
   * @return the value
   * @throws IllegalStateException if this is a left value
   */
  @SuppressWarnings("unchecked") // tagged RIGHT only by right(R)
  public R right() {
    if (side != JoinSide.RIGHT) {
      throw new IllegalStateException("a left value has no right(): " + this);
    }
    return (R) value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Sided<?, ?> other && side == other.side && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return side.hashCode() * 31 + value.hashCode();
  }

  @Override
  public String toString() {
    return side + "(" + value + ")";
  }
}
