package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Early results and the grace period of {@link TumblingWindows} (semantics rules 50 to 53), each
 * rule at its edge, on a fake clock. Windows of 100 ms; one source, so that the watermark is the
 * newest event time minus the allowed lateness.
 */
class TumblingWindowsPanesTest {

  private static final Duration SIZE = Duration.ofMillis(100);
  private final ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000_000));
  private final List<String> late = new ArrayList<>();

  private TumblingWindows.Builder<Long, Long> sum(long latenessMillis) {
    return TumblingWindows.builder(SIZE, Aggregators.sumLong())
        .allowedLateness(Duration.ofMillis(latenessMillis))
        .clock(clock)
        .lateEventHandler((s, t, end, wm, k, v) -> late.add(k + "@" + t));
  }

  /** A row as text: {@code start key=value TIMING#index} and {@code !} if final. */
  static List<String> rows(EventTimeWindows<String, ?, ?> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, ?> r : windows.pollFinalized()) {
      rows.add(
          r.start()
              + " "
              + r.key()
              + "="
              + r.value()
              + " "
              + r.timing()
              + "#"
              + r.index()
              + (r.isFinal() ? "!" : ""));
    }
    return rows;
  }

  @Test
  void anEarlyRowComesWhenTheNewestEventTimeFirstReachesAMarkAndNotOneMillisecondBefore() {
    TumblingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(10)).build();
    w.add(0, "a", 1L);
    w.add(9, "b", 2L);
    assertThat(rows(w)).isEmpty(); // the newest time is 9: the first mark is 10
    w.add(10, "a", 4L);
    assertThat(rows(w)).containsExactly("0 a=5 EARLY#0", "0 b=2 EARLY#0");
    w.add(19, "a", 1L);
    assertThat(rows(w)).isEmpty();
    w.add(20, "c", 1L); // b did not change: no row for it
    assertThat(rows(w)).containsExactly("0 a=6 EARLY#1", "0 c=1 EARLY#0");
    assertThat(w.watermark()).isNegative(); // the early rows came long before the window's end
    assertThat(w.stats().earlyRows()).isEqualTo(4);
  }

  @Test
  void aJumpPastSeveralMarksFiresOnceAndAWindowFiresOnlyAtMarksBelowItsEnd() {
    TumblingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(10)).build();
    w.add(1, "a", 1L);
    w.add(95, "a", 1L); // past the marks 10 .. 90: one firing
    assertThat(rows(w)).containsExactly("0 a=2 EARLY#0");
    w.add(99, "a", 1L);
    w.add(100, "b", 1L); // opens [100, 200); the window [0, 100) has no mark at 100
    w.add(130, "a", 7L); // keys in the order of their first event in the window
    assertThat(rows(w)).containsExactly("100 b=1 EARLY#0", "100 a=7 EARLY#0");
  }

  @Test
  void aWindowOpenedBehindTheNewestEventTimeFiresOnlyAtTheMarksReachedAfterwards() {
    TumblingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(30)).build();
    w.observe("s", 250); // the newest time is 250, and no window is open
    w.add("s", 205, "a", 1L); // opens [200, 300): its mark 230 is behind 250, never reached
    w.add("s", 259, "a", 1L);
    assertThat(rows(w)).isEmpty();
    w.add("s", 260, "a", 1L); // the mark 260
    assertThat(rows(w)).containsExactly("200 a=3 EARLY#0");
  }

  @Test
  void theEventThatOpensAWindowFiresTheMarksItReaches() {
    TumblingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(30)).build();
    w.add(250, "x", 1L); // opens [200, 300) and reaches its mark 230
    assertThat(rows(w)).containsExactly("200 x=1 EARLY#0");
    w.add(10, "a", 1L); // opens [0, 100): every mark is behind 250
    w.add(290, "x", 1L); // [200, 300) passes 260 and 290: one row
    assertThat(rows(w)).containsExactly("200 x=2 EARLY#1");
    w.finish();
    assertThat(rows(w)).containsExactly("0 a=1 ON_TIME#0!", "200 x=2 ON_TIME#2!");
  }

  @Test
  void theOnTimeRowAlwaysComesWithTheNextIndexEvenWhenNothingChanged() {
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(SIZE, Aggregators.maxLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .earlyResults(Duration.ofMillis(10))
            .<String, Long>build();
    w.add(0, "a", 5L);
    w.add(10, "a", 3L); // mark 10: a's first row
    w.add(20, "a", 4L); // mark 20: max still 5, no row
    assertThat(rows(w)).containsExactly("0 a=5 EARLY#0");
    w.add(100, "b", 1L); // the watermark reaches 100: the on-time row, unchanged value
    assertThat(rows(w)).containsExactly("0 a=5 ON_TIME#1!");
  }

  @Test
  void withinTheGracePeriodAnEventGivesALateRowAndAtEndPlusGraceItIsLate() {
    TumblingWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(50)).build();
    w.add(10, "a", 1L);
    w.add(100, "b", 1L); // the watermark is 100: [0, 100)'s on-time row, not final
    assertThat(rows(w)).containsExactly("0 a=1 ON_TIME#0");
    w.add(20, "a", 2L); // 100 < 150: a late update
    w.add(30, "c", 4L); // a key new to the window: its first row is LATE
    w.add(149, "b", 1L);
    w.add(40, "a", 1L); // 149 < 150: still a late update
    assertThat(rows(w)).containsExactly("0 a=3 LATE#1", "0 c=4 LATE#0", "0 a=4 LATE#2");
    w.add(150, "b", 1L); // the watermark reaches end + grace: [0, 100) retires
    w.add(50, "a", 1L);
    assertThat(late).containsExactly("a@50");
    assertThat(rows(w)).isEmpty();
    assertThat(w.stats().lateUpdates()).isEqualTo(3);
    assertThat(w.stats().retiredWindows()).isEqualTo(1);
    assertThat(w.isLate(99, "a")).isTrue();
    assertThat(w.isLate(100, "a")).isFalse(); // [100, 200) is open
  }

  @Test
  void theOnTimeRowIsFinalIffTheWatermarkIsAlreadyAtEndPlusGrace() {
    TumblingWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(50)).build();
    w.add(10, "a", 1L);
    w.add(110, "b", 1L);
    w.add(249, "c", 1L); // [100, 200) on time at 249 < 250: not final
    w.add(260, "c", 1L); // 260 >= 200 + 50: [100, 200) retires, no row
    assertThat(rows(w)).containsExactly("0 a=1 ON_TIME#0", "100 b=1 ON_TIME#0");
    w.add(400, "d", 1L); // [200, 300) is on time at 400 >= 350: final
    assertThat(rows(w)).containsExactly("200 c=2 ON_TIME#0!");
    w.finish(); // the watermark at the end of time: every on-time row final
    assertThat(rows(w)).containsExactly("400 d=1 ON_TIME#0!");
  }

  @Test
  void aLateUpdateThatOpensAWindowGivesLateRowsFromIndexZeroAndNoOnTimeRow() {
    TumblingWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(200)).build();
    w.add(500, "x", 1L); // the watermark is 500
    w.add(320, "a", 1L); // [300, 400) was never opened: 400 <= 500 < 600
    w.add(330, "a", 1L);
    assertThat(rows(w)).containsExactly("300 a=1 LATE#0", "300 a=2 LATE#1");
    w.add(600, "x", 1L); // [300, 400) retires; [500, 600) is on time, final? 600 < 800: no
    assertThat(rows(w)).containsExactly("500 x=1 ON_TIME#0");
    w.add(310, "a", 1L);
    assertThat(late).containsExactly("a@310");
    assertThat(w.stats().retiredWindows()).isEqualTo(1);
  }

  @Test
  void earlyRowsLateRowsAndTheOnTimeRowOfOneKeyCountTheirIndexTogether() {
    TumblingWindows<String, Long, Long> w =
        sum(0).earlyResults(Duration.ofMillis(40)).grace(Duration.ofMillis(100)).build();
    w.add(0, "a", 1L);
    w.add(40, "a", 1L); // EARLY#0
    w.add(80, "a", 1L); // EARLY#1
    w.add(100, "b", 1L); // ON_TIME#2 for a; and [100, 200) opens
    w.add(50, "a", 1L); // LATE#3
    assertThat(rows(w))
        .containsExactly("0 a=2 EARLY#0", "0 a=3 EARLY#1", "0 a=3 ON_TIME#2", "0 a=4 LATE#3");
  }

  @Test
  void aRowKeepsTheValueItHadWhenLaterEventsChangeTheAccumulatorObject() {
    Aggregator<String, List<String>, String> joined =
        Aggregators.of(
            ArrayList::new,
            (list, v) -> {
              list.add(v); // mutates the accumulator in place
              return list;
            },
            (l, r) -> {
              l.addAll(r);
              return l;
            },
            list -> String.join("+", list));
    TumblingWindows<String, String, String> w =
        TumblingWindows.builder(SIZE, joined)
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .earlyResults(Duration.ofMillis(10))
            .grace(Duration.ofMillis(50))
            .<String, String>build();
    w.add(0, "k", "p");
    w.add(10, "k", "q"); // EARLY#0 = p+q
    w.add(15, "k", "r");
    w.add(20, "j", "s"); // EARLY#1 = p+q+r, and j's first row
    w.add(100, "z", "t"); // the on-time rows
    w.add(30, "k", "u"); // LATE#3
    assertThat(rows(w))
        .containsExactly(
            "0 k=p+q EARLY#0",
            "0 k=p+q+r EARLY#1",
            "0 j=s EARLY#0",
            "0 k=p+q+r ON_TIME#2",
            "0 j=s ON_TIME#1",
            "0 k=p+q+r+u LATE#3");
  }

  @Test
  void aVisitorThatThrowsLeavesItsRowFirstForTheNextDrain() {
    TumblingWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(10)).build();
    w.add(0, "a", 1L);
    w.add(1, "b", 1L);
    w.add(10, "c", 1L); // three early rows
    List<String> seen = new ArrayList<>();
    ResultVisitor<String, Long> failingOnB =
        new ResultVisitor<>() {
          @Override
          public void visit(long start, long end, String key, Long result) {
            throw new AssertionError("the windows call the pane methods");
          }

          @Override
          public void visitLongPane(
              long start, long end, String key, long result, Timing t, int index, boolean f) {
            if (key.equals("b") && seen.size() == 1) {
              seen.add("threw at b");
              throw new IllegalStateException("sink down");
            }
            seen.add(key + "=" + result + " " + t + "#" + index);
          }
        };
    assertThatThrownBy(() -> w.drainFinalized(failingOnB))
        .isInstanceOf(IllegalStateException.class);
    assertThat(w.drainFinalized(failingOnB)).isEqualTo(2);
    assertThat(seen).containsExactly("a=1 EARLY#0", "threw at b", "b=1 EARLY#0", "c=1 EARLY#0");
    assertThat(w.drainFinalized(failingOnB)).isZero();
  }

  @Test
  void withoutEarlyResultsAndGraceTheOldVisitorMethodsGetEveryRowAsBefore() {
    TumblingWindows<String, Long, Long> w = sum(0).build();
    w.add(0, "a", 1L);
    w.add(100, "b", 1L);
    List<String> seen = new ArrayList<>();
    w.drainFinalized(
        new ResultVisitor<String, Long>() {
          @Override
          public void visit(long start, long end, String key, Long result) {
            throw new AssertionError("a long aggregator's rows go to visitLong");
          }

          @Override
          public void visitLong(long start, long end, String key, long result) {
            seen.add(start + " " + key + "=" + result);
          }
        });
    assertThat(seen).containsExactly("0 a=1");
    assertThat(w.stats().earlyRows()).isZero();
    assertThat(w.stats().retiredWindows()).isEqualTo(1); // without panes: when finalized
  }

  @Test
  void badPaneOptionsAreRefusedByName() {
    assertThatThrownBy(() -> sum(0).earlyResults(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("earlyResults must be >= 1 ms: PT0S");
    assertThatThrownBy(() -> sum(0).grace(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("grace must be >= 0: PT-0.001S");
    assertThatThrownBy(() -> sum(0).grace(Duration.ZERO).grace(Duration.ZERO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("grace was already set to PT0S");
    assertThatThrownBy(
            () -> sum(0).earlyResults(Duration.ofMillis(5)).earlyResults(Duration.ofMillis(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("earlyResults was already set to PT0.005S");
    Aggregator<Long, long[], Long> noMerge =
        new Aggregator<>() {
          public long[] create() {
            return new long[1];
          }

          public long[] add(long[] a, Long v) {
            a[0] += v;
            return a;
          }

          public Long result(long[] a) {
            return a[0];
          }
        };
    assertThatThrownBy(
            () -> TumblingWindows.builder(SIZE, noMerge).grace(Duration.ofMillis(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("early results and a grace period")
        .hasMessageContaining("Aggregator.merge");
    TumblingWindows.builder(SIZE, noMerge).grace(Duration.ZERO).build(); // no panes: no merge
    HoppingWindows.builder(SIZE, Duration.ofMillis(50), Aggregators.count())
        .earlyResults(Duration.ofMillis(10))
        .build(); // hopping windows have panes
    SessionWindows.builder(SIZE, Aggregators.count())
        .grace(Duration.ofMillis(1))
        .build(); // and session windows (rule 56)
    SessionWindows.builder(SIZE, Aggregators.count()).grace(Duration.ZERO).build();
  }
}
