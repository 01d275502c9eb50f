package io.github.lowwater.cli;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One setting replayed: its own {@link TumblingWindows} counting events per (window, key), and what
 * it measures about them. Not thread-safe.
 */
final class SettingRun {

  private final Setting setting;
  private final TumblingWindows<String, Long, Long> windows;
  private final Clock clock;

  /** The handles of the partitions seen, by partition; absent = not seen yet. */
  private final HashMap<Integer, WatermarkTracker.Source> handles = new HashMap<>();

  /** Results emitted, by (window, key). */
  private final HashMap<WindowKey, Long> emitted = new HashMap<>();

  private final LongSamples delays = new LongSamples();
  private long events;
  private long late;
  private long peakOpenWindows;
  private long returnsFromIdle;

  SettingRun(Setting setting, long windowMillis, Clock clock) {
    this.setting = setting;
    this.clock = clock;
    this.windows =
        TumblingWindows.builder(Duration.ofMillis(windowMillis), Aggregators.count())
            .allowedLateness(Duration.ofMillis(setting.allowedLatenessMillis()))
            .idleTimeout(Duration.ofMillis(setting.idleTimeoutMillis()))
            .clock(clock)
            .build();
  }

  /** Adds one event; the clock has been moved to the replay's event-time "now" already. */
  void add(int partition, long timestampMillis, String key) {
    WatermarkTracker.Source handle = handles.get(partition);
    if (handle == null) {
      handle = windows.source(partition);
      handles.put(partition, handle);
    } else if (!windows.isActive(partition)) {
      returnsFromIdle++; // it went idle before this record
    }
    events++;
    if (!windows.add(handle, timestampMillis, key, 1L)) {
      late++;
    }
    peakOpenWindows = Math.max(peakOpenWindows, windows.stats().openWindows());
    collect(true);
  }

  private void collect(boolean measureDelay) {
    long now = clock.wallMillis();
    long lastEnd = Long.MIN_VALUE;
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      emitted.put(new WindowKey(r.start(), r.key()), r.value());
      if (measureDelay && r.end() != lastEnd) { // one delay per window, not per key
        delays.add(Saturating.subtract(now, r.end())); // forever, from below zero to the top
        lastEnd = r.end();
      }
    }
  }

  /** The end of the input: closes every window (their emission is not a delay) and sums up. */
  SettingResult finish(Map<WindowKey, Long> truth) {
    long stillIdle = 0;
    for (Integer p : handles.keySet()) {
      if (!windows.isActive(p)) {
        stillIdle++;
      }
    }
    windows.finish();
    collect(false);
    long wrong = 0;
    for (Map.Entry<WindowKey, Long> e : truth.entrySet()) {
      if (!e.getValue().equals(emitted.get(e.getKey()))) {
        wrong++;
      }
    }
    return new SettingResult(
        setting,
        events,
        late,
        truth.size(),
        wrong,
        delays.percentile(50),
        delays.percentile(99),
        peakOpenWindows,
        returnsFromIdle + stillIdle);
  }
}
