package io.github.lowwater.kafka;

/**
 * What {@link KafkaWindows} does when a partition's reading may lack records that an uninterrupted
 * reading would have had (semantics rule 65): the partition started without a usable checkpoint
 * above offset 0 (none, unreadable, or carried from another log), records below where it starts
 * were deleted (retention, {@code deleteRecords}), or the consumer's first offset is not the
 * committed one ({@code auto.offset.reset} jumped). Set with {@link
 * KafkaWindows.Builder#missingRecordsPolicy}.
 */
public enum MissingRecordsPolicy {

  /**
   * The default: the partition goes on, and every row that the missing records could belong to is
   * marked {@linkplain io.github.lowwater.window.WindowResult#isComplete() incomplete}; the event
   * is logged once at WARN and counted ({@link KafkaWindows#missingRecordsEvents()}). A sink that
   * inserts incomplete rows only where it has none keeps the complete rows written before.
   */
  MARK,

  /**
   * {@code onPoll} throws a {@link MissingRecordsException} before it processes any record of the
   * partition, and again at every poll that delivers them: nothing is read past the gap until an
   * operator decides (restores the offsets, or restarts with {@link #MARK}).
   */
  FAIL
}
