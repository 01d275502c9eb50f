package io.github.lowwater.join;

import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;

/**
 * Which times pair in a {@link StreamJoin}: a left record at {@code l} and a right record at {@code
 * r} of the same key pair iff {@code l + lower <= r <= l + upper} (semantics rule 67), the bounds
 * inclusive and the sums saturating at the {@code long} bounds. Immutable and thread-safe.
 *
 * <ul>
 *   <li>{@link #within(Duration) within(d)} is Kafka Streams' {@code
 *       JoinWindows.ofTimeDifferenceAndGrace(d, grace)}: {@code |r - l| <= d}. Its grace is
 *       <em>not</em> the join's {@link StreamJoin.Builder#allowedLateness allowed lateness}: Kafka
 *       Streams closes a record's window at {@code t + after + grace} of stream time, a join here
 *       judges a record by its own time, late iff {@code t < watermark} (rule 68), so the lateness
 *       that matches it is {@code after + grace}, here {@code d + grace} (see {@link #within}).
 *   <li>{@link #between(Duration, Duration) between(lower, upper)} is Flink's interval join, and
 *       Kafka Streams' {@code JoinWindows} with {@code before(-lower)} and {@code after(upper)}.
 * </ul>
 *
 * <p>A record waits for partners until the watermark passes the last time a partner may have: a
 * left record at {@code l} until {@code watermark > l + upper}, a right record at {@code r} until
 * {@code watermark > r - lower}. The wider the interval, the longer records stay buffered.
 */
public final class JoinInterval {

  private final long lowerMillis;
  private final long upperMillis;

  private JoinInterval(long lowerMillis, long upperMillis) {
    this.lowerMillis = lowerMillis;
    this.upperMillis = upperMillis;
  }

  /**
   * Returns the interval {@code [-timeDifference, +timeDifference]}: records whose times differ by
   * at most {@code timeDifference} pair.
   *
   * <p><b>From Kafka Streams.</b> {@code JoinWindows.ofTimeDifferenceAndGrace(d, grace)} is {@code
   * within(d)} with {@code allowedLateness(d + grace)} (its {@code after} plus its grace), not
   * {@code allowedLateness(grace)}: Kafka Streams closes a record's window at {@code t + d + grace}
   * of stream time, and a record here is late iff its own time is below the newest time less the
   * lateness (rule 68). Measured against Kafka Streams 4.4.0 on random feeds (PeerJoinTest), {@code
   * grace} alone missed 42% of its pairs, {@code d + grace} 2.6%; what still differs is listed in
   * docs/semantics.md ("Two streams against Kafka Streams"): it pairs records we call late while
   * its store holds their partners, its unmatched rows come {@code d} sooner (so a partner may
   * follow them), and its store drops a record exactly at its retention's edge.
   *
   * @param timeDifference the largest difference that pairs, {@code >= 0}; converted to
   *     milliseconds once, saturating
   * @return the interval
   * @throws NullPointerException if {@code timeDifference} is null
   * @throws IllegalArgumentException if {@code timeDifference} is negative
   */
  public static JoinInterval within(Duration timeDifference) {
    Objects.requireNonNull(timeDifference, "timeDifference");
    if (timeDifference.isNegative()) {
      throw new IllegalArgumentException("timeDifference must be >= 0: " + timeDifference);
    }
    long d = TimeMath.toMillisSaturated(timeDifference);
    return new JoinInterval(-d, d);
  }

  /**
   * Returns the interval {@code [lower, upper]} of right time minus left time: a right record pairs
   * with a left record at {@code l} iff its time is in {@code [l + lower, l + upper]}. Either bound
   * may be negative.
   *
   * @param lower the smallest right-minus-left difference that pairs; converted to milliseconds
   *     once, saturating
   * @param upper the largest; converted the same way
   * @return the interval
   * @throws NullPointerException if {@code lower} or {@code upper} is null
   * @throws IllegalArgumentException if {@code lower > upper}, naming both
   */
  public static JoinInterval between(Duration lower, Duration upper) {
    Objects.requireNonNull(lower, "lower");
    Objects.requireNonNull(upper, "upper");
    if (lower.compareTo(upper) > 0) {
      throw new IllegalArgumentException(
          "lower must be <= upper: lower " + lower + ", upper " + upper);
    }
    return new JoinInterval(TimeMath.toMillisSaturated(lower), TimeMath.toMillisSaturated(upper));
  }

  /**
   * Returns the smallest right-minus-left difference that pairs, in milliseconds.
   *
   * @return the lower bound, inclusive
   */
  public long lowerMillis() {
    return lowerMillis;
  }

  /**
   * Returns the largest right-minus-left difference that pairs, in milliseconds.
   *
   * @return the upper bound, inclusive
   */
  public long upperMillis() {
    return upperMillis;
  }

  /**
   * Returns whether a left record at {@code leftMillis} and a right record at {@code rightMillis}
   * pair (rule 67).
   *
   * @param leftMillis the left record's time; any {@code long}
   * @param rightMillis the right record's time; any {@code long}
   * @return {@code true} iff {@code leftMillis + lower <= rightMillis <= leftMillis + upper}
   */
  public boolean pairs(long leftMillis, long rightMillis) {
    return rightMillis >= TimeMath.saturatedAdd(leftMillis, lowerMillis)
        && rightMillis <= TimeMath.saturatedAdd(leftMillis, upperMillis);
  }

  /**
   * Returns the watermark at which a record stops waiting for partners: {@code t + upper + 1} for a
   * left record, {@code t - lower + 1} for a right one, saturating at {@code Long.MAX_VALUE} (which
   * only {@code finish()} reaches).
   *
   * @param side the record's side
   * @param timeMillis the record's time
   * @return the first watermark at which no on-time partner can still arrive
   */
  long closeMillis(JoinSide side, long timeMillis) {
    long last =
        side == JoinSide.LEFT
            ? TimeMath.saturatedAdd(timeMillis, upperMillis)
            : TimeMath.saturatedSubtract(timeMillis, lowerMillis);
    return TimeMath.saturatedAdd(last, 1);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JoinInterval other
        && lowerMillis == other.lowerMillis
        && upperMillis == other.upperMillis;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(lowerMillis) * 31 + Long.hashCode(upperMillis);
  }

  @Override
  public String toString() {
    return "JoinInterval[" + lowerMillis + " ms, " + upperMillis + " ms]";
  }
}
