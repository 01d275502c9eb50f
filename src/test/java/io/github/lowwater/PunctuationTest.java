package io.github.lowwater;

import static io.github.lowwater.WatermarkTracker.NO_WATERMARK;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Punctuation: a source asserts its own watermark (rule 16). */
class PunctuationTest extends TrackerFixture {

  @Test
  void punctuationRaisesTheSourceWithoutSubtractingLateness() {
    WatermarkTracker t = builder().build();
    t.observe("p0", 100_000);
    t.observe("p1", 100_000);
    assertThat(t.watermark()).isEqualTo(90_000);
    t.punctuate("p0", 150_000);
    t.punctuate("p1", 120_000);
    assertThat(t.watermark()).isEqualTo(120_000);
    assertThat(t.frontier("p1")).as("no event was seen").isEqualTo(100_000);
  }

  @Test
  void punctuationNeverLowersAContribution() {
    WatermarkTracker t = builder().build();
    t.observe("p0", 100_000);
    t.punctuate("p0", 5);
    assertThat(t.watermark()).isEqualTo(90_000);
  }

  @Test
  void punctuatedStrategyIgnoresEventTimesForTheWatermark() {
    WatermarkTracker t = builder().strategy(WatermarkStrategy.PUNCTUATED).build();
    t.observe("p0", 100_000);
    assertThat(t.watermark()).isEqualTo(NO_WATERMARK);
    assertThat(t.frontier("p0")).isEqualTo(100_000);
    t.punctuate("p0", 42_000);
    assertThat(t.watermark()).isEqualTo(42_000);
  }

  @Test
  void punctuationCountsAsActivity() {
    WatermarkTracker t = builder().build();
    t.observe("quiet", 10_000);
    t.observe("busy", 100_000);
    clock.advance(Duration.ofSeconds(50));
    t.punctuate("quiet", 10_000);
    clock.advance(Duration.ofSeconds(50));
    t.refresh();
    assertThat(t.isActive("quiet")).isTrue();
  }
}
