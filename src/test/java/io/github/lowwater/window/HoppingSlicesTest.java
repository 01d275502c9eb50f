package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link HoppingSlices}, the sliced path of {@link HoppingWindows} without early results and grace,
 * through the kind: the order a window gathers its panes (slices) in, windows of many panes, the
 * keys of retired panes across a dictionary sweep, and the pool the panes and windows go back to.
 */
class HoppingSlicesTest {

  private static HoppingWindows<String, Long, Long> windows(long sizeMillis, long advanceMillis) {
    return HoppingWindows.builder(
            Duration.ofMillis(sizeMillis), Duration.ofMillis(advanceMillis), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(new ManualClock())
        .build();
  }

  /** The rows of the windows finalized since the last call, "[start,end) key=value". */
  private static List<String> rows(HoppingWindows<String, Long, Long> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      rows.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
    }
    return rows;
  }

  /**
   * Rule 4 when a window has more panes than are held (100 panes of 1 ms, four held), so that it
   * gathers them by filtering the held panes rather than probing each start: the keys still come in
   * the order of the window's panes, oldest first, not in the order the panes opened.
   */
  @Test
  void aWindowGatheringFromFewHeldPanesListsItsKeysInPaneOrder() {
    HoppingWindows<String, Long, Long> windows = windows(100, 1);
    windows.register("slow");
    windows.add("fast", 30, "c", 3L);
    windows.add("fast", 10, "a", 1L);
    windows.add("fast", 20, "b", 2L);
    windows.add("fast", 100, "d", 4L);
    windows.add("slow", 100, "d", 4L); // watermark 100: [0, 100) and every earlier window close
    List<String> rows = rows(windows);
    assertThat(rows)
        .filteredOn(r -> r.startsWith("[0,100) "))
        .containsExactly("[0,100) a=1", "[0,100) b=2", "[0,100) c=3");
    assertThat(rows)
        .filteredOn(r -> r.startsWith("[-75,25) "))
        .containsExactly("[-75,25) a=1", "[-75,25) b=2");
    assertThat(rows).hasSize(20 + 10 + 70 * 3);
  }

  /** A window of 40 panes of which 25 hold events: every one of them is combined. */
  @Test
  void aWindowCombinesEveryOneOfItsManyPanes() {
    HoppingWindows<String, Long, Long> windows = windows(40, 1);
    for (long t = 0; t < 25; t++) {
      windows.add("s", t, "k", 1L << t);
    }
    windows.finish();
    List<String> expected = new ArrayList<>();
    for (long start = -39; start < 25; start++) {
      long sum = 0;
      for (long t = Math.max(0, start); t < Math.min(25, start + 40); t++) {
        sum += 1L << t;
      }
      expected.add("[" + start + "," + (start + 40) + ") k=" + sum);
    }
    assertThat(rows(windows)).containsExactlyElementsOf(expected);
  }

  /**
   * A pane whose windows are all finalized but not drained is retired, not gone: the sweep that new
   * keys cause before the drain must keep its keys, or its windows would name other keys.
   */
  @Test
  void theKeysOfARetiredPaneSurviveTheSweepsThatNewKeysCauseBeforeTheDrain() {
    HoppingWindows<String, Long, Long> windows = windows(10, 5);
    windows.add("s", 1, "a", 1L);
    windows.add("s", 2, "b", 2L);
    windows.add("s", 3, "c", 3L);
    windows.add("s", 20, "d", 4L); // [-5, 5) and [0, 10) finalized; the pane [0, 5) retired
    for (int k = 0; k < 100; k++) {
      windows.add("s", 21 + k / 10, "n" + k, 1L); // the dictionary fills and sweeps
    }
    assertThat(windows.stats().partiallyLate()).isZero();
    assertThat(rows(windows))
        .startsWith(
            "[-5,5) a=1", "[-5,5) b=2", "[-5,5) c=3", "[0,10) a=1", "[0,10) b=2", "[0,10) c=3");
  }

  /**
   * Once the last window is drained, its pane and both windows are back in the pool: a pane is
   * released by the last window that holds it, not one later.
   */
  @Test
  void afterTheLastDrainThePaneAndItsWindowsAreAllKeptForReuse() {
    HoppingWindows<String, Long, Long> windows = windows(10, 5);
    windows.add("s", 1, "a", 1L);
    windows.finish();
    assertThat(rows(windows)).containsExactly("[-5,5) a=1", "[0,10) a=1");
    assertThat(windows.spareWindows()).as("one pane, two windows").isEqualTo(3);
  }

  /** 48 panes of 5 ms, then the catch-up: 47 windows finalized, [-5, 5) to [225, 235). */
  private static void burst(HoppingWindows<String, Long, Long> windows) {
    windows.register("slow");
    for (long t = 0; t < 240; t++) {
      windows.add("fast", t, "k" + (t % 3), 1L);
    }
    windows.add("slow", 240, "k0", 1L);
  }

