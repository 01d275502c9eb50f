package io.github.lowwater.join;

import java.util.Objects;

/**
 * One row of a {@link StreamJoin}: a pair, or an unmatched record of a left or outer join.
 * Immutable.
 *
 * @param <K> the key type
 * @param <O> the value type
 */
public final class JoinRow<K, O> {

  /** What a row stands for. */
  public enum Kind {
    /** A left and a right record that pair. */
    PAIR,
    /** A left record that paired with no right record (left and outer joins). */
    LEFT_ONLY,
    /** A right record that paired with no left record (outer joins). */
    RIGHT_ONLY
  }

  private final Kind kind;
  private final K key;
  private final long timeMillis;
  private final O value;

  JoinRow(Kind kind, K key, long timeMillis, O value) {
    this.kind = kind;
    this.key = key;
    this.timeMillis = timeMillis;
    this.value = value;
  }

  /**
   * Returns what the row stands for.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Returns the key.
   *
   * @return the key
   */
  public K key() {
    return key;
  }

  /**
   * Returns the row's time: the later of the two times for a pair (as Kafka Streams stamps it), the
   * record's own time for an unmatched row.
   *
   * @return the time in epoch milliseconds
   */
  public long timeMillis() {
    return timeMillis;
  }

  /**
   * Returns the joiner's value.
   *
   * @return the value; may be null if the joiner returned null
   */
  public O value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JoinRow<?, ?> other
        && kind == other.kind
        && timeMillis == other.timeMillis
        && key.equals(other.key)
        && Objects.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, key, timeMillis, value);
  }

  @Override
  public String toString() {
    return kind + "(" + key + " @" + timeMillis + " = " + value + ")";
  }
}
