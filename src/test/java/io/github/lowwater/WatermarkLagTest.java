package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The watermark lag (rule 21). */
class WatermarkLagTest extends TrackerFixture {

  @Test
  void lagIsWallClockMinusWatermarkAndSaturatesBeforeTheFirstWatermark() {
    WatermarkTracker t = builder().build();
    assertThat(t.watermarkLagMillis()).isEqualTo(Long.MAX_VALUE);
    t.observe("p0", clock.wallMillis() - 5_000);
    assertThat(t.watermarkLagMillis()).isEqualTo(15_000);
    clock.advance(Duration.ofSeconds(3));
    assertThat(t.watermarkLagMillis()).isEqualTo(18_000);
  }
}
