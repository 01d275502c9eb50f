package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link WindowQueue}'s pool of emptied windows, as {@link TumblingWindows} uses it: how many it
 * keeps after a burst (drained or polled), after windows written elsewhere, and after an event
 * whose window could not open; and that a window in the pool is never one still in use.
 */
class WindowQueueTest {

  private static final long SIZE = 1_000;

  /** Refuses a negative value, as an aggregator that validates its input would. */
  private static final Aggregator<Long, long[], Long> NON_NEGATIVE_SUM =
      Aggregators.of(
          () -> new long[1],
          (a, v) -> {
            if (v < 0) {
              throw new IllegalArgumentException("negative: " + v);
            }
            a[0] += v;
            return a;
          },
          a -> a[0]);

  private static TumblingWindows<String, Long, Long> windows(
      Aggregator<? super Long, ?, Long> aggregator) {
    return TumblingWindows.builder(Duration.ofMillis(SIZE), aggregator)
        .allowedLateness(Duration.ofMillis(300))
        .clock(new ManualClock())
        .build();
  }

  private static List<String> rows(TumblingWindows<String, Long, Long> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      rows.add(r.start() + ".." + r.end() + " " + r.key() + "=" + r.value());
    }
    return rows;
  }

  /** 12 windows of one key, then the slow source: 11 finalized at the next drain, 2 open. */
  private static void burst(TumblingWindows<String, Long, Long> windows) {
    for (long t = 0; t < 12 * SIZE; t += 100) {
      windows.add("fast", t, "k", 1L);
    }
    windows.add("slow", 12 * SIZE, "k", 1L);
  }

  @Test
  void aPollKeepsABurstsWindowsForTheWindowsThatOpenNextAsADrainDoes() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong());
    burst(windows);
    assertThat(rows(windows)).hasSize(11);
    assertThat(windows.spareWindows())
        .as("every emitted window of the burst, as after drainFinalized")
        .isEqualTo(11);
    for (long t = 12 * SIZE; t < 20 * SIZE; t += 100) {
      windows.add("fast", t, "k", 1L); // opens 7 windows: each takes one from the pool
    }
    assertThat(windows.spareWindows()).isEqualTo(4);
  }

  /**
   * Windows written elsewhere ({@code markWritten}) are recycled when they close, never emitted;
   * the pool keeps four of them, the size it has before any drain, not one more.
   */
  @Test
  void windowsWrittenElsewhereGoBackToThePoolUpToItsSize() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong());
    windows.register("slow"); // holds the watermark: the 11 windows close at once
    windows.markWritten(10 * SIZE);
    burst(windows);
    assertThat(windows.stats().finalizedWindows()).as("only [10000, 11000)").isOne();
    assertThat(windows.spareWindows()).isEqualTo(4);
    assertThat(rows(windows)).containsExactly("10000..11000 k=10");
  }

  /**
   * An event whose window had to open, and whose value the aggregator refuses, gives the window
   * back as if it had never opened: the pool keeps it, and it does not count as a window opened
   * since the last drain, so the next drain may still trim the pool.
   */
  @Test
  void aWindowWhoseOpeningFailedGoesBackToThePoolAndDoesNotCountAsOpened() {
    TumblingWindows<String, Long, Long> windows = windows(NON_NEGATIVE_SUM);
    burst(windows);
    windows.drainFinalized((s, e, k, v) -> {});
    assertThat(windows.spareWindows()).isEqualTo(11);
    assertThatThrownBy(() -> windows.add("fast", 20 * SIZE, "k", -1L))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(windows.stats().openWindows()).isEqualTo(2);
    assertThat(windows.spareWindows()).as("the window taken for it came back").isEqualTo(11);
    windows.drainFinalized((s, e, k, v) -> {}); // no window opened since the last drain
    assertThat(windows.spareWindows()).isEqualTo(4);
  }

  /**
   * Regression guard: a refused value for a window already open must not put that window into the
   * pool, or the next window to open would take it over while it still holds its events.
   */
  @Test
  void aRefusedValueForAnOpenWindowLeavesThatWindowOutOfThePool() {
    TumblingWindows<String, Long, Long> windows = windows(NON_NEGATIVE_SUM);
    windows.add("s", 100, "a", 1L);
    assertThat(windows.spareWindows()).isZero();
    assertThatThrownBy(() -> windows.add("s", 200, "a", -1L))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(windows.spareWindows()).isZero();
    windows.add("s", 1_100, "b", 2L); // opens [1000, 2000): from the pool, if it held one
    windows.add("s", 300, "a", 4L);
    windows.finish();
    assertThat(rows(windows)).containsExactly("0..1000 a=5", "1000..2000 b=2");
  }

  /** The pool holds no garbage: a recycled window lets its accumulator objects go at once. */
  @Test
  @SuppressWarnings("unchecked")
  void aRecycledWindowLetsItsAccumulatorsGoBeforeItIsReused() {
    Aggregator<Object, Object, Long> aggregator =
        (Aggregator<Object, Object, Long>) (Aggregator<?, ?, ?>) NON_NEGATIVE_SUM;
    KeyDictionary keys = new KeyDictionary(live -> {});
    WindowQueue<String, Long> queue =
        new WindowQueue<>(keys, aggregator, false, new WindowCounters());
    WindowEntries w = queue.open(0, 10, 0);
    for (int k = 0; k < 3; k++) {
      w.fold(keys.id("k" + k), 1L, aggregator);
    }
    queue.recycle(w);
    assertThat(queue.spareWindows()).isOne();
    for (int position = 0; position < 3; position++) {
      assertThat(w.objectAt(position)).as("position %d", position).isNull();
    }
  }

  /** A queue of {@code long} windows over its own dictionary, for the pool's own tests. */
  @SuppressWarnings("unchecked")
  private static WindowQueue<String, Long> queue(WindowCounters counters) {
    Aggregator<Object, Object, Long> aggregator =
        (Aggregator<Object, Object, Long>) (Aggregator<?, ?, ?>) Aggregators.sumLong();
    return new WindowQueue<>(new KeyDictionary(live -> {}), aggregator, true, counters);
  }

  /** Opens {@code count} windows, then gives them all back. */
  private static void openAndRecycle(WindowQueue<?, ?> queue, int count) {
    List<WindowEntries> opened = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      opened.add(queue.open(i * SIZE, (i + 1) * SIZE, 0));
    }
    opened.forEach(queue::recycle);
  }

  /** A burst: 20 windows open when a drain begins (the peak), all emitted and given back. */
  private static void peakOfTwenty(WindowQueue<?, ?> queue, WindowCounters counters) {
    List<WindowEntries> burst = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      burst.add(queue.open(i * SIZE, (i + 1) * SIZE, 0));
    }
    drainAfterAnEvent(queue, counters, 20);
    burst.forEach(queue::recycle);
  }

  /** A drain of a stream that keeps coming: one event since the previous drain. */
  private static void drainAfterAnEvent(
      WindowQueue<?, ?> queue, WindowCounters counters, long held) {
    counters.accepted();
    queue.sizeSparePool(held);
  }

  /**
   * docs/benchmarks.md, window kinds: on the catch-up feed, polls that opened no window trimmed the
   * pool to the 12 windows held between two bursts, below what the next burst needed, so hopping
   * windows allocated at every burst. While events come, the pool keeps what the recent peak held;
   * only a drain with no event since the previous one (the stream went quiet) trims it to what is
   * held.
   */
  @Test
  void whileEventsComeThePoolKeepsWhatTheRecentPeakHeldAndAQuietDrainTrimsIt() {
    WindowCounters counters = new WindowCounters();
    WindowQueue<String, Long> queue = queue(counters);
    peakOfTwenty(queue, counters);
    assertThat(queue.spareWindows()).isEqualTo(20);
    for (int poll = 0; poll < 4; poll++) {
      drainAfterAnEvent(queue, counters, 5); // no window opened since the previous drain
      assertThat(queue.spareWindows()).as("poll %d", poll).isEqualTo(20);
    }
    queue.sizeSparePool(5); // no event since the previous drain
    assertThat(queue.spareWindows()).isEqualTo(5);
  }

  /**
   * A peak is remembered for the epoch it falls in and the next one, an epoch ending at the drain
   * that finds twice the recent peak of windows opened in it; then the pool follows the state down.
   */
  @Test
  void aPeakIsForgottenTwoEpochsOfOpeningsLater() {
    WindowCounters counters = new WindowCounters();
    WindowQueue<String, Long> queue = queue(counters);
    peakOfTwenty(queue, counters);
    openAndRecycle(queue, 20); // 40 opened: the first epoch ends at the next drain
    drainAfterAnEvent(queue, counters, 5);
    for (int poll = 0; poll < 2; poll++) {
      drainAfterAnEvent(queue, counters, 5);
      assertThat(queue.spareWindows()).as("the epoch after the peak, poll %d", poll).isEqualTo(20);
    }
    openAndRecycle(queue, 40); // the second epoch ends too
    drainAfterAnEvent(queue, counters, 5);
    assertThat(queue.spareWindows()).as("windows opened: no trim").isEqualTo(20);
    drainAfterAnEvent(queue, counters, 5);
    assertThat(queue.spareWindows()).isEqualTo(5);
  }

  /** A quiet drain forgets the peak of the epoch before as well as this one's. */
  @Test
  void aQuietDrainForgetsThePeakOfTheEpochBefore() {
    WindowCounters counters = new WindowCounters();
    WindowQueue<String, Long> queue = queue(counters);
    peakOfTwenty(queue, counters);
    openAndRecycle(queue, 20);
    drainAfterAnEvent(queue, counters, 5); // a new epoch: the peak of 20 is the one before
    queue.sizeSparePool(5);
    assertThat(queue.spareWindows()).isEqualTo(5);
  }
}
