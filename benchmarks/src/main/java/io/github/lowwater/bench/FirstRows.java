package io.github.lowwater.bench;

import io.github.lowwater.kafka.PartitionResultVisitor;
import io.github.lowwater.window.Timing;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.TopicPartition;

/**
 * The rows of a new owner in {@link HandOver}: when its first row came, when its first on-time row
 * came (the first row of a window that the trigger record closed, which needs the whole state
 * back), and when every on-time row the data should give had come; and their count and sum, so that
 * a pass with the wrong rows cannot be reported as a fast one.
 *
 * <p>Written by one thread (Lowwater's polling thread, or the one stream thread of Kafka Streams),
 * read by the main thread after {@link #complete} or after the owner is closed: the times are
 * volatile, the counters are published by the latch. No allocation per row.
 */
final class FirstRows implements PartitionResultVisitor<String, Long> {

  /** Not yet. */
  static final long NEVER = -1;

  final CountDownLatch complete = new CountDownLatch(1);
  private final long expectedRows;
  volatile long firstRowNanos = NEVER;
  volatile long firstOnTimeNanos = NEVER;
  volatile long completeNanos = NEVER;

  /** Records read so far; Lowwater's loop sets it before each drain. */
  long read;

  /** {@link #read} at the first on-time row. */
  long readAtFirstOnTime = NEVER;

  long earlyRows;
  long lateRows;
  long replacedRows;
  long onTimeRows;
  long onTimeSum;

  FirstRows(long expectedRows) {
    this.expectedRows = expectedRows;
  }

  /** One row: the timers, then the counters. */
  void row(Timing timing, long value) {
    long now = System.nanoTime();
    if (firstRowNanos == NEVER) {
      firstRowNanos = now;
    }
    switch (timing) {
      case EARLY -> earlyRows++;
      case LATE -> lateRows++;
      case ON_TIME -> {
        if (firstOnTimeNanos == NEVER) {
          firstOnTimeNanos = now;
          readAtFirstOnTime = read;
        }
        onTimeRows++;
        onTimeSum += value;
        if (onTimeRows == expectedRows) {
          completeNanos = System.nanoTime();
          complete.countDown();
        }
      }
    }
  }

  boolean isComplete() {
    return complete.getCount() == 0;
  }

  /** "ok" when the on-time rows are exactly the expected ones, else "MISMATCH (...)". */
  String check(long expectedSum) {
    return onTimeRows == expectedRows && onTimeSum == expectedSum
        ? "ok"
        : String.format(
            Locale.ROOT,
            "MISMATCH (%d on-time rows summing to %d, expected %d summing to %d)",
            onTimeRows,
            onTimeSum,
            expectedRows,
            expectedSum);
  }

  @Override
  public void visit(TopicPartition partition, long start, long end, String key, Long value) {
    row(Timing.ON_TIME, value);
  }

  @Override
  public void visitLong(TopicPartition partition, long start, long end, String key, long value) {
    row(Timing.ON_TIME, value);
  }

  @Override
  public void visitLongPane(
      TopicPartition partition,
      long start,
      long end,
      String key,
      long value,
      Timing timing,
      int index,
      boolean isFinal) {
    row(timing, value);
  }

  @Override
  public void visitPane(
      TopicPartition partition,
      long start,
      long end,
      String key,
      Long value,
      Timing timing,
      int index,
      boolean isFinal) {
    row(timing, value);
  }

  @Override
  public void visitReplaced(TopicPartition partition, long start, String key) {
    replacedRows++;
  }
}
