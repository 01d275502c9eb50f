package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PaneReference}, the naive reference of the panes of {@link TumblingWindows} and {@link
 * HoppingWindows}, pinned to the rules of issue 18 (semantics rules 50 to 55) by hand-built traces
 * whose every row is worked out in the comment above it, and, with early results and grace off, to
 * today's {@link TumblingWindows} over random traces. A reference that is wrong would make {@code
 * PanesModelTest} fail the right windows, so it is tested first.
 */
class PaneReferenceTest {

  private static final String S = "s";

  /** One source, an allowed lateness of {@code latenessMillis}, no source ever idle. */
  private static WatermarkTracker tracker(long latenessMillis) {
    return WatermarkTracker.builder()
        .allowedLateness(Duration.ofMillis(latenessMillis))
        .idleTimeout(Duration.ofHours(1))
        .clock(new ManualClock())
        .build();
  }

  private static PaneReference.Shape shape(long size, long early, long grace) {
    return new PaneReference.Shape(size, early, grace);
  }

  /** The rows produced since {@code from}, as "TIMING [start,end) key=value #index (final)". */
  private static List<String> rows(PaneReference<?> reference, int from) {
    List<String> rows = new ArrayList<>();
    List<? extends WindowResult<String, ?>> all = reference.rows();
    for (WindowResult<String, ?> r : all.subList(from, all.size())) {
      rows.add(
          r.timing()
              + " ["
              + r.start()
              + ","
              + r.end()
              + ") "
              + r.key()
              + "="
              + r.value()
              + " #"
              + r.index()
              + (r.isFinal() ? " final" : ""));
    }
    return rows;
  }

  private static List<String> rows(PaneReference<?> reference) {
    return rows(reference, 0);
  }

