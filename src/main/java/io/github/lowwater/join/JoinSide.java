package io.github.lowwater.join;

/** The side of a two-stream operation a record belongs to. */
public enum JoinSide {
  /** The left stream: the first of a join, the source of a reconciliation. */
  LEFT,
  /** The right stream: the second of a join, the target of a reconciliation. */
  RIGHT
}
