package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The future-timestamp guard of the tracker (rule 19). */
class FutureGuardTest extends TrackerFixture {

  @Test
  void eventExactlyAtWallPlusSkewMovesTheFrontierOneMoreDoesNot() {
    WatermarkTracker t = builder().maxFutureSkew(Duration.ofMinutes(5)).build();
    long limit = clock.wallMillis() + Duration.ofMinutes(5).toMillis();
    assertThat(t.futureLimitMillis()).isEqualTo(limit);
    t.observe("device-1", limit);
    assertThat(t.frontier("device-1")).isEqualTo(limit);
    t.observe("device-2", limit - 60_000);
    t.observe("device-2", limit + 1);
    assertThat(t.frontier("device-2")).isEqualTo(limit - 60_000);
    assertThat(t.futureEvents()).isEqualTo(1);
    assertThat(t.futureEvents("device-2")).isEqualTo(1);
    assertThat(t.futureEvents("device-1")).isZero();
  }

  /** One device with a fast clock must not make the whole fleet's data late. */
  @Test
  void aFastDeviceClockCannotRunTheWatermarkAhead() {
    WatermarkTracker t = builder().maxFutureSkew(Duration.ofSeconds(30)).build();
    long now = clock.wallMillis();
    t.observe("fleet", now);
    t.observe("broken", now + Duration.ofDays(1).toMillis());
    t.remove("fleet");
    assertThat(t.watermark()).as("not a day ahead").isEqualTo(now - LATENESS);
    assertThat(t.isActive("broken")).as("future events are not activity").isFalse();
    assertThat(t.knownSources()).isEqualTo(1);
  }

  @Test
  void withoutAGuardNothingIsFuture() {
    WatermarkTracker t = builder().build();
    t.observe("p0", Long.MAX_VALUE);
    assertThat(t.futureEvents()).isZero();
    assertThat(t.futureLimitMillis()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void negativeSkewIsRejectedWithItsValue() {
    assertThatThrownBy(() -> WatermarkTracker.builder().maxFutureSkew(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFutureSkew must be >= 0: PT-1S");
    assertThatThrownBy(() -> WatermarkTracker.builder().strategy(null)).hasMessage("strategy");
    assertThatThrownBy(
            () ->
                WatermarkTracker.builder()
                    .strategy(WatermarkStrategy.PUNCTUATED)
                    .strategy(WatermarkStrategy.PUNCTUATED))
        .hasMessage("strategy was already set to PUNCTUATED");
    WatermarkTracker.Builder b = WatermarkTracker.builder().maxFutureSkew(Duration.ofMinutes(1));
    assertThatThrownBy(() -> b.maxFutureSkew(Duration.ofMinutes(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxFutureSkew was already set to PT1M");
  }
}
