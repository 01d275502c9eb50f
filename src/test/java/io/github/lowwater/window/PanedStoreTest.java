package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PanedStore}, through the kinds that hold one: the dictionary's sweep keeps the keys of the
 * windows open and in their grace period, a fold that throws leaves the window it would have opened
 * unopened and the one it reached intact, and a window written elsewhere ({@code markWritten})
 * gives no row of any timing, to the millisecond.
 */
class PanedStoreTest {

  private static final Duration SIZE = Duration.ofMillis(100);

  private static List<String> rows(EventTimeWindows<String, ?, ?> windows) {
    return TumblingWindowsPanesTest.rows(windows);
  }

  /**
   * 10,000 new keys fill the dictionary, which sweeps: the key of a window in its grace period and
   * the keys of the open window keep their ids, so the late update finds its key's row sequence and
   * every key of the open window comes out under its own name.
   */
  @Test
  void aSweepKeepsTheKeysOfTheWindowsOpenAndInTheirGracePeriod() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(SIZE, Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .grace(Duration.ofMillis(500))
            .clock(new ManualClock())
            .build();
    w.add(0, "held", 1L);
    w.add(150, "k0", 0L); // [0, 100) on time, then in its grace period until 600
    assertThat(rows(w)).containsExactly("0 held=1 ON_TIME#0");
    for (int k = 1; k < 10_000; k++) {
      w.add(150, "k" + k, (long) k);
    }
    w.add(50, "held", 2L);
    assertThat(rows(w)).containsExactly("0 held=3 LATE#1");
    w.finish();
    List<String> last = rows(w);
    assertThat(last).hasSize(10_000);
    for (int k = 0; k < 10_000; k++) {
      assertThat(last.get(k)).isEqualTo("100 k" + k + "=" + k + " ON_TIME#0!");
    }
  }

