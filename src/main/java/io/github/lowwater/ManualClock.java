package io.github.lowwater;

import io.github.lowwater.internal.TimeMath;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@link Clock} that moves only when told to, for tests: yours and ours.
 *
 * <p>It starts with a monotonic reading of {@code 0} and the wall clock at the given instant (the
 * epoch by default). {@link #advance(Duration)} moves both readings together, which is what real
 * time does (steps under a millisecond add up on the wall clock too); {@link #jumpWall(Duration)}
 * moves the wall clock alone, which is what an NTP step does. Readings saturate at the {@code long}
 * bounds instead of wrapping.
 *
 * <p>Thread-safe: the readings are volatile, so a test may advance the clock on one thread while
 * the code under test reads it on another. Allocation-free.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
 * WatermarkTracker tracker = WatermarkTracker.builder().clock(clock).build();
 * clock.advance(Duration.ofMinutes(3)); // both clocks move three minutes
 * }</pre>
 */
public final class ManualClock implements Clock {

  private volatile long monotonicNanos;
  private volatile long wallMillis;

  /**
   * The part of the advances below a millisecond that the wall clock has not shown yet, {@code [0,
   * 1_000_000)} nanoseconds: two advances of half a millisecond move the wall clock by one.
   */
  private long wallNanosBehind;

  /** Creates a clock at monotonic {@code 0} and wall time {@code 1970-01-01T00:00:00Z}. */
  public ManualClock() {
    this(Instant.EPOCH);
  }

  /**
   * Creates a clock at monotonic {@code 0} and the given wall time.
   *
   * @param wallStart the initial wall-clock reading
   * @throws NullPointerException if {@code wallStart} is null
   * @throws ArithmeticException if {@code wallStart} does not fit in epoch milliseconds
   */
  public ManualClock(Instant wallStart) {
    Objects.requireNonNull(wallStart, "wallStart");
    this.wallMillis = wallStart.toEpochMilli();
  }

  /**
   * Moves both the monotonic and the wall clock forward.
   *
   * @param d how far to move; zero is allowed
   * @return this clock, for chaining
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException if {@code d} is negative (monotonic time never goes back; use
   *     {@link #jumpWall(Duration)} to move only the wall clock backwards)
   */
  public synchronized ManualClock advance(Duration d) {
    Objects.requireNonNull(d, "d");
    if (d.isNegative()) {
      throw new IllegalArgumentException("d must be >= 0: " + d);
    }
    monotonicNanos = TimeMath.saturatedAdd(monotonicNanos, TimeMath.toNanosSaturated(d));
    long millis = TimeMath.toMillisSaturated(d);
    wallNanosBehind += d.getNano() % 1_000_000;
    if (wallNanosBehind >= 1_000_000) {
      wallNanosBehind -= 1_000_000;
      millis = TimeMath.saturatedAdd(millis, 1);
    }
    wallMillis = TimeMath.saturatedAdd(wallMillis, millis);
    return this;
  }

  /**
   * Moves both clocks forward by a number of milliseconds: {@code advance(Duration.ofMillis(ms))}
   * without the {@code Duration}.
   *
   * @param millis how far to move, {@code >= 0}
   * @return this clock, for chaining
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public synchronized ManualClock advanceMillis(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("millis must be >= 0: " + millis);
    }
    long nanos = millis > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : millis * 1_000_000L;
    monotonicNanos = TimeMath.saturatedAdd(monotonicNanos, nanos);
    wallMillis = TimeMath.saturatedAdd(wallMillis, millis);
    return this;
  }

  /**
   * Moves the wall clock alone, forwards or backwards, as an NTP step or a manual change does. The
   * monotonic clock does not move.
   *
   * @param d how far to move the wall clock; may be negative
   * @return this clock, for chaining
   * @throws NullPointerException if {@code d} is null
   */
  public synchronized ManualClock jumpWall(Duration d) {
    Objects.requireNonNull(d, "d");
    wallMillis = TimeMath.saturatedAdd(wallMillis, TimeMath.toMillisSaturated(d));
    return this;
  }

  @Override
  public long monotonicNanos() {
    return monotonicNanos;
  }

  @Override
  public long wallMillis() {
    return wallMillis;
  }

  /**
   * Returns the wall-clock reading as an instant.
   *
   * @return the current wall time
   */
  public Instant wallInstant() {
    return Instant.ofEpochMilli(wallMillis);
  }

  @Override
  public String toString() {
    return "ManualClock{monotonicNanos=" + monotonicNanos + ", wall=" + wallInstant() + "}";
  }
}
