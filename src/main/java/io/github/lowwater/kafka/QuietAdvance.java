package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quiet-period rule for one subject (a partition, or every partition of an instance): after
 * {@code quietAfter} without activity, the subject's watermark may follow the wall clock, unless it
 * lags the wall clock by more than {@code maxLag} (then the data is a replay or a backfill, which
 * the advance would make late as a whole; logged once at WARN per episode).
 *
 * <p>Not thread-safe. O(1), no allocation, no clock read: the caller passes its one reading per
 * poll. Logs one INFO line when an advancing period starts, never one per poll. Activity is a
 * record, a paused poll (paused time is not quiet) or the assignment itself, so that a consumer
 * whose join took longer than the quiet period does not advance before its first record.
 */
final class QuietAdvance {

  private static final Logger WINDOWS_LOG = LoggerFactory.getLogger(KafkaWindows.class);

  /** Where its lines go: the logger of the class the user configured ({@code KafkaWindows}'s). */
  private final Logger log;

  private final long quietAfterNanos;
  private final long maxLagMillis;
  private final Object subject;
  private long quietSinceNanos;
  private boolean warned;

  /** Whether the watermark follows the wall clock now: logged once when it starts. */
  private boolean advancing;

  /**
   * A rule whose quiet period starts now.
   *
   * @param quietAfterNanos the quiet period, {@code > 0}
   * @param maxLagMillis the largest watermark lag at which the advance still happens
   * @param subject what the log names: a partition, or "all partitions"
   * @param nowNanos the monotonic reading of the start
   */
  QuietAdvance(long quietAfterNanos, long maxLagMillis, Object subject, long nowNanos) {
    this(quietAfterNanos, maxLagMillis, subject, nowNanos, WINDOWS_LOG);
  }

  /**
   * A rule whose quiet period starts now, logging to {@code log} (a {@link KafkaJoin}'s partitions:
   * {@code KafkaJoin}'s logger).
   */
  QuietAdvance(long quietAfterNanos, long maxLagMillis, Object subject, long nowNanos, Logger log) {
    this.log = log;
    this.quietAfterNanos = quietAfterNanos;
    this.maxLagMillis = maxLagMillis;
    this.subject = subject;
    this.quietSinceNanos = nowNanos;
  }

  /**
   * Notes activity: the quiet period starts again.
   *
   * @param nowNanos the monotonic reading
   */
  void activity(long nowNanos) {
    quietSinceNanos = nowNanos;
    advancing = false;
  }

  /**
   * Returns whether the watermark should now advance to the wall clock: quiet for at least the
   * quiet period, a watermark to advance (no watermark means no data, nothing to close), and a lag
   * within the bound.
   *
   * @param nowNanos the monotonic reading
   * @param watermarkMillis the subject's watermark
   * @param wallMillis the wall-clock reading
   * @return {@code true} to advance
   */
  boolean due(long nowNanos, long watermarkMillis, long wallMillis) {
    if (nowNanos - quietSinceNanos < quietAfterNanos
        || watermarkMillis == WatermarkTracker.NO_WATERMARK) {
      return false;
    }
    long lag = TimeMath.saturatedSubtract(wallMillis, watermarkMillis);
    if (lag > maxLagMillis) {
      if (!warned) {
        warned = true;
        log.warn(
            "{} quiet, but the watermark {} lags the wall clock {} by {} ms, more than"
                + " quietAdvanceMaxLag {} ms (a replay or backfill?): not advancing to the wall"
                + " clock, which would make that data late",
            subject,
            TimeMath.describeMillis(watermarkMillis),
            TimeMath.describeMillis(wallMillis),
            lag,
            maxLagMillis);
      }
      return false;
    }
    warned = false;
    if (!advancing) {
      advancing = true;
      log.info(
          "{} quiet for {} ms: its watermark follows the wall clock {} minus the allowed lateness"
              + " until the next record",
          subject,
          (nowNanos - quietSinceNanos) / 1_000_000L,
          TimeMath.describeMillis(wallMillis));
    }
    return true;
  }
}
