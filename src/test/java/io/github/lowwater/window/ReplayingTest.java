package io.github.lowwater.window;

import static io.github.lowwater.window.SessionWindowsEarlyAndLateTest.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link EventTimeWindows#replaying}: while on, the rows with panes are computed, indexes included,
 * and dropped; the rows waiting before and produced after are handed out as usual. Each kind at its
 * edge on a fake clock, one source, the watermark the newest event time (no lateness).
 */
class ReplayingTest {

  @Test
  void tumblingRowsOfAReplayAreDroppedAndTheIndexesGoOnAsIfTheyHadBeenHandedOut() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .earlyResults(Duration.ofMillis(3))
            .grace(Duration.ofMillis(20))
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    w.add(1, "a", 1L);
    w.add(4, "a", 1L); // the early row at 3 waits, produced before the replay
    w.replaying(true);
    w.add(7, "a", 1L); // EARLY#1 at 6: dropped
    w.add(11, "b", 1L); // [0, 10) on time, ON_TIME#2: dropped
    w.add(9, "a", 1L); // a late update, LATE#3: dropped
    w.replaying(false);
    w.add(8, "a", 1L); // LATE#4: handed out
    assertThat(rows(w)).containsExactly("0..10 a=2 EARLY#0", "0..10 a=5 LATE#4");
  }

  @Test
  void hoppingRowsOfAReplayAreDropped() {
    HoppingWindows<String, Long, Long> w =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.sumLong())
            .grace(Duration.ofMillis(20))
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    w.add(1, "a", 1L);
    w.replaying(true);
    w.add(10, "a", 1L); // [-5, 5) and [0, 10) on time: dropped
    w.replaying(false);
    w.add(2, "a", 1L); // late updates of both
    assertThat(rows(w)).containsExactly("-5..5 a=2 LATE#1", "0..10 a=2 LATE#1");
  }

  @Test
  void sessionRowsOfAReplayAreDroppedWithTheStartsTheyReplace() {
    SessionWindows<String, Long, Long> w =
        SessionWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .earlyResults(Duration.ofMillis(3))
            .allowedLateness(Duration.ofMillis(100))
            .clock(new ManualClock())
            .build();
    w.add(5, "a", 1L);
    w.add(9, "a", 1L); // N = 9 passes 8: EARLY#0 of [5, 19)
    w.replaying(true);
    w.add(3, "a", 1L); // the start moves to 3
    w.add(12, "a", 1L); // N = 12 passes 11: EARLY#1 of [3, 22), replacing 5: dropped
    w.replaying(false);
    // N = 15 passes 14: EARLY#2. The start 5 it no longer lists went with the dropped row, which
    // the earlier reading handed out (in Kafka, rows before a replay are the predecessor's too).
    w.add(15, "a", 1L);
    assertThat(rows(w)).containsExactly("5..19 a=2 EARLY#0", "3..25 a=5 EARLY#2");
  }

  @Test
  void withoutPanesReplayingChangesNothing() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    w.add(1, "a", 1L);
    w.replaying(true);
    w.add(11, "a", 1L);
    w.replaying(false);
    assertThat(w.pollFinalized().stream().map(WindowResult::value).toList()).containsExactly(1L);
  }
}
