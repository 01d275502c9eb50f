package io.github.lowwater.join;

import java.util.Objects;

/**
 * The result of a {@link Reconciliation} for one key in one window: what each side holds and
 * whether they agree. Immutable.
 *
 * @param <A> the left side's result type
 * @param <B> the right side's result type
 */
public final class Reconciled<A, B> {

  /** Whether the two sides agree for a key in a window. */
  public enum Status {
    /** Both sides have values, and the comparison says their results are the same. */
    MATCHED,
    /** Both sides have values, and the comparison says their results differ. */
    DIFFERENT,
    /** Only the left side has values: missing on the right. */
    LEFT_ONLY,
    /** Only the right side has values: missing on the left. */
    RIGHT_ONLY
  }

  private final Status status;
  private final A left;
  private final B right;
  private final long leftCount;
  private final long rightCount;

  Reconciled(Status status, A left, B right, long leftCount, long rightCount) {
    this.status = status;
    this.left = left;
    this.right = right;
    this.leftCount = leftCount;
    this.rightCount = rightCount;
  }

  /**
   * Returns whether the sides agree.
   *
   * @return the status
   */
  public Status status() {
    return status;
  }

  /**
   * Returns the left side's result.
   *
   * @return the result, or {@code null} if the left side has no value ({@link Status#RIGHT_ONLY})
   */
  public A left() {
    return left;
  }

  /**
   * Returns the right side's result.
   *
   * @return the result, or {@code null} if the right side has no value ({@link Status#LEFT_ONLY})
   */
  public B right() {
    return right;
  }

  /**
   * Returns the number of left values folded in.
   *
   * @return the count, {@code >= 0}
   */
  public long leftCount() {
    return leftCount;
  }

  /**
   * Returns the number of right values folded in.
   *
   * @return the count, {@code >= 0}
   */
  public long rightCount() {
    return rightCount;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Reconciled<?, ?> other
        && status == other.status
        && leftCount == other.leftCount
        && rightCount == other.rightCount
        && Objects.equals(left, other.left)
        && Objects.equals(right, other.right);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, left, right, leftCount, rightCount);
  }

  @Override
  public String toString() {
    return status
        + "(left "
        + left
        + " x"
        + leftCount
        + ", right "
        + right
        + " x"
        + rightCount
        + ")";
  }
}
