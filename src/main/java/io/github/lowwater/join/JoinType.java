package io.github.lowwater.join;

/**
 * Which unmatched records of a {@link StreamJoin} give a row of their own once no partner can come
 * (semantics rule 69). Matched records give one row per pair in every type.
 */
public enum JoinType {
  /** Only pairs. */
  INNER,
  /** Pairs, and each left record that paired with none, with a null right value. */
  LEFT,
  /** Pairs, and each record of either side that paired with none, with a null other value. */
  OUTER;

  boolean emitsUnmatched(JoinSide side) {
    return this == OUTER || (this == LEFT && side == JoinSide.LEFT);
  }
}
