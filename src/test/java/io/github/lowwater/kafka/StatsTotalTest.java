package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.window.WindowStats;
import org.junit.jupiter.api.Test;

/** {@link StatsTotal}: every count summed, the open windows, entries and watermark the caller's. */
class StatsTotalTest {

  @Test
  void everyCountIsSummedAndTheOpenWindowsAndWatermarkAreTheCallers() {
    WindowStats a = new WindowStats(1, 2, 3, 40, 50, 6, 700, 8, 9, 10, 11);
    WindowStats b = new WindowStats(100, 200, 300, 4, 5, 600, 7, 800, 900, 1_000, 1_100);
    assertThat(new StatsTotal().add(a).add(b).snapshot(12, 13, 14))
        .isEqualTo(new WindowStats(101, 202, 303, 12, 13, 606, 14, 808, 909, 1_010, 1_111));
    assertThat(new StatsTotal().snapshot(0, 0, 0)).isEqualTo(PartitionTable.NO_STATS);
    assertThat(PartitionTable.sum(a, b))
        .as("a departed partition's counters: its open windows and watermark are gone")
        .isEqualTo(new WindowStats(101, 202, 303, 0, 0, 606, 0, 808, 909, 1_010, 1_111));
  }
}