  /** The same for hopping windows, whose event falls into two windows. */
  @Test
  void aSweepKeepsTheKeysOfHoppingWindowsOpenAndInTheirGracePeriod() {
    HoppingWindows<String, Long, Long> w =
        HoppingWindows.builder(SIZE, Duration.ofMillis(50), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .grace(Duration.ofMillis(500))
            .clock(new ManualClock())
            .build();
    w.add(10, "held", 1L); // into [-50, 50) and [0, 100)
    w.add(160, "k0", 0L); // into [100, 200) and [150, 250); the first two on time
    assertThat(rows(w)).containsExactly("-50 held=1 ON_TIME#0", "0 held=1 ON_TIME#0");
    for (int k = 1; k < 5_000; k++) {
      w.add(160, "k" + k, (long) k);
    }
    w.add(40, "held", 2L);
    assertThat(rows(w)).containsExactly("-50 held=3 LATE#1", "0 held=3 LATE#1");
    w.finish();
    List<String> last = rows(w);
    assertThat(last).hasSize(10_000);
    for (int k = 0; k < 5_000; k++) {
      assertThat(last.get(k)).isEqualTo("100 k" + k + "=" + k + " ON_TIME#0!");
      assertThat(last.get(5_000 + k)).isEqualTo("150 k" + k + "=" + k + " ON_TIME#0!");
    }
  }

  /** Lists values; its {@code add} refuses the value 99 and a third value. */
  static final Aggregator<Long, List<Long>, List<Long>> PICKY =
      Aggregators.of(
          ArrayList::new,
          (list, v) -> {
            if (v == 99 || list.size() == 2) {
              throw new IllegalStateException("refused: " + v + " into " + list);
            }
            list.add(v);
            return list;
          },
          (left, right) -> {
            left.addAll(right);
            return left;
          },
          List::copyOf);

  @Test
  void aFoldThatThrowsOpensNoWindowAndLeavesTheWindowItReachedIntact() {
    TumblingWindows<String, Long, List<Long>> w =
        TumblingWindows.builder(SIZE, PICKY)
            .allowedLateness(Duration.ofMillis(1_000))
            .grace(Duration.ofMillis(10))
            .clock(new ManualClock())
            .build();
    w.add(1, "a", 1L);
    w.add(2, "a", 2L);
    assertThatThrownBy(() -> w.add(3, "a", 3L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> w.add(150, "b", 99L)).isInstanceOf(IllegalStateException.class);
    assertThat(w.stats().openWindows()).isEqualTo(1);
    assertThat(w.stats().openEntries()).isEqualTo(1);
    w.add(250, "c", 5L); // a window opens after the failures, from the pool
    w.finish();
    assertThat(rows(w)).containsExactly("0 a=[1, 2] ON_TIME#0!", "200 c=[5] ON_TIME#0!");
  }

  /**
   * A window that ends exactly where the windows were written elsewhere gives no early, on-time or
   * late row; the next window gives all three.
   */
  @Test
  void aWindowEndingWhereTheWindowsWereWrittenGivesNoRowOfAnyTiming() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(SIZE, Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .earlyResults(Duration.ofMillis(10))
            .grace(Duration.ofMillis(100))
            .clock(new ManualClock())
            .build();
    w.markWritten(100);
    w.add(5, "a", 1L);
    w.add(15, "a", 1L); // the mark 10 of [0, 100), which was written
    w.add(105, "a", 1L);
    w.add(115, "a", 1L); // the mark 110 of [100, 200); [0, 100) is on time, and written
    w.add(50, "a", 1L); // a late update of [0, 100)
    assertThat(rows(w)).containsExactly("100 a=2 EARLY#0");
    w.add(200, "a", 1L); // [100, 200) on time; [0, 100) retires
    w.add(150, "a", 1L); // a late update of [100, 200)
    assertThat(rows(w))
        .containsExactly("100 a=2 ON_TIME#1", "100 a=3 LATE#2")
        .noneMatch(r -> r.startsWith("0 "));
  }

  /**
   * "No mark left" is {@code Long.MAX_VALUE}: a newest event time that reaches it fires no window
   * whose marks were all used up (found by review), of either kind.
   */
  @Test
  void aNewestEventTimeAtTheLongBoundFiresNoWindowWhoseMarksAreUsedUp() {
    HoppingWindows<String, Long, Long> hopping =
        HoppingWindows.builder(Duration.ofMillis(30), Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(1_000))
            .earlyResults(Duration.ofMillis(10))
            .clock(new ManualClock())
            .build();
    hopping.add(
        "s", 25, "a", 1L); // [0, 30) fires at its marks 10 and 20 (none left), [10, 40) at 20
    assertThat(rows(hopping)).containsExactly("0 a=1 EARLY#0", "10 a=1 EARLY#0");
    hopping.add("s", 26, "a", 1L);
    hopping.observe("s", Long.MAX_VALUE); // [10, 40) and [20, 50) still have the mark 30 or 40
    assertThat(rows(hopping))
        .containsExactly(
            "10 a=2 EARLY#1",
            "20 a=2 EARLY#0",
            "0 a=2 ON_TIME#1!",
            "10 a=2 ON_TIME#2!",
            "20 a=2 ON_TIME#1!");
    TumblingWindows<String, Long, Long> tumbling =
        TumblingWindows.builder(SIZE, Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(1_000))
            .earlyResults(Duration.ofMillis(10))
            .clock(new ManualClock())
            .build();
    tumbling.add("s", 95, "a", 1L); // [0, 100)'s last mark, 90
    tumbling.add("s", 96, "a", 1L);
    tumbling.observe("s", Long.MAX_VALUE);
    assertThat(rows(tumbling)).containsExactly("0 a=1 EARLY#0", "0 a=2 ON_TIME#1!");
  }

  @Test
  void tooManyWindowsPerEventAreRefusedWithPanes() {
    HoppingWindows.Builder<Long, Long> tooMany =
        HoppingWindows.builder(Duration.ofDays(100), Duration.ofMillis(1), Aggregators.sumLong())
            .grace(Duration.ofMillis(1));
    assertThatThrownBy(tooMany::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 1048576")
        .hasMessageContaining("size / advance is 8640000000")
        .hasMessageContaining("PT2400H");
    HoppingWindows.builder(Duration.ofDays(100), Duration.ofMillis(1), Aggregators.sumLong())
        .build(); // without panes, slices: any ratio
    HoppingWindows.builder(
            Duration.ofMillis(HoppingWindows.Builder.MAX_WINDOWS_PER_EVENT),
            Duration.ofMillis(1),
            Aggregators.sumLong())
        .grace(Duration.ofMillis(1))
        .build(); // exactly the most
  }
}