  /**
   * Size 10, marks every 3 ms (3, 6, 9 past the start), one event per window, each event raising N
   * by 10: a window fires at the first rise past one of its marks, a rise past no mark of a window
   * fires nothing, and every window gets its on-time row at {@code finish()}.
   */
  @Test
  void eachWindowWithOneEventFiresOnceAtTheFirstRiseThatPassesOneOfItsMarks() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 0), tracker(1_000));
    ref.add(S, 1, "k", 1); // N = 1: [0,10)'s first mark is 3
    assertThat(rows(ref)).isEmpty();
    ref.add(S, 11, "k", 2); // N 1 -> 11: [0,10) passes 3, 6, 9; [10,20)'s first mark is 13
    assertThat(rows(ref)).containsExactly("EARLY [0,10) k=1 #0");
    ref.add(S, 21, "k", 3); // N 11 -> 21: [10,20) passes 13, 16, 19; [20,30)'s is 23
    assertThat(rows(ref, 1)).containsExactly("EARLY [10,20) k=2 #0");
    ref.finish();
    assertThat(rows(ref, 2))
        .containsExactly(
            "ON_TIME [0,10) k=1 #1 final",
            "ON_TIME [10,20) k=2 #1 final",
            "ON_TIME [20,30) k=3 #0 final");
    assertThat(ref.earlyRows()).isEqualTo(2);
    assertThat(ref.retiredWindows()).isEqualTo(3);
  }

  /** N jumps from 0 to 9, past the marks 3, 6 and 9 of [0,10): one firing, one row per key. */
  @Test
  void aRiseThatPassesSeveralMarksAtOnceFiresTheWindowOnceInFirstEventOrder() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 0), tracker(1_000));
    ref.add(S, 0, "b", 2);
    ref.add(S, 0, "a", 1);
    ref.add(S, 9, "a", 10); // N 0 -> 9
    assertThat(rows(ref)).containsExactly("EARLY [0,10) b=2 #0", "EARLY [0,10) a=11 #0");
    assertThat(ref.earlyRows()).isEqualTo(2);
  }

  /**
   * {@code observe} raises N to 14 past the mark 13 of [10,20) before the window exists; the event
   * at 10 that opens it fires nothing (a mark {@code <= N} at opening never fires), a rise to 15
   * passes no mark, and the rise to 16 fires it.
   */
  @Test
  void aWindowOpenedBehindNFiresOnlyAtTheMarksNReachesAfterwards() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 0), tracker(1_000));
    ref.observe(S, 14);
    assertThat(ref.newest()).isEqualTo(14);
    ref.add(S, 10, "a", 1);
    ref.add(S, 15, "a", 1);
    assertThat(rows(ref)).isEmpty();
    ref.add(S, 16, "a", 1);
    assertThat(rows(ref)).containsExactly("EARLY [10,20) a=3 #0");
  }

  /**
   * A built-in long value that a firing finds equal to its last row's (a max that a smaller value
   * left unchanged, a sum that +3 and -3 left unchanged) gets no early row; the key after it in the
   * same window, whose value changed, does.
   */
  @Test
  void anUnchangedLongValueGetsNoEarlyRowAndAChangedOneInTheSameFiringDoes() {
    PaneReference<Long> max = PaneReference.max(shape(10, 3, 0), tracker(1_000));
    max.add(S, 4, "a", 5); // N -> 4 passes 3
    max.add(S, 4, "b", 1);
    assertThat(rows(max)).containsExactly("EARLY [0,10) a=5 #0");
    max.add(S, 5, "b", 2);
    max.add(S, 7, "a", 2); // a stays 5; N 5 -> 7 passes 6
    assertThat(rows(max, 1)).containsExactly("EARLY [0,10) b=2 #0");
    assertThat(max.unchangedSkips()).isEqualTo(1);

    PaneReference<Long> sum = PaneReference.sum(shape(10, 3, 0), tracker(1_000));
    sum.add(S, 4, "a", 5);
    sum.add(S, 5, "a", 3);
    sum.add(S, 7, "a", -3); // 5 again when N passes 6
    assertThat(rows(sum)).containsExactly("EARLY [0,10) a=5 #0");
    assertThat(sum.earlyRows()).isEqualTo(1);
  }

  /**
   * The same trace with an object aggregator whose result does not change either: a value folded
   * since the last row is enough for an early row, whatever the result.
   */
  @Test
  void anObjectAggregatorFiresAKeyWithAValueFoldedSinceItsLastRowEvenIfTheResultIsEqual() {
    Aggregator<Long, long[], Long> objectMax =
        Aggregators.of(
            () -> new long[] {Long.MIN_VALUE},
            (a, v) -> new long[] {Math.max(a[0], v)},
            (a, b) -> new long[] {Math.max(a[0], b[0])},
            a -> a[0]);
    PaneReference<Long> ref = PaneReference.of(objectMax, shape(10, 3, 0), tracker(1_000));
    ref.add(S, 4, "a", 5);
    ref.add(S, 7, "a", 2);
    ref.add(S, 8, "b", 1); // N 7 -> 8 passes no mark: no firing
    assertThat(rows(ref)).containsExactly("EARLY [0,10) a=5 #0", "EARLY [0,10) a=5 #1");
    ref.observe(S, 9); // passes 9: b has no row yet, a nothing folded since its last
    assertThat(rows(ref, 2)).containsExactly("EARLY [0,10) b=1 #0");
  }

  /** The on-time row comes for every key, even one whose value equals its last early row's. */
  @Test
  void theOnTimeRowComesForEveryKeyEvenWhenItEqualsTheLastEarlyRow() {
    PaneReference<Long> ref = PaneReference.count(shape(10, 3, 0), tracker(0));
    ref.add(S, 0, "a", 0);
    ref.add(S, 3, "b", 0); // N 0 -> 3: a=1, b=1; W = 3
    ref.add(S, 10, "c", 0); // W = 10: [0,10) on time, final (grace 0), retired
    assertThat(rows(ref))
        .containsExactly(
            "EARLY [0,10) a=1 #0",
            "EARLY [0,10) b=1 #0",
            "ON_TIME [0,10) a=1 #1 final",
            "ON_TIME [0,10) b=1 #1 final");
    assertThat(ref.retiredWindows()).isEqualTo(1);
  }

  /**
   * Within one event, the early rows of the firing it causes come before the on-time rows its
   * observation closes: the event at 14 fires [0,10) (marks 6, 9) and [10,20) (mark 13), then
   * raises W to 14 - 4 = 10, which closes [0,10).
   */
  @Test
  void theEarlyRowsOfAnEventComeBeforeTheOnTimeRowsItsObservationCloses() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 0), tracker(4));
    ref.add(S, 5, "a", 1); // N = 5 passes 3; W = 1
    ref.add(S, 5, "a", 1);
    ref.add(S, 14, "b", 2);
    assertThat(rows(ref))
        .containsExactly(
            "EARLY [0,10) a=1 #0",
            "EARLY [0,10) a=2 #1",
            "EARLY [10,20) b=2 #0",
            "ON_TIME [0,10) a=2 #2 final");
  }

  /**
   * Grace 5, lateness 0: [0,10) is on time at W = 10, not final; an event of it at W = 12 and at W
   * = 14 is a late update (a LATE row with the next index, the whole value, not final); a new key
   * in grace gets a LATE row of index 0 and no on-time row; at W = 15 = e + G the window retires
   * with no row, and its next event is late.
   */
  @Test
  void lateUpdatesWithinGraceGetLateRowsUntilTheWindowRetiresAtEndPlusGrace() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, PaneReference.EARLY_OFF, 5), tracker(0));
    ref.add(S, 3, "a", 1);
    ref.add(S, 12, "a", 1); // W = 12
    assertThat(rows(ref)).containsExactly("ON_TIME [0,10) a=1 #0");
    assertThat(ref.add(S, 4, "a", 2)).isTrue();
    assertThat(ref.add(S, 5, "b", 7)).isTrue();
    ref.add(S, 14, "a", 1); // W = 14 = e + G - 1: still in grace
    assertThat(ref.add(S, 6, "a", 4)).isTrue();
    assertThat(rows(ref, 1))
        .containsExactly("LATE [0,10) a=3 #1", "LATE [0,10) b=7 #0", "LATE [0,10) a=7 #2");
    assertThat(ref.retiredWindows()).isZero();
    ref.add(S, 15, "a", 1); // W = 15 = e + G: retired, no row
    assertThat(rows(ref, 4)).isEmpty();
    assertThat(ref.retiredWindows()).isEqualTo(1);
    assertThat(ref.add(S, 7, "a", 8)).isFalse();
    assertThat(rows(ref, 4)).isEmpty();
    assertThat(ref.late()).isEqualTo(1);
    assertThat(ref.lateUpdates()).isEqualTo(3);
  }

  /**
   * A window whose first event arrives in grace (W = 12, [0,10) held nothing when W reached 10)
   * gets a LATE row of index 0 and never an ON_TIME row: its on-time moment passed while it was
   * empty (the reading of the rules this reference takes; see its class javadoc).
   */
  @Test
  void aWindowWhoseFirstEventArrivesInGraceGetsALateRowAndNoOnTimeRow() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 5), tracker(0));
    ref.add(S, 12, "a", 1); // W = 12
    assertThat(ref.add(S, 5, "b", 7)).isTrue();
    ref.add(S, 19, "a", 1); // N 12 -> 19 fires [10,20); W = 19 retires [0,10), with no row
    assertThat(rows(ref)).containsExactly("LATE [0,10) b=7 #0", "EARLY [10,20) a=2 #0");
    assertThat(ref.retiredWindows()).isEqualTo(1);
    assertThat(ref.lateUpdates()).isEqualTo(1);
  }

  /**
   * N that lands exactly on a mark fires at it; the next rise starts above that mark, so the same
   * mark never fires a second time, even for a key folded since.
   */
  @Test
  void aMarkThatNReachedExactlyDoesNotFireAgainAtTheNextRise() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 0), tracker(1_000));
    ref.add(S, 3, "a", 1); // N = 3: the mark 3 fires
    ref.add(S, 2, "a", 1);
    ref.add(S, 5, "a", 1); // N 3 -> 5: no mark in (3, 5]
    assertThat(rows(ref)).containsExactly("EARLY [0,10) a=1 #0");
    ref.add(S, 6, "a", 1); // N 5 -> 6: the mark 6
    assertThat(rows(ref, 1)).containsExactly("EARLY [0,10) a=4 #1");
  }

  /**
   * Size 10, delta 5: the marks are {@code s + k * delta < e}, so 5 only; N passing 10, the end,
   * fires nothing, and the next window fires at its own first mark, 15.
   */
  @Test
  void theWindowsEndIsNotOneOfItsMarksWhenTheDeltaDividesTheSize() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 5, 0), tracker(1_000));
    ref.add(S, 5, "a", 1);
    ref.add(S, 6, "a", 1);
    ref.add(S, 10, "b", 1);
    assertThat(rows(ref)).containsExactly("EARLY [0,10) a=1 #0");
    ref.observe(S, 15);
    assertThat(rows(ref, 1)).containsExactly("EARLY [10,20) b=1 #0");
  }

  /**
   * With grace 0, an event of a window whose on-time row was produced is late (today's rule {@code
   * e <= W}), and the window retired at its on-time row.
   */
  @Test
  void withoutGraceAnEventOfAnOnTimeWindowIsLate() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, PaneReference.EARLY_OFF, 0), tracker(0));
    ref.add(S, 3, "a", 1);
    ref.add(S, 10, "a", 1);
    assertThat(ref.retiredWindows()).isEqualTo(1);
    assertThat(ref.add(S, 9, "a", 1)).isFalse();
    assertThat(rows(ref)).containsExactly("ON_TIME [0,10) a=1 #0 final");
    assertThat(ref.late()).isEqualTo(1);
    assertThat(ref.lateUpdates()).isZero();
  }

  /**
   * {@code finish()} sets W to {@code Long.MAX_VALUE}: every open window gets its on-time row,
   * final however long the grace; a window in grace gets no further row; all retire; every later
   * event is late.
   */
  @Test
  void finishGivesEveryOpenWindowAFinalOnTimeRowAndRetiresEveryWindow() {
    PaneReference<Long> ref = PaneReference.sum(shape(10, 3, 100), tracker(0));
    ref.add(S, 1, "a", 1);
    ref.add(S, 12, "a", 2); // N 1 -> 12 fires [0,10); W = 12: [0,10) on time, not final
    ref.add(S, 25, "b", 3); // fires [10,20) (13) and [20,30) (23); W = 25: [10,20) on time
    int before = ref.rows().size();
    assertThat(rows(ref))
        .containsExactly(
            "EARLY [0,10) a=1 #0",
            "ON_TIME [0,10) a=1 #1",
            "EARLY [10,20) a=2 #0",
            "EARLY [20,30) b=3 #0",
            "ON_TIME [10,20) a=2 #1");
    ref.finish();
    assertThat(rows(ref, before)).containsExactly("ON_TIME [20,30) b=3 #1 final");
    assertThat(ref.retiredWindows()).isEqualTo(3);
    assertThat(ref.heldWindows()).isZero();
    assertThat(ref.add(S, Long.MAX_VALUE - 1, "a", 1)).isFalse();
    assertThat(ref.late()).isEqualTo(1);
  }

  /**
   * Window bounds saturate at the {@code long} range, as {@code TumblingWindows.windowEnd} does:
   * the window of {@code Long.MIN_VALUE} starts there, that of {@code Long.MAX_VALUE} ends there.
   */
  @Test
  void windowBoundsSaturateAtTheLongRange() {
    PaneReference<Long> ref = PaneReference.count(shape(3, PaneReference.EARLY_OFF, 0), tracker(0));
    ref.add(S, Long.MIN_VALUE, "a", 0);
    ref.add(S, Long.MAX_VALUE, "a", 0);
    ref.finish();
    assertThat(ref.rows())
        .extracting(WindowResult::start, WindowResult::end)
        .containsExactly(
            tuple(Long.MIN_VALUE, Long.MIN_VALUE + 2), tuple(Long.MAX_VALUE - 1, Long.MAX_VALUE));
  }

  /**
   * With early results and grace off, the reference is today's {@link TumblingWindows}: the same
   * rows (on time, index 0, final) in the same order, the same verdicts and late count, over random
   * traces with several sources, idleness, {@code advanceTo}, {@code refresh} and {@code observe}.
   * This pins the reference's use of its own tracker, and its order of closing, to the windows.
   */
  @Test
  void withPanesOffTheReferenceAgreesWithTodaysTumblingWindowsOverRandomTraces() {
    long late = 0;
    for (int trace = 0; trace < Trials.of(1_000); trace++) {
      late += runTodaysTrace(new Random(trace), trace);
    }
    assertThat(late).as("late events").isGreaterThan(Trials.of(1_000));
  }

  private static long runTodaysTrace(Random random, int trace) {
    long size = 1 + random.nextInt(20);
    long lateness = random.nextInt(10);
    long idle = 1 + random.nextInt(20);
    long base = new long[] {0, -1_000, 1_000_000}[random.nextInt(3)];
    ManualClock clock = new ManualClock(Instant.ofEpochMilli(base));
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(lateness))
            .idleTimeout(Duration.ofMillis(idle))
            .clock(clock)
            .build();
    PaneReference<Long> ref =
        PaneReference.sum(
            shape(size, PaneReference.EARLY_OFF, 0),
            WatermarkTracker.builder()
                .allowedLateness(Duration.ofMillis(lateness))
                .idleTimeout(Duration.ofMillis(idle))
                .clock(clock)
                .build());
    List<WindowResult<String, Long>> drained = new ArrayList<>();
    int sources = 1 + random.nextInt(3);
    int steps = 5 + random.nextInt(80);
    StringBuilder log = new StringBuilder();
    for (int i = 0; i < steps; i++) {
      clock.advanceMillis(random.nextInt(3));
      String source = "s" + random.nextInt(sources);
      long t = clock.wallMillis() + random.nextInt(2 * (int) size + 10) - size - 5;
      int op = random.nextInt(20);
      if (op == 0) {
        log.append(" observe(").append(source).append(',').append(t).append(')');
        windows.observe(source, t);
        ref.observe(source, t);
      } else if (op == 1) {
        long wall = clock.wallMillis() + random.nextInt(11) - 5;
        log.append(" advanceTo(").append(wall).append(')');
        windows.advanceTo(wall);
        ref.advanceTo(wall);
      } else if (op == 2) {
        log.append(" refresh");
        windows.refresh();
        ref.refresh();
      } else {
        String key = "k" + random.nextInt(3);
        long value = random.nextInt(9);
        log.append(" add(").append(source).append(',').append(t).append(',').append(key);
        log.append(')');
        boolean expected = ref.add(source, t, key, value);
        assertThat(windows.add(source, t, key, value))
            .as("trace " + trace + ":" + log)
            .isEqualTo(expected);
      }
      String what = "trace " + trace + ":" + log;
      assertThat(windows.watermark()).as(what).isEqualTo(ref.watermark());
      if (random.nextInt(4) == 0) {
        drained.addAll(windows.pollFinalized());
        assertThat(drained).as(what).isEqualTo(ref.rows());
      }
    }
    windows.finish();
    ref.finish();
    drained.addAll(windows.pollFinalized());
    assertThat(drained).as("trace " + trace + ":" + log + " finish").isEqualTo(ref.rows());
    assertThat(windows.stats().late()).isEqualTo(ref.late());
    assertThat(windows.stats().accepted()).isEqualTo(ref.accepted());
    return ref.late();
  }

  /**
   * Hopping windows of 30 ms every 10 ms from the offset 5, a grace of 15 ms, lateness 0: each of
   * an event's three windows takes it unless it retired, each in its grace period gives its own
   * LATE row, and an event whose every window retired is late.
   */
  @Test
  void hoppingWindowsOnTheOffsetGridEachTakeTheEventAndGiveTheirOwnRows() {
    PaneReference<Long> ref =
        PaneReference.sum(new PaneReference.Shape(30, 10, 5, 0, 15), tracker(0));
    ref.add(S, 12, "a", 1); // into [-15,15), [-5,25), [5,35); W = 12
    assertThat(rows(ref)).isEmpty();
    ref.add(S, 26, "a", 2); // into [5,35), [15,45), [25,55); W = 26: the first two on time
    assertThat(rows(ref)).containsExactly("ON_TIME [-15,15) a=1 #0", "ON_TIME [-5,25) a=1 #0");
    // [-25,5) retired (5 + 15 <= 26), so the event is partially late; the other two in grace.
    assertThat(ref.add(S, 0, "a", 4)).isTrue();
    assertThat(rows(ref, 2)).containsExactly("LATE [-15,15) a=5 #1", "LATE [-5,25) a=5 #1");
    assertThat(ref.add(S, -20, "a", 1)).isFalse(); // its windows end by 5: all retired
    ref.finish();
    assertThat(rows(ref, 4))
        .containsExactly(
            "ON_TIME [5,35) a=3 #0 final",
            "ON_TIME [15,45) a=2 #0 final",
            "ON_TIME [25,55) a=2 #0 final");
    assertThat(ref.partiallyLate()).isEqualTo(1);
    assertThat(ref.late()).isEqualTo(1);
    assertThat(ref.lateUpdates()).isEqualTo(2);
    assertThat(ref.retiredWindows()).isEqualTo(5);
  }

  /** A fold that overflows in one window of an event changes none of its windows. */
  @Test
  void aHoppingFoldThatOverflowsInOneWindowChangesNone() {
    PaneReference<Long> ref =
        PaneReference.sum(new PaneReference.Shape(20, 10, 0, 0, 5), tracker(1_000));
    ref.add(S, 15, "a", Long.MAX_VALUE - 1); // into [0,20), [10,30)
    ref.add(S, 5, "b", 1); // into [-10,10), [0,20)
    // Into [-10,10), where a is new, and [0,20), where it overflows.
    assertThatThrownBy(() -> ref.add(S, 5, "a", 5)).isInstanceOf(ArithmeticException.class);
    assertThat(ref.accepted()).isEqualTo(2);
    ref.finish();
    assertThat(rows(ref))
        .containsExactly(
            "ON_TIME [-10,10) b=1 #0 final",
            "ON_TIME [0,20) a=9223372036854775806 #0 final",
            "ON_TIME [0,20) b=1 #0 final",
            "ON_TIME [10,30) a=9223372036854775806 #0 final");
  }
}
