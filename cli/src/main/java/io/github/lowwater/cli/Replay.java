package io.github.lowwater.cli;

import io.github.lowwater.ManualClock;
import io.github.lowwater.tuning.Advice;
import io.github.lowwater.tuning.Advisor;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * Replays one input under every setting at once: each record goes to one {@link SettingRun} per
 * setting, to the ground truth (a count per (window, key) of all events) and to a {@link
 * DisorderRecorder} for the advisor.
 *
 * <p><b>The clock is driven by the data.</b> Idleness is measured on a monotonic clock; a replay
 * runs far faster than the data was written, so a real clock would make every partition look live.
 * The replay moves one {@link ManualClock} to the largest event time read so far, before each
 * record: its monotonic reading is that event time minus the first record's (in nanoseconds), and
 * its wall reading is the event time itself. A partition therefore goes idle when the rest of the
 * topic has moved further than the idle timeout past its last record, in event time; and a result's
 * delay is the event time that had been read when it was emitted, minus its window's end. The
 * replay is deterministic: the same input in the same order gives the same rows.
 *
 * <p>Not thread-safe. Memory: the ground truth and each setting's results, O((windows x keys) x
 * settings).
 */
final class Replay implements RecordSink {

  private final long windowMillis;
  private final List<Setting> settings;
  private final double targetLateFraction;
  private final HashMap<WindowKey, Long> truth = new HashMap<>();
  private final HashMap<Integer, SourceDisorder> recorded = new HashMap<>();

  // Made at the first record, whose event time the clock starts at.
  private final List<SettingRun> runs = new ArrayList<>();
  private ManualClock clock;
  private DisorderRecorder recorder;

  /**
   * Creates a replay.
   *
   * @param windowMillis the window size, {@code > 0}
   * @param settings the settings to replay, in the order of the results
   * @param targetLateFraction the late fraction the advisor aims at
   */
  Replay(long windowMillis, List<Setting> settings, double targetLateFraction) {
    this.windowMillis = windowMillis;
    this.settings = List.copyOf(settings);
    this.targetLateFraction = targetLateFraction;
  }

  private void start(long firstMillis) {
    clock = new ManualClock(Instant.ofEpochMilli(firstMillis));
    recorder = DisorderRecorder.builder().clock(clock).build();
    for (Setting s : settings) {
      runs.add(new SettingRun(s, windowMillis, clock));
    }
  }

  @Override
  public void accept(int partition, long offset, long timestampMillis, String key) {
    if (clock == null) {
      start(timestampMillis);
    }
    // The clock's wall reading is the largest event time so far. From below zero to far above it
    // the distance may exceed Long.MAX_VALUE: then a second, saturated, step lands on the time.
    while (clock.wallMillis() < timestampMillis) {
      clock.advanceMillis(Saturating.subtract(timestampMillis, clock.wallMillis()));
    }
    truth.merge(new WindowKey(windowStart(timestampMillis), key), 1L, Long::sum);
    recorder.record(recorded.computeIfAbsent(partition, recorder::source), timestampMillis);
    for (SettingRun r : runs) {
      r.add(partition, timestampMillis, key);
    }
  }

  private long windowStart(long t) {
    long w = Math.floorDiv(t, windowMillis);
    return w < Long.MIN_VALUE / windowMillis ? Long.MIN_VALUE : w * windowMillis;
  }

  /** Ends the input and returns one result per setting, in the order of the settings. */
  List<SettingResult> finish() {
    if (clock == null) {
      start(0);
    }
    List<SettingResult> results = new ArrayList<>();
    for (SettingRun r : runs) {
      results.add(r.finish(truth));
    }
    return results;
  }

  /** The advisor's view of the events replayed; empty without an event. */
  Optional<Advice> advice() {
    if (recorder == null || recorder.snapshot().events() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        Advisor.withTargetLateFraction(targetLateFraction).advise(recorder.snapshot()));
  }

  List<Setting> settings() {
    return settings;
  }
}
