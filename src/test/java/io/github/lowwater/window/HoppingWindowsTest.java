package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link HoppingWindows}: each rule of its javadoc at its edge, on a fake clock. */
class HoppingWindowsTest {

  private final ManualClock clock = new ManualClock();
  private final List<String> late = new ArrayList<>();

  /** Size 10, advance 5, no lateness: the event at t belongs to two windows. */
  private HoppingWindows<String, Long, Long> tenEveryFive() {
    return HoppingWindows.builder(
            Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.sumLong())
        .allowedLateness(Duration.ZERO)
        .clock(clock)
        .lateEventHandler((s, t, end, wm, k, v) -> late.add(t + " end=" + end + " wm=" + wm))
        .build();
  }

  private static List<String> rows(EventTimeWindows<String, Long, Long> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      rows.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
    }
    return rows;
  }

  @Test
  void theBuilderNamesABadSizeAdvanceOrAggregator() {
    assertThatThrownBy(
            () ->
                HoppingWindows.builder(
                    Duration.ofMillis(5), Duration.ofMillis(6), Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("advance must be <= size (PT0.005S): PT0.006S");
    assertThatThrownBy(
            () -> HoppingWindows.builder(Duration.ofMillis(5), Duration.ZERO, Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("advance must be >= 1 ms: PT0S");
    Aggregator<Long, long[], Long> noMerge =
        new Aggregator<>() {
          @Override
          public long[] create() {
            return new long[1];
          }

          @Override
          public long[] add(long[] acc, Long value) {
            acc[0] += value;
            return acc;
          }

          @Override
          public Long result(long[] acc) {
            return acc[0];
          }
        };
    HoppingWindows.Builder<Long, Long> builder =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), noMerge);
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hopping windows combine accumulators with Aggregator.merge");
  }

  @Test
  void anEventIsLateOnlyOnceItsLastWindowIsFinalized() {
    HoppingWindows<String, Long, Long> windows = tenEveryFive();
    windows.add("p", 20, "k", 1L); // watermark 20: [10,20) closed, [15,25) open
    assertThat(windows.add("p", 14, "k", 1L)).as("[5,15) and [10,20) closed").isFalse();
    assertThat(windows.add("p", 15, "k", 2L)).as("[15,25) open").isTrue();
    assertThat(late).containsExactly("14 end=20 wm=20");
    assertThat(windows.stats().partiallyLate()).as("15 missed [10,20)").isEqualTo(1);
    assertThat(windows.stats().late()).isEqualTo(1);
    windows.finish();
    assertThat(rows(windows)).containsExactly("[15,25) k=3", "[20,30) k=1");
  }

  @Test
  void aPartiallyLateEventStaysOutOfAFinalizedWindowNotYetDrained() {
    HoppingWindows<String, Long, Long> windows = tenEveryFive();
    windows.add("p", 12, "k", 1L);
    windows.add("p", 20, "k", 10L); // finalizes [5,15) and [10,20), not drained
    windows.add("p", 16, "k", 100L); // its pane [15,20) is in [10,20) and [15,25)
    assertThat(rows(windows)).containsExactly("[5,15) k=1", "[10,20) k=1");
    windows.finish();
    assertThat(rows(windows)).containsExactly("[15,25) k=110", "[20,30) k=10");
  }

  @Test
  void keysComeInTheOrderOfTheWindowsPanesThenOfTheirFirstEvent() {
    HoppingWindows<String, Long, Long> windows =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(100))
            .clock(clock)
            .build();
    windows.add("p", 7, "b", 1L); // pane [5,10)
    windows.add("p", 3, "a", 1L); // pane [0,5)
    windows.add("p", 4, "c", 1L);
    windows.add("p", 8, "a", 1L);
    windows.finish();
    assertThat(rows(windows))
        .containsExactly(
            "[-5,5) a=1",
            "[-5,5) c=1",
            "[0,10) a=2",
            "[0,10) c=1",
            "[0,10) b=1",
            "[5,15) b=1",
            "[5,15) a=1");
  }

  @Test
  void anOffsetShiftsEveryWindow() {
    HoppingWindows<String, Long, Long> windows =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(4), Aggregators.sumLong())
            .offset(Duration.ofMillis(-7)) // starts at 4k + 1
            .clock(clock)
            .build();
    windows.add("p", 9, "k", 1L);
    windows.finish();
    assertThat(rows(windows)).containsExactly("[1,11) k=1", "[5,15) k=1", "[9,19) k=1");
    assertThatThrownBy(
            () ->
                HoppingWindows.builder(
                        Duration.ofMillis(10), Duration.ofMillis(4), Aggregators.sumLong())
                    .offset(Duration.ZERO)
                    .offset(Duration.ZERO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("offset was already set to PT0S");
  }

  @Test
  void anEventTimeWhoseWindowsLeaveTheLongRangeIsRefusedAndChangesNothing() {
    HoppingWindows<String, Long, Long> windows = tenEveryFive();
    assertThatThrownBy(() -> windows.add("p", Long.MAX_VALUE - 9, "k", 1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("for hopping windows of size 10 ms: " + (Long.MAX_VALUE - 9));
    assertThatThrownBy(() -> windows.add("p", Long.MIN_VALUE + 9, "k", 1L))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(windows.stats().added()).isZero();
    assertThat(windows.watermark()).isEqualTo(tenEveryFive().watermark());
    windows.add("q", Long.MIN_VALUE + 10, "k", 2L); // first: the watermark stays low
    windows.add("p", Long.MAX_VALUE - 10, "k", 1L);
    windows.finish();
    long bottom = Long.MIN_VALUE + 10 - Math.floorMod(Long.MIN_VALUE + 10, 5);
    long top = Long.MAX_VALUE - 10 - Math.floorMod(Long.MAX_VALUE - 10, 5);
    assertThat(rows(windows))
        .containsExactly(
            "[" + (bottom - 5) + "," + (bottom + 5) + ") k=2",
            "[" + bottom + "," + (bottom + 10) + ") k=2",
            "[" + (top - 5) + "," + (top + 5) + ") k=1",
            "[" + top + "," + (top + 10) + ") k=1");
  }

  @Test
  void aMergeThatThrowsDuringADrainLeavesTheWindowQueuedUnchanged() {
    AtomicBoolean fail = new AtomicBoolean(true);
    Aggregator<Long, long[], Long> flaky =
        Aggregators.of(
            () -> new long[1],
            (long[] acc, Long v) -> {
              acc[0] += v;
              return acc;
            },
            (long[] a, long[] b) -> {
              if (fail.get() && b[0] == 2) {
                throw new IllegalStateException("merge failed");
              }
              a[0] += b[0];
              return a;
            },
            (long[] acc) -> acc[0]);
    HoppingWindows<String, Long, Long> windows =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), flaky)
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build();
    windows.add("p", 1, "k", 1L);
    windows.add("p", 7, "k", 2L);
    windows.add("p", 30, "k", 4L);
    assertThatThrownBy(windows::pollFinalized).hasMessage("merge failed");
    List<String> drained = new ArrayList<>();
    assertThatThrownBy(() -> windows.drainFinalized((s, e, k, v) -> drained.add(s + "=" + v)))
        .hasMessage("merge failed");
    assertThat(drained)
        .as("[-5,5) went out; [0,10) combines its second pane")
        .containsExactly("-5=1");
    fail.set(false);
    assertThat(rows(windows)).containsExactly("[0,10) k=3", "[5,15) k=2");
  }

  @Test
  void aPaneIsFreedOnceTheLastWindowHoldingItIsDrained() {
    HoppingWindows<String, Long, Long> windows = tenEveryFive();
    windows.add("p", 1, "k", 1L);
    windows.add("p", 6, "k", 1L);
    assertThat(windows.stats().openWindows()).as("two panes").isEqualTo(2);
    windows.add("p", 10, "k", 1L); // finalizes [-5,5) and [0,10); pane [0,5) retired
    assertThat(windows.stats().openWindows()).as("[5,10) and [10,15) open").isEqualTo(2);
    assertThat(windows.stats().finalizedWindows()).isEqualTo(2);
    assertThat(rows(windows)).containsExactly("[-5,5) k=1", "[0,10) k=2");
    windows.finish();
    assertThat(rows(windows)).containsExactly("[5,15) k=2", "[10,20) k=1");
    assertThat(windows.stats().openWindows()).isZero();
    assertThat(windows.stats().openEntries()).isZero();
  }

  /**
   * {@code windowable} says beforehand what {@code add} refuses: hopping windows take no event
   * within a size of the {@code long} bounds, tumbling and session windows take every {@code long}
   * (the Kafka driver routes such a record to the late path instead of failing every poll; issue
   * 32, defect 5).
   */
  @Test
  void windowableSaysWhichEventTimesAddRefuses() {
    HoppingWindows<String, Long, Long> h =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.count())
            .clock(new ManualClock())
            .build();
    assertThat(h.windowable(Long.MAX_VALUE - 10)).isTrue();
    assertThat(h.windowable(Long.MAX_VALUE - 9)).isFalse();
    assertThat(h.windowable(Long.MIN_VALUE + 10)).isTrue();
    assertThat(h.windowable(Long.MIN_VALUE + 9)).isFalse();
    assertThatThrownBy(() -> h.add("s", Long.MAX_VALUE - 9, "k", 1L))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(h.add("s", Long.MAX_VALUE - 10, "k", 1L)).isTrue();
    TumblingWindows<String, Long, Long> t =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.count())
            .clock(new ManualClock())
            .build();
    SessionWindows<String, Long, Long> s =
        SessionWindows.builder(Duration.ofMillis(10), Aggregators.count())
            .clock(new ManualClock())
            .build();
    assertThat(t.windowable(Long.MAX_VALUE)).isTrue();
    assertThat(t.windowable(Long.MIN_VALUE)).isTrue();
    assertThat(s.windowable(Long.MAX_VALUE)).isTrue();
  }
}
