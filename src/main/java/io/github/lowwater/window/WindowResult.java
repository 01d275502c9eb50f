package io.github.lowwater.window;

import java.util.List;
import java.util.Objects;

/**
 * One row of one key in one window {@code [start, end)}, either over every source (a merged result,
 * {@code source == null}) or over one source only (a per-source result, such as one Kafka
 * partition's share of the window, keyed by that source), with its pane: when it was emitted
 * ({@link #timing()}), its place among the rows of the same window and key ({@link #index()}), and
 * whether the window will ever get another ({@link #isFinal()}). The value is always the whole
 * window's value so far, never a delta, so a sink upserts and may refuse a row whose index is lower
 * than the one it holds. Without {@code earlyResults} and {@code grace} a window is emitted once,
 * when the watermark reaches its end: every row is {@link Timing#ON_TIME}, index 0, final.
 *
 * <p>A session's row is identified by (start, key, source): its end grows with the session. When a
 * session's first event time moves earlier, or sessions merge, after one of them had a row (with
 * early results or a grace period), the next row of the session lists the starts of the earlier
 * rows it replaces ({@link #replaces()}): a sink deletes those rows of the same key and source,
 * then upserts this one. Every other row replaces nothing.
 *
 * <p>A row is {@linkplain #isComplete() complete} unless the reading that produced it may lack
 * records of its window: Kafka's {@code KafkaWindows} marks the rows of the windows that records
 * deleted, skipped or read without their checkpoint could belong to (see its {@code
 * missingRecordsPolicy}). A sink keeps a complete row from being overwritten by an incomplete one,
 * for example by inserting an incomplete row only where it has none. The windows themselves only
 * make complete rows.
 *
 * @param start the window's first millisecond, inclusive, in epoch milliseconds
 * @param end the window's end, exclusive, in epoch milliseconds
 * @param key the key
 * @param value the aggregated result
 * @param source the one source this result covers (a Kafka {@code TopicPartition} for per-partition
 *     results), or {@code null} for a result merged over every source
 * @param timing when the row was emitted, relative to the window's completion
 * @param index the row's place among the rows of the same window, key (and source), from 0
 * @param isFinal whether this is the last row the window will ever get
 * @param replaces the starts of the earlier rows of the same key (and source) that this row
 *     replaces, ascending; empty except for a session that grew over earlier rows
 * @param isComplete whether the row holds every record of its window that one uninterrupted reading
 *     of the input would have put in it: false only for a row that records missing from the reading
 *     (deleted, skipped, or read without the previous owner's checkpoint) could belong to
 * @param <K> the key type
 * @param <R> the result type
 */
public record WindowResult<K, R>(
    long start,
    long end,
    K key,
    R value,
    Object source,
    Timing timing,
    int index,
    boolean isFinal,
    List<Long> replaces,
    boolean isComplete) {

  /**
   * Checks the pane, and copies {@code replaces} into an unmodifiable list.
   *
   * @throws NullPointerException if {@code timing} or {@code replaces} is null, or {@code replaces}
   *     holds a null
   * @throws IllegalArgumentException if {@code index} is negative, or an {@link Timing#EARLY} row
   *     says it is final (the on-time row always follows an early one)
   */
  public WindowResult {
    Objects.requireNonNull(timing, "timing");
    if (index < 0) {
      throw new IllegalArgumentException("index must be >= 0: " + index);
    }
    if (timing == Timing.EARLY && isFinal) {
      throw new IllegalArgumentException(
          "an EARLY row is never final: the window's on-time row follows it");
    }
    replaces = List.copyOf(replaces);
  }

  /**
   * A complete row.
   *
   * @param start the window's first millisecond, inclusive, in epoch milliseconds
   * @param end the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param value the whole window's value so far
   * @param source the one source this result covers, or {@code null} for a merged result
   * @param timing when the row was emitted, relative to the window's completion
   * @param index the row's place among the rows of the same window, key (and source), from 0
   * @param isFinal whether this is the last row the window will ever get
   * @param replaces the starts of the earlier rows this row replaces, ascending
   * @throws NullPointerException if {@code timing} or {@code replaces} is null, or {@code replaces}
   *     holds a null
   * @throws IllegalArgumentException if {@code index} is negative, or an {@link Timing#EARLY} row
   *     says it is final
   */
  public WindowResult(
      long start,
      long end,
      K key,
      R value,
      Object source,
      Timing timing,
      int index,
      boolean isFinal,
      List<Long> replaces) {
    this(start, end, key, value, source, timing, index, isFinal, replaces, true);
  }

  /**
   * A complete row that replaces no earlier row.
   *
   * @param start the window's first millisecond, inclusive, in epoch milliseconds
   * @param end the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param value the whole window's value so far
   * @param source the one source this result covers, or {@code null} for a merged result
   * @param timing when the row was emitted, relative to the window's completion
   * @param index the row's place among the rows of the same window, key (and source), from 0
   * @param isFinal whether this is the last row the window will ever get
   * @throws NullPointerException if {@code timing} is null
   * @throws IllegalArgumentException if {@code index} is negative, or an {@link Timing#EARLY} row
   *     says it is final
   */
  public WindowResult(
      long start,
      long end,
      K key,
      R value,
      Object source,
      Timing timing,
      int index,
      boolean isFinal) {
    this(start, end, key, value, source, timing, index, isFinal, List.of(), true);
  }

  /**
   * A per-source result of the window's one row: on time, index 0, final.
   *
   * @param start the window's first millisecond, inclusive, in epoch milliseconds
   * @param end the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param value the aggregated result
   * @param source the one source this result covers, or {@code null} for a merged result
   */
  public WindowResult(long start, long end, K key, R value, Object source) {
    this(start, end, key, value, source, Timing.ON_TIME, 0, true);
  }

  /**
   * A merged result, over every source: {@link #source()} is {@code null}; on time, index 0, final.
   *
   * @param start the window's first millisecond, inclusive, in epoch milliseconds
   * @param end the window's end, exclusive, in epoch milliseconds
   * @param key the key
   * @param value the aggregated result
   */
  public WindowResult(long start, long end, K key, R value) {
    this(start, end, key, value, null);
  }

  /**
   * Returns the same row tagged with the one source it covers, its pane unchanged.
   *
   * @param source the source, for example a Kafka {@code TopicPartition}
   * @return a per-source result
   */
  public WindowResult<K, R> withSource(Object source) {
    return new WindowResult<>(
        start, end, key, value, source, timing, index, isFinal, replaces, isComplete);
  }

  /**
   * Returns the same row marked as not {@linkplain #isComplete() complete}: it may lack records of
   * its window. Returns this row if it is marked already.
   *
   * @return an incomplete row, otherwise equal to this one
   */
  public WindowResult<K, R> incomplete() {
    return isComplete
        ? new WindowResult<>(
            start, end, key, value, source, timing, index, isFinal, replaces, false)
        : this;
  }
}
