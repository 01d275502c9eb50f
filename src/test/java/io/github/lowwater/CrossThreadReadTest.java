package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowStats;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The threading contract: one writer, and a reader on another thread (a metrics reporter) that sees
 * recent values that never go backwards and are never torn. The writer is deterministic; the reader
 * checks what it sees, so the test cannot pass by luck of scheduling, only fail.
 */
class CrossThreadReadTest {

  @Test
  void aReaderThreadSeesAMonotonicWatermarkAndCountersThatNeverGoBack() throws Exception {
    ManualClock clock = new ManualClock();
    TumblingWindows<Integer, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMillis(100), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build();
    long events = 2_000_000;
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> violation = new AtomicReference<>();
    long[] reads = new long[1];
    Thread reader =
        new Thread(
            () -> {
              long lastWatermark = Long.MIN_VALUE;
              long lastAdded = 0;
              while (!done.get() && violation.get() == null) {
                WindowStats stats = windows.stats();
                long watermark = windows.watermark();
                if (watermark < lastWatermark) {
                  violation.set("watermark went back: " + lastWatermark + " -> " + watermark);
                }
                if (stats.added() < lastAdded) {
                  violation.set("added went back: " + lastAdded + " -> " + stats.added());
                }
                // The writer only ever publishes watermarks in [0, events * 10]: a torn long would
                // almost surely fall outside that range.
                if (watermark != Long.MIN_VALUE && (watermark < 0 || watermark > events * 10)) {
                  violation.set("torn or impossible watermark: " + watermark);
                }
                lastWatermark = watermark;
                lastAdded = stats.added();
                reads[0]++;
              }
            },
            "metrics-reader");
    reader.start();
    for (long i = 0; i < events; i++) {
      windows.add((int) (i & 3), i * 10, (int) (i % 17), 1L);
    }
    done.set(true);
    reader.join();
    assertThat(violation.get()).isNull();
    assertThat(reads[0]).isPositive();
    assertThat(windows.stats().added()).isEqualTo(events);
    assertThat(windows.watermark()).isEqualTo((events - 4) * 10);
  }
}
