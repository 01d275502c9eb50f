package io.github.lowwater.kafka;

import io.github.lowwater.Clock;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.SlidingWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowOptions;
import java.time.Duration;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * What {@link KafkaWindows.Builder#build()} fixed, copied out of the builder: a builder changed
 * after {@code build()} changes nothing in the driver it built, partitions assigned later included.
 * Immutable; the options left unset are {@code null} (or a negative sentinel) and take the core's
 * defaults when each partition's windows are built. {@code options} holds the event-time options (a
 * copy), {@code clock} the caller's clock or {@code null}. {@code size} is null for session,
 * calendar and sliding windows, {@code period} for all but calendar windows, {@code timeDifference}
 * for all but sliding windows, and {@code gap} (with its optional {@code maxSessionSpan}) for all
 * but sessions; {@code offset} is null unless set; {@code advance} is null for tumbling windows.
 * {@code maxFutureSkewMillis} is the future guard's skew, -1 when the guard is off; {@code
 * progressGroup} is null without a progress group; {@code missingRecordsPolicy} is never null;
 * {@code resumeDistanceLimit} is {@link ResumeLimit#NONE} without a limit.
 *
 * @param <V> the value type
 * @param <R> the result type
 */
record KafkaSettings<V, R>(
    Duration size,
    Duration advance,
    Duration gap,
    CalendarPeriod period,
    Duration timeDifference,
    Duration offset,
    Duration maxSessionSpan,
    Aggregator<? super V, ?, R> aggregator,
    FrozenOptions options,
    Clock clock,
    LateRecordHandler lateRecordHandler,
    ResultScope scope,
    long groupWatermarkIntervalNanos,
    Consumer<?, ?> consumer,
    long maxDriftMillis,
    long quietAdvanceAfterNanos,
    long quietAdvanceMaxLagMillis,
    long maxFutureSkewMillis,
    ProgressGroup.Config progressGroup,
    MissingRecordsPolicy missingRecordsPolicy,
    long resumeDistanceLimit) {

  /**
   * Builds one set of windows (a partition's, or the merged ones) over the driver's cached clock.
   *
   * @param cachedClock the clock read once per poll
   * @return new windows with these options
   */
  <K, W extends V> EventTimeWindows<K, W, R> newWindows(Clock cachedClock) {
    if (gap != null) {
      SessionWindows.Builder<V, R> b = SessionWindows.builder(gap, aggregator);
      if (maxSessionSpan != null) {
        b.maxSessionSpan(maxSessionSpan);
      }
      return configure(b, cachedClock).<K, W>build();
    }
    if (timeDifference != null) {
      return configure(SlidingWindows.builder(timeDifference, aggregator), cachedClock)
          .<K, W>build();
    }
    if (advance == null) {
      return configure(tumbling(size, period, offset, aggregator), cachedClock).<K, W>build();
    }
    return configure(hopping(size, advance, offset, aggregator), cachedClock).<K, W>build();
  }

  /** The builder of tumbling windows: of a size, with its offset if set; or of a period. */
  static <V, R> TumblingWindows.Builder<V, R> tumbling(
      Duration size,
      CalendarPeriod period,
      Duration offset,
      Aggregator<? super V, ?, R> aggregator) {
    if (period != null) {
      return TumblingWindows.builder(period, aggregator);
    }
    TumblingWindows.Builder<V, R> b = TumblingWindows.builder(size, aggregator);
    return offset == null ? b : b.offset(offset);
  }

  /** The builder of hopping windows, with their offset if set. */
  static <V, R> HoppingWindows.Builder<V, R> hopping(
      Duration size, Duration advance, Duration offset, Aggregator<? super V, ?, R> aggregator) {
    HoppingWindows.Builder<V, R> b = HoppingWindows.builder(size, advance, aggregator);
    return offset == null ? b : b.offset(offset);
  }

  /** Applies the options that were set to a kind's builder; the others keep the core's defaults. */
  private <B extends WindowOptions<V, R, B>> B configure(B wb, Clock cachedClock) {
    return options.applyTo(wb).clock(cachedClock);
  }
}