  /**
   * A poll sizes the pool as a drain does: both keep every pane and window that the burst freed,
   * for the ones that open next.
   */
  @Test
  void aPollKeepsABurstsPanesAndWindowsAsADrainDoes() {
    HoppingWindows<String, Long, Long> polled = windows(10, 5);
    HoppingWindows<String, Long, Long> drained = windows(10, 5);
    burst(polled);
    burst(drained);
    assertThat(rows(polled)).hasSize(47 * 3);
    assertThat(drained.drainFinalized((s, e, k, v) -> {})).isEqualTo(47 * 3);
    assertThat(drained.spareWindows())
        .as("47 windows and the 46 panes they alone held")
        .isEqualTo(93);
    assertThat(polled.spareWindows()).isEqualTo(93);
  }

  /**
   * Bursts of 24 windows over 24 panes of 200 keys: once the pool has grown to a burst (the first
   * burst gives back 47, so the second allocates one), every pane and window comes from the pool,
   * which runs dry exactly when the burst's last window opens, and each drain gives all 48 back: a
   * burst allocates no pane and no window.
   */
  @Test
  void eachBurstReusesThePanesAndWindowsTheBurstBeforeGaveBack() {
    HoppingWindows<String, Long, Long> windows = windows(1_000, 500);
    windows.register("slow");
    long t = 0;
    for (int cycle = 0; cycle < 6; cycle++) {
      int fewestSpare = Integer.MAX_VALUE;
      for (int i = 0; i < 12 * 200; i++) {
        t += 5;
        windows.add("fast", t, "key-" + i % 200, 1L);
        fewestSpare = Math.min(fewestSpare, windows.spareWindows());
      }
      int beforeCatchUp = windows.spareWindows();
      windows.add("slow", t, "key-0", 1L); // the slow source catches up: 24 windows finalize
      int afterCatchUp = windows.spareWindows();
      long finalized = windows.stats().finalizedWindows();
      windows.drainFinalized((s, e, k, v) -> {});
      if (cycle > 1) {
        String what = "burst " + cycle;
        assertThat(finalized).as(what).isEqualTo(24L * (cycle + 1));
        assertThat(fewestSpare).as(what + ": 24 panes opened from the pool").isEqualTo(24);
        assertThat(beforeCatchUp).as(what).isEqualTo(24);
        assertThat(afterCatchUp).as(what + ": 24 windows opened from the pool").isZero();
        assertThat(windows.spareWindows()).as(what + ": all given back").isEqualTo(48);
      }
    }
  }

  /**
   * docs/benchmarks.md, window kinds: hopping windows allocated 1.2 B per event at steady state on
   * the catch-up feed. Each lap, the slow source held the watermark while the fast one opened
   * panes, then caught up: a burst of windows. Between bursts, polls that opened no pane or window
   * trimmed the spare pool to what was held, below what the next burst needed, so every burst
   * allocated the panes and windows trimmed away. Here, with drains every 25 events, bursts of 24
   * panes and 19 windows over 200 keys, and a stretch of ordinary progress between them, 100,000
   * events after four warm-up cycles allocate nothing (under 4 KB: the JIT may allocate).
   */
  @Test
  void atSteadyStateCyclesOfCatchUpAllocateNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    HoppingWindows<String, Long, Long> windows = windows(600, 100);
    windows.register("slow");
    String[] keys = new String[200];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = "key-" + k;
    }
    Long one = 1L;
    long[] sum = {0};
    ResultVisitor<String, Long> sink =
        new ResultVisitor<>() {
          @Override
          public void visit(long start, long end, String key, Long value) {
            sum[0] += value;
          }

          @Override
          public void visitLong(long start, long end, String key, long value) {
            sum[0] += value;
          }
        };
    long[] t = {0};
    int[] events = {0};
    Runnable cycle =
        () -> {
          for (int i = 0; i < 2_400; i++) { // the slow source lags: 24 panes open
            event(windows, "fast", ++t[0], keys, events, sink);
          }
          windows.add("slow", t[0], keys[0], one); // it catches up: a burst of 19 windows
          events[0]++;
          for (int i = 0; i < 1_000; i++) { // then both progress: a pane and a window per 100
            event(windows, "fast", ++t[0], keys, events, sink);
            event(windows, "slow", t[0], keys, events, sink);
          }
        };
    for (int warm = 0; warm < 4; warm++) {
      cycle.run();
    }
    long finalizedBefore = windows.stats().finalizedWindows();
    int eventsBefore = events[0];
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int measured = 0; measured < 23; measured++) {
      cycle.run();
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(events[0] - eventsBefore).isGreaterThan(100_000);
    assertThat(windows.stats().finalizedWindows() - finalizedBefore).isEqualTo(23 * 34);
    assertThat(allocated)
        .as("bytes allocated by %d events in 23 cycles", events[0] - eventsBefore)
        .isLessThan(4_096);
    assertThat(sum[0]).isPositive();
  }

  /** Adds one event of a key picked by the event count, and drains every 25 events. */
  private static void event(
      HoppingWindows<String, Long, Long> windows,
      String source,
      long t,
      String[] keys,
      int[] events,
      ResultVisitor<String, Long> sink) {
    windows.add(source, t, keys[events[0] % keys.length], 1L);
    if (++events[0] % 25 == 0) {
      windows.drainFinalized(sink);
    }
  }
}
