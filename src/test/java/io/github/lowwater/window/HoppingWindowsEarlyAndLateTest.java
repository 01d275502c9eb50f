package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Early results and the grace period of {@link HoppingWindows} (semantics rule 55), each at its
 * edge on a fake clock: windows of 30 ms every 10 ms, so that an event falls into three windows;
 * one source, so that the watermark is the newest event time minus the allowed lateness.
 */
class HoppingWindowsEarlyAndLateTest {

  private static final Duration SIZE = Duration.ofMillis(30);
  private static final Duration ADVANCE = Duration.ofMillis(10);

  private static HoppingWindows.Builder<Long, Long> sum(long latenessMillis) {
    return HoppingWindows.builder(SIZE, ADVANCE, Aggregators.sumLong())
        .allowedLateness(Duration.ofMillis(latenessMillis))
        .clock(new ManualClock());
  }

  /** A row as text: {@code start key=value TIMING#index} and {@code !} if final. */
  private static List<String> rows(EventTimeWindows<String, ?, ?> windows) {
    return TumblingWindowsPanesTest.rows(windows);
  }

  @Test
  void eachWindowOfAnEventFiresAtItsOwnMarks() {
    HoppingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(10)).build();
    w.add(1, "a", 1L); // into [-20, 10), [-10, 20), [0, 30): their marks -10 and 0, 0, 10
    assertThat(rows(w)).containsExactly("-20 a=1 EARLY#0", "-10 a=1 EARLY#0");
    w.add(10, "a", 2L); // into [-10, 20), [0, 30), [10, 40); the mark 10 of the first two
    assertThat(rows(w)).containsExactly("-10 a=3 EARLY#1", "0 a=3 EARLY#0");
    w.add(19, "a", 0L);
    assertThat(rows(w)).isEmpty(); // no mark in (10, 19]
    w.add(20, "a", 0L); // the mark 20 of [0, 30) and [10, 40); [0, 30) did not change
    assertThat(rows(w)).containsExactly("10 a=2 EARLY#0");
    assertThat(w.stats().earlyRows()).isEqualTo(5);
  }

  @Test
  void anEventGoesIntoEachOfItsWindowsNotRetiredAndGivesALateRowInEachInGrace() {
    HoppingWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(15)).build();
    w.add(5, "a", 1L); // into [-20, 10), [-10, 20), [0, 30)
    w.add(25, "a", 2L); // into [0, 30), [10, 40), [20, 50); the watermark 25
    assertThat(rows(w)).containsExactly("-20 a=1 ON_TIME#0!", "-10 a=1 ON_TIME#0");
    w.add(12, "a", 4L); // [-10, 20) is in its grace period; [0, 30) and [10, 40) are open
    assertThat(rows(w)).containsExactly("-10 a=5 LATE#1");
    w.add(3, "b", 8L); // [-20, 10) retired (10 + 15 <= 25): partially late
    assertThat(rows(w)).containsExactly("-10 b=8 LATE#0");
    w.add(-5, "a", 1L); // only [-10, 20) of its three windows is left
    assertThat(rows(w)).containsExactly("-10 a=6 LATE#2");
    assertThat(w.add(-20, "a", 1L)).isFalse(); // its last window [-20, 10) retired: late
    w.add(35, "a", 1L); // the watermark 35: [0, 30) on time, [-10, 20) retires
    assertThat(rows(w)).containsExactly("0 a=7 ON_TIME#0", "0 b=8 ON_TIME#0");
    w.finish();
    assertThat(rows(w))
        .containsExactly("10 a=7 ON_TIME#0!", "20 a=3 ON_TIME#0!", "30 a=1 ON_TIME#0!");
    WindowStats stats = w.stats();
    assertThat(stats.lateUpdates()).isEqualTo(3);
    assertThat(stats.partiallyLate()).isEqualTo(2);
    assertThat(stats.late()).isEqualTo(1);
    assertThat(stats.retiredWindows()).isEqualTo(6);
    assertThat(stats.finalizedWindows()).isEqualTo(6);
    assertThat(stats.openWindows()).isZero();
  }

  @Test
  void aLongFoldThatOverflowsInOneWindowChangesNoWindowOfTheEvent() {
    HoppingWindows<String, Long, Long> w = sum(1_000).grace(Duration.ofMillis(1)).build();
    w.add(15, "a", Long.MAX_VALUE - 1); // into [-10, 20), [0, 30), [10, 40)
    w.add(-5, "b", 1L); // into [-30, 0), [-20, 10), [-10, 20)
    long accepted = w.stats().accepted();
    long entries = w.stats().openEntries();
    long windows = w.stats().openWindows();
    // Into [-20, 10) (a is new there), then [-10, 20), where a overflows, and [0, 30).
    assertThatThrownBy(() -> w.add(5, "a", 5L)).isInstanceOf(ArithmeticException.class);
    assertThat(w.stats().accepted()).isEqualTo(accepted);
    assertThat(w.stats().openEntries()).isEqualTo(entries);
    assertThat(w.stats().openWindows()).isEqualTo(windows);
    w.finish();
    assertThat(rows(w))
        .containsExactly(
            "-30 b=1 ON_TIME#0!",
            "-20 b=1 ON_TIME#0!",
            "-10 a=9223372036854775806 ON_TIME#0!",
            "-10 b=1 ON_TIME#0!",
            "0 a=9223372036854775806 ON_TIME#0!",
            "10 a=9223372036854775806 ON_TIME#0!");
  }

  /**
   * An object aggregator: the event's new accumulators are copies, made before any is kept, so that
   * an {@code add} that throws in one window leaves the others as they were, and a row keeps the
   * value it had when later events change its window.
   */
  @Test
  void anAggregatorThatThrowsInOneWindowChangesNoWindowOfTheEventAndRowsKeepTheirValues() {
    HoppingWindows<String, Long, List<Long>> w =
        HoppingWindows.builder(SIZE, ADVANCE, PanedStoreTest.PICKY)
            .allowedLateness(Duration.ofMillis(1_000))
            .earlyResults(Duration.ofMillis(10))
            .clock(new ManualClock())
            .build();
    w.add(15, "a", 1L); // [-10, 20), [0, 30), [10, 40) hold [1]; the marks 0 and 10 fire
    w.add(25, "a", 2L); // [0, 30) and [10, 40) hold [1, 2], [20, 50) [2]; the mark 20 fires
    // [-10, 20) would take it, [0, 30) refuses it: no window changes.
    assertThatThrownBy(() -> w.add(16, "a", 3L)).isInstanceOf(IllegalStateException.class);
    w.add(5, "b", 1L); // into [-20, 10), [-10, 20), [0, 30)
    w.finish();
    assertThat(rows(w))
        .containsExactly(
            "-10 a=[1] EARLY#0",
            "0 a=[1] EARLY#0",
            "0 a=[1, 2] EARLY#1",
            "10 a=[1, 2] EARLY#0",
            "-20 b=[1] ON_TIME#0!",
            "-10 a=[1] ON_TIME#1!",
            "-10 b=[1] ON_TIME#0!",
            "0 a=[1, 2] ON_TIME#2!",
            "0 b=[1] ON_TIME#0!",
            "10 a=[1, 2] ON_TIME#1!",
            "20 a=[2] ON_TIME#0!");
  }
}
