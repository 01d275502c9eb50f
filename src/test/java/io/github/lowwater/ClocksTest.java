package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The clocks: {@link ManualClock}, {@link CachedClock} and the system clock. */
class ClocksTest {

  /** Regression: 2 x 0.5 ms moved the monotonic clock by 1 ms and the wall clock by 0. */
  @Test
  void stepsUnderAMillisecondAddUpOnTheWallClockToo() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofNanos(500_000));
    assertThat(clock.wallMillis()).isZero();
    clock.advance(Duration.ofNanos(500_000));
    assertThat(clock.monotonicNanos()).isEqualTo(1_000_000);
    assertThat(clock.wallMillis()).isEqualTo(1);
    clock.advance(Duration.ofNanos(1_999_999));
    assertThat(clock.wallMillis()).isEqualTo(2);
    clock.advance(Duration.ofNanos(1));
    assertThat(clock.wallMillis()).isEqualTo(3);
    assertThat(clock.monotonicNanos()).isEqualTo(3_000_000);
  }

  @Test
  void startsAtMonotonicZeroAndTheEpoch() {
    ManualClock clock = new ManualClock();
    assertThat(clock.monotonicNanos()).isZero();
    assertThat(clock.wallMillis()).isZero();
    assertThat(clock.wallInstant()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void advanceMovesBothClocks() {
    ManualClock clock = new ManualClock(Instant.parse("2026-11-29T10:00:00Z"));
    clock.advance(Duration.ofMillis(1500)).advanceMillis(500);
    assertThat(clock.monotonicNanos()).isEqualTo(2_000_000_000L);
    assertThat(clock.wallInstant()).isEqualTo(Instant.parse("2026-11-29T10:00:02Z"));
  }

  @Test
  void jumpWallMovesOnlyTheWallClock() {
    ManualClock clock = new ManualClock();
    clock.jumpWall(Duration.ofSeconds(-5));
    assertThat(clock.wallMillis()).isEqualTo(-5_000);
    assertThat(clock.monotonicNanos()).isZero();
  }

  @Test
  void negativeAdvanceIsRejectedAndNothingMoves() {
    ManualClock clock = new ManualClock();
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("d must be >= 0: PT-0.000000001S");
    assertThatThrownBy(() -> clock.advanceMillis(-1)).hasMessage("millis must be >= 0: -1");
    assertThatThrownBy(() -> clock.advance(null)).hasMessage("d");
    assertThat(clock.monotonicNanos()).isZero();
  }

  @Test
  void readingsSaturateInsteadOfWrapping() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(Long.MAX_VALUE));
    clock.advance(Duration.ofDays(1));
    assertThat(clock.monotonicNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(clock.wallMillis()).isEqualTo(Long.MAX_VALUE);
    clock.advanceMillis(Long.MAX_VALUE);
    assertThat(clock.monotonicNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void advanceMillisIsExactUpToTheLastMillisecondThatFitsInNanosThenSaturates() {
    long last = Long.MAX_VALUE / 1_000_000L;
    assertThat(new ManualClock().advanceMillis(last).monotonicNanos())
        .isEqualTo(last * 1_000_000L)
        .isLessThan(Long.MAX_VALUE);
    assertThat(new ManualClock().advanceMillis(last + 1).monotonicNanos())
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void everyStepReturnsTheSameClockForChaining() {
    ManualClock clock = new ManualClock();
    assertThat(clock.advance(Duration.ofMillis(1))).isSameAs(clock);
    assertThat(clock.advanceMillis(1)).isSameAs(clock);
    assertThat(clock.jumpWall(Duration.ofMillis(1))).isSameAs(clock);
    CachedClock cached = new CachedClock(clock);
    assertThat(cached.update()).isSameAs(cached);
    assertThat(clock.wallMillis()).isEqualTo(3);
    assertThat(clock.monotonicNanos()).isEqualTo(2_000_000);
  }

  @Test
  void toStringShowsTheReadings() {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z")).advanceMillis(1);
    assertThat(clock)
        .hasToString("ManualClock{monotonicNanos=1000000, wall=2026-01-01T00:00:00.001Z}");
    assertThat(new CachedClock(clock)).hasToString("CachedClock{" + clock + "}");
    assertThat(Clock.system()).hasToString("Clock.system()");
  }

  @Test
  void cachedClockReadsItsSourceOnlyOnUpdate() {
    ManualClock source = new ManualClock();
    CachedClock cached = new CachedClock(source);
    source.advance(Duration.ofSeconds(1));
    assertThat(cached.monotonicNanos()).isZero();
    assertThat(cached.wallMillis()).isZero();
    cached.update();
    assertThat(cached.monotonicNanos()).isEqualTo(1_000_000_000L);
    assertThat(cached.wallMillis()).isEqualTo(1_000);
  }

  @Test
  void systemClockReadsTheJvmClocks() {
    long before = System.currentTimeMillis();
    long wall = Clock.system().wallMillis();
    assertThat(wall).isBetween(before, System.currentTimeMillis());
    long n1 = Clock.system().monotonicNanos();
    assertThat(Clock.system().monotonicNanos() - n1).isNotNegative();
    long nanosBefore = System.nanoTime();
    long nanos = Clock.system().monotonicNanos();
    assertThat(nanos - nanosBefore).isNotNegative();
    assertThat(System.nanoTime() - nanos).isNotNegative();
  }
}
