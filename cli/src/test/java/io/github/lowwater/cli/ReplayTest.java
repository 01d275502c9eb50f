package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The replay's counts on hand-made inputs, each worked out in the comments. */
class ReplayTest {

  private static final long S = 1_000;

  @Test
  void lateEventsWrongWindowsAndDelaysPerLateness() {
    Replay replay =
        new Replay(
            60 * S,
            List.of(
                new Setting(0, 600 * S),
                new Setting(30 * S, 600 * S),
                new Setting(120 * S, 600 * S)),
            1e-4);
    // One partition, one key. Truth: [0, 60) = 4, [60, 120) = 1, [120, 180) = 1.
    replay.accept(0, 0, 0, "a");
    replay.accept(0, 1, 10 * S, "a");
    replay.accept(0, 2, 70 * S, "a"); // lateness 0: the watermark is 70 s, [0, 60) closes
    replay.accept(0, 3, 50 * S, "a"); // late under 0 only
    replay.accept(0, 4, 130 * S, "a"); // 0: [60, 120) closes; 30 s: watermark 100, [0, 60) closes
    replay.accept(0, 5, 5 * S, "a"); // late under 0 and 30 s; 2 m: watermark 10 s, on time

    List<SettingResult> r = replay.finish();
    assertThat(r)
        .extracting(SettingResult::late, SettingResult::windowsWrong, SettingResult::windows)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2L, 1L, 3L),
            org.assertj.core.groups.Tuple.tuple(1L, 1L, 3L),
            org.assertj.core.groups.Tuple.tuple(0L, 0L, 3L));
    // Delays: 0 closes [0, 60) at 70 s and [60, 120) at 130 s, 10 s each; 30 s closes [0, 60) at
    // 130 s, 70 s after its end; 2 m closes nothing before the end of the input.
    assertThat(r.get(0).delayP50Millis()).isEqualTo(10 * S);
    assertThat(r.get(0).delayP99Millis()).isEqualTo(10 * S);
    assertThat(r.get(1).delayP50Millis()).isEqualTo(70 * S);
    assertThat(r.get(2).delayP50Millis()).isEqualTo(-1);
    assertThat(r.get(2).peakOpenWindows()).isEqualTo(3);
    assertThat(r.get(0).peakOpenWindows()).isEqualTo(1);
    assertThat(r.get(0).events()).isEqualTo(6);
    assertThat(r.get(0).lateFraction()).isEqualTo(2.0 / 6);
  }

  @Test
  void aPartitionThatFallsBehindTheDataByMoreThanTheIdleTimeoutGoesIdle() {
    Replay replay =
        new Replay(60 * S, List.of(new Setting(0, 10 * S), new Setting(0, 60 * S)), 1e-4);
    replay.accept(0, 0, 0, "a");
    replay.accept(1, 0, 0, "a");
    replay.accept(0, 1, 5 * S, "a");
    replay.accept(0, 2, 20 * S, "a"); // p1 silent for 20 s of event time: idle under 10 s
    replay.accept(1, 1, 21 * S, "a"); // p1 returns
    replay.accept(0, 3, 40 * S, "a"); // p1 silent for 19 s: idle again under 10 s, and stays

    List<SettingResult> r = replay.finish();
    assertThat(r.get(0).idleTransitions()).isEqualTo(2);
    assertThat(r.get(1).idleTransitions()).isZero();
  }

  /**
   * Regression (issue 16): the clock's advance from a negative event time to {@code Long.MAX_VALUE}
   * overflowed and threw; so did the delay of a window that ends below zero and closes at {@code
   * Long.MAX_VALUE}. Both saturate: the clock reaches the largest event time, the delay is forever.
   */
  @Test
  void theClockAndTheDelaysSaturateAtTheEndsOfEventTime() {
    Replay replay = new Replay(60 * S, List.of(new Setting(0, 600 * S)), 1e-4);
    replay.accept(0, 0, -100 * S, "a"); // the clock starts at -100 s; window [-120 s, -60 s)
    replay.accept(0, 1, Long.MAX_VALUE, "a"); // closes it, Long.MAX_VALUE + 60 s after its end
    List<SettingResult> r = replay.finish();
    assertThat(r.get(0).events()).isEqualTo(2);
    // The window of Long.MAX_VALUE ends there (saturated) and closes at once: a delay of 0.
    assertThat(r.get(0).delayP50Millis()).isZero();
    assertThat(r.get(0).delayP99Millis()).isEqualTo(Long.MAX_VALUE);
    assertThat(replay.advice()).isPresent();
  }

  @Test
  void anEmptyInputGivesZeroRowsAndNoAdvice() {
    Replay replay = new Replay(60 * S, List.of(new Setting(0, 10 * S)), 1e-4);
    assertThat(replay.finish())
        .containsExactly(new SettingResult(new Setting(0, 10 * S), 0, 0, 0, 0, -1, -1, 0, 0));
    assertThat(replay.advice()).isEmpty();
  }

  @Test
  void theAdviceComesFromTheReplayedEvents() {
    Replay replay = new Replay(60 * S, List.of(new Setting(0, 10 * S)), 0.3);
    replay.accept(0, 0, 10 * S, "a");
    replay.accept(0, 1, 9 * S, "a"); // 1 s behind: held in the bucket [1000, 1003], so above 1 s
    replay.accept(0, 2, 11 * S, "a");
    assertThat(replay.advice().orElseThrow().lateness().allowedLatenessMillis()).isEqualTo(2_000);
  }

  @Test
  void samplesGiveNearestRankPercentiles() {
    LongSamples s = new LongSamples();
    assertThat(s.percentile(50)).isEqualTo(-1);
    for (long v = 100; v >= 1; v--) {
      s.add(v);
    }
    assertThat(s.size()).isEqualTo(100);
    assertThat(s.percentile(50)).isEqualTo(50);
    assertThat(s.percentile(99)).isEqualTo(99);
    assertThat(s.percentile(0)).isEqualTo(1);
    assertThat(s.percentile(100)).isEqualTo(100);
  }
}
