package io.github.lowwater.join;

/**
 * Receives the records a {@link StreamJoin} did not join because they arrived behind the watermark
 * (semantics rule 68), with their side, so that none is silently lost.
 *
 * <p>Called on the thread that called {@code addLeft} or {@code addRight}, after the record has
 * been counted as late and observed as activity of its source. An exception thrown here propagates
 * to that caller; the join's state is already consistent when it does.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface LateJoinHandler<K> {

  /**
   * Handles one late record.
   *
   * @param side the record's side
   * @param source the record's source, as given to {@code addLeft} or {@code addRight}
   * @param timeMillis the record's event time, {@code < watermarkMillis} (or {@code <=} after
   *     {@code finish()})
   * @param watermarkMillis the watermark it was judged against: its source's newest time minus the
   *     allowed lateness, or the shared watermark if higher
   * @param key the record's key
   * @param value the record's value, of the side's value type
   */
  void onLateRecord(
      JoinSide side, Object source, long timeMillis, long watermarkMillis, K key, Object value);
}
