package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The watermark strategies (rule 15). */
class StrategiesTest extends TrackerFixture {
  @Test
  void strategyIsReportedAndDefaultsToBoundedOutOfOrderness() {
    assertThat(builder().build().strategy()).isEqualTo(WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS);
    assertThat(builder().strategy(WatermarkStrategy.PUNCTUATED).build().strategy())
        .isEqualTo(WatermarkStrategy.PUNCTUATED);
  }

  @Test
  void processingTimeStrategyFollowsTheWallClockOfTheLastActivity() {
    WatermarkTracker t = builder().strategy(WatermarkStrategy.PROCESSING_TIME).build();
    long wall = clock.wallMillis();
    t.observe("p0", 5); // an ancient event: irrelevant to processing time
    assertThat(t.watermark()).isEqualTo(wall - LATENESS);
    clock.advance(Duration.ofSeconds(30));
    t.refresh();
    assertThat(t.watermark())
        .as("no activity: still the last one's wall time")
        .isEqualTo(wall - LATENESS);
    t.heartbeat("p0");
    assertThat(t.watermark()).isEqualTo(wall + 30_000 - LATENESS);
  }
}
