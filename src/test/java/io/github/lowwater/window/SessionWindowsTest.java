package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SessionWindows}: each rule of its javadoc at its edge, on a fake clock. */
class SessionWindowsTest {

  private final ManualClock clock = new ManualClock();
  private final List<String> late = new ArrayList<>();

  private SessionWindows<String, Long, Long> gapFive(Duration lateness) {
    return SessionWindows.builder(Duration.ofMillis(5), Aggregators.sumLong())
        .allowedLateness(lateness)
        .clock(clock)
        .lateEventHandler((s, t, end, wm, k, v) -> late.add(t + " end=" + end + " wm=" + wm))
        .build();
  }

  private static List<String> rows(SessionWindows<String, Long, Long> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      rows.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
    }
    return rows;
  }

  @Test
  void theGapIsStrictEventsExactlyAGapApartAreTwoSessions() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ofMillis(100));
    windows.add("p", 10, "a", 1L);
    windows.add("p", 15, "a", 2L); // 15 - 10 == gap: a session of its own
    windows.add("p", 24, "b", 1L);
    windows.add("p", 20, "b", 2L); // 24 - 20 < gap: one session
    windows.finish();
    assertThat(rows(windows)).containsExactly("[10,15) a=1", "[15,20) a=2", "[20,29) b=3");
  }

  @Test
  void aMaximumSpanCutsSessionsAtItsMultiplesEvenWithinTheGap() {
    SessionWindows<String, Long, Long> windows =
        SessionWindows.builder(Duration.ofMillis(5), Aggregators.sumLong())
            .maxSessionSpan(Duration.ofMillis(20))
            .allowedLateness(Duration.ofMillis(100))
            .clock(clock)
            .build();
    windows.add("p", -2, "a", 1L); // cell [-20, 0)
    windows.add("p", 1, "a", 2L); // within the gap of -2, but cell [0, 20)
    windows.add("p", 19, "b", 1L);
    windows.add("p", 16, "b", 2L); // one session in [0, 20)
    windows.add("p", 20, "b", 4L); // 20 - 19 < gap, cell [20, 40): a session of its own
    windows.add("p", -1, "a", 8L); // joins [-2, 3) in its cell, not [1, 6)
    assertThat(windows.stats().openWindows()).isEqualTo(4);
    windows.finish();
    assertThat(rows(windows))
        .containsExactly("[-2,4) a=9", "[1,6) a=2", "[16,24) b=3", "[20,25) b=4");
  }

  @Test
  void aSpanMayNotBeShorterThanTheGapAndIsSetOnce() {
    SessionWindows.Builder<Long, Long> b =
        SessionWindows.builder(Duration.ofSeconds(5), Aggregators.sumLong());
    assertThatThrownBy(() -> b.maxSessionSpan(Duration.ofMillis(4_999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSessionSpan must be at least the gap (PT5S): PT4.999S");
    b.maxSessionSpan(Duration.ofSeconds(5));
    assertThatThrownBy(() -> b.maxSessionSpan(Duration.ofSeconds(9)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxSessionSpan");
    assertThat(b.<String, Long>build().maxSpanMillis()).isEqualTo(5_000);
  }

  @Test
  void theOldestPendingStartCountsOpenAndWaitingSessionsUntilTheyAreDrained() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ZERO);
    assertThat(windows.oldestPendingStartMillis()).isEqualTo(Long.MAX_VALUE);
    windows.add("p", 30, "a", 1L);
    windows.add("p", 10, "b", 1L); // late: 10 + 5 <= 30
    windows.add("p", 28, "c", 1L);
    assertThat(windows.oldestPendingStartMillis()).isEqualTo(28);
    assertThat(windows.pendingSessions()).isEqualTo(2);
    windows.add("p", 34, "d", 1L); // watermark 34: [28,33) is finalized, not drained
    assertThat(windows.oldestPendingStartMillis()).isEqualTo(28);
    assertThat(windows.pendingSessions()).isEqualTo(3);
    assertThat(rows(windows)).containsExactly("[28,33) c=1");
    assertThat(windows.oldestPendingStartMillis()).isEqualTo(30);
    assertThat(windows.pendingSessions()).isEqualTo(2);
  }

  @Test
  void anEventThatJoinsTwoSessionsMergesThem() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ofMillis(100));
    windows.add("p", 10, "a", 1L);
    windows.add("p", 18, "a", 2L);
    assertThat(windows.stats().openWindows()).isEqualTo(2);
    windows.add("p", 14, "a", 4L); // 10 < 14 < 15 and 13 < 14 < 23
    assertThat(windows.stats().openWindows()).isEqualTo(1);
    windows.finish();
    assertThat(rows(windows)).containsExactly("[10,23) a=7");
  }

  @Test
  void anEventIsLateWhenItJoinsNoOpenSessionAndItsGapEndsByTheWatermark() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ZERO);
    windows.add("p", 100, "a", 1L); // watermark 100
    assertThat(windows.add("p", 95, "b", 1L)).as("95 + 5 <= 100").isFalse();
    assertThat(windows.add("p", 96, "b", 1L)).as("96 + 5 > 100").isTrue();
    assertThat(windows.add("p", 95, "a", 1L)).as("95 does not join [100,105)").isFalse();
    assertThat(late).containsExactly("95 end=100 wm=100", "95 end=100 wm=100");
  }

  @Test
  void anEventBehindTheWatermarkThatJoinsAnOpenSessionIsAccepted() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ofMillis(10));
    windows.add("p", 100, "a", 1L); // watermark 90
    windows.add("p", 88, "a", 2L); // a session [88,93) of its own, open
    assertThat(windows.add("p", 84, "a", 4L)).as("84 + 5 <= 90, but 83 < 84 < 93").isTrue();
    assertThat(windows.add("p", 83, "a", 8L)).as("83 joins [84,93)").isTrue();
    assertThat(windows.add("p", 78, "a", 8L)).as("78 + 5 <= 90 and 78 <= 83 - 5").isFalse();
    windows.finish();
    assertThat(rows(windows)).containsExactly("[83,93) a=14", "[100,105) a=1");
  }

  @Test
  void anEmittedSessionNeverChangesALaterEventInItsGapStartsANewOne() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ZERO);
    windows.add("p", 14, "a", 1L);
    windows.add("p", 20, "b", 1L); // watermark 20: a's [14,19) is emitted
    assertThat(rows(windows)).containsExactly("[14,19) a=1");
    assertThat(windows.add("p", 16, "a", 2L)).as("16 + 5 > 20").isTrue();
    windows.finish();
    assertThat(rows(windows)).containsExactly("[16,21) a=2", "[20,25) b=1");
  }

  @Test
  void sessionsComeInAscendingEndThenStartOrder() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ofMillis(100));
    windows.add("p", 10, "b", 1L); // [10,15)
    windows.add("p", 9, "c", 1L);
    windows.add("p", 10, "c", 1L); // [9,15)
    windows.add("p", 3, "a", 1L); // [3,8)
    windows.finish();
    assertThat(rows(windows)).containsExactly("[3,8) a=1", "[9,15) c=2", "[10,15) b=1");
  }

  @Test
  void aFoldOrAMergeThatOverflowsChangesNothing() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ofMillis(100));
    windows.add("p", 10, "a", Long.MAX_VALUE);
    windows.add("p", 18, "a", 5L);
    assertThatThrownBy(() -> windows.add("p", 11, "a", 1L)).isInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> windows.add("p", 14, "a", 0L))
        .as("joins both: the merge overflows")
        .isInstanceOf(ArithmeticException.class);
    assertThat(windows.stats().accepted()).isEqualTo(2);
    assertThat(windows.stats().openWindows()).isEqualTo(2);
    windows.finish();
    assertThat(rows(windows)).containsExactly("[10,15) a=" + Long.MAX_VALUE, "[18,23) a=5");
  }

  @Test
  void theBuilderNamesABadGap() {
    assertThatThrownBy(() -> SessionWindows.builder(Duration.ZERO, Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gap must be >= 1 ms: PT0S");
    assertThatThrownBy(() -> SessionWindows.builder(null, Aggregators.count()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("gap");
  }

  @Test
  void sessionsNearTheUpperBoundSaturateTheirEnd() {
    SessionWindows<String, Long, Long> windows = gapFive(Duration.ZERO);
    windows.add("p", Long.MAX_VALUE - 2, "a", 1L);
    windows.add("p", Long.MAX_VALUE, "a", 1L);
    windows.finish();
    assertThat(rows(windows))
        .containsExactly("[" + (Long.MAX_VALUE - 2) + "," + Long.MAX_VALUE + ") a=2");
  }
}
