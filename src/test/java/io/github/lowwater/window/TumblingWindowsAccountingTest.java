package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Late accounting per source and the watermark lag (rules 20 and 21). */
class TumblingWindowsAccountingTest extends WindowsFixture {

  @Test
  void lateCountsArePerSourceAndWithoutAHandlerToo() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(SIZE), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build();
    w.add("p0", now, "k", 1L);
    w.add("p1", now - 2 * SIZE, "k", 1L);
    w.add("p1", now - 3 * SIZE, "k", 1L);
    w.add("p2", now - 2 * SIZE, "k", 1L);
    assertThat(w.lateBySource()).containsOnly(entry("p1", 2L), entry("p2", 1L));
    assertThat(w.stats().late()).isEqualTo(3);
    assertThat(w.futureBySource()).isEmpty();
  }

  @Test
  void watermarkLagIsWallMinusWatermark() {
    TumblingWindows<String, Long, Long> w = builder().build();
    assertThat(w.watermarkLagMillis()).isEqualTo(Long.MAX_VALUE);
    w.add("p0", now - 90_000, "k", 1L);
    assertThat(w.watermarkLagMillis()).isEqualTo(90_000);
  }
}
