package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The panes of {@link SlidingWindows} at their edges, on a manual clock (semantics rule 79): early
 * rows at the marks {@code kΔ} that fall inside an open window, and not one millisecond before; no
 * early row for a window that took no record since its last row, and its on-time row all the same;
 * late updates within the grace period in the windows they join and the ones they make; a row that
 * holds only the records that came before it; finality, retirement and the counters; a replay; the
 * written end; and a visitor that throws.
 */
class SlidingPanesTest {

  private static SlidingWindows<String, Long, Long> sliding(long d, long early, long grace) {
    SlidingWindows.Builder<Long, Long> b =
        SlidingWindows.builder(Duration.ofMillis(d), Aggregators.sumLong());
    if (early > 0) {
      b.earlyResults(Duration.ofMillis(early));
    }
    if (grace > 0) {
      b.grace(Duration.ofMillis(grace));
    }
    return b.allowedLateness(Duration.ZERO).clock(new ManualClock()).build();
  }

  /** A visitor of rows with their panes: a {@code long} row comes as its boxed value. */
  interface PaneVisitor extends ResultVisitor<String, Long> {
    @Override
    default void visit(long start, long end, String key, Long result) {
      throw new AssertionError("a row without its pane");
    }

    @Override
    default void visitLongPane(
        long start, long end, String key, long result, Timing timing, int index, boolean isFinal) {
      visitPane(start, end, key, result, timing, index, isFinal);
    }

    @Override
    void visitPane(
        long start, long end, String key, Long result, Timing timing, int index, boolean isFinal);
  }

  /** The rows waiting, as {@code key[start,end) TIMING#index(final)=value}. */
  private static List<String> rows(EventTimeWindows<String, Long, Long> w) {
    List<String> rows = new ArrayList<>();
    w.drainFinalized(
        new PaneVisitor() {
          @Override
          public void visitPane(
              long start,
              long end,
              String key,
              Long result,
              Timing timing,
              int index,
              boolean isFinal) {
            rows.add(
                SlidingPanesReferenceTest.row(
                    key, start, end, String.valueOf(result), timing, index, isFinal));
          }
        });
    return rows;
  }

  @Test
  void anEarlyRowComesWhenTheNewestTimeReachesAMarkInAnOpenWindowNotOneMillisecondBefore() {
    SlidingWindows<String, Long, Long> w = sliding(100, 10, 0);
    w.add(5, "k", 1L); // opens [-95,6), which holds the marks -90 to 0 up to N = 5
    assertThat(rows(w)).containsExactly("k[-95,6) EARLY#0=1");
    w.add(6, "k", 2L); // N 5 to 6: no mark; the watermark reaches 6
    assertThat(rows(w)).containsExactly("k[-95,6) ON_TIME#1 final=1");
    w.add(9, "k", 4L); // N 6 to 9: no mark yet
    assertThat(rows(w)).containsExactly("k[-94,7) ON_TIME#0 final=3");
    w.add(10, "k", 8L); // N 9 to 10: the mark 10, in each open window that starts before it
    assertThat(rows(w))
        .containsExactly(
            "k[-90,11) EARLY#0=15", // the window ending at 10
            "k[6,107) EARLY#0=14", // the window starting just after 5
            "k[7,108) EARLY#0=12", // the window starting just after 6
            // [-91,10) ends at 10: its last mark would be 9 (none); [10,111) starts at 10, after
            // the mark. The watermark then reaches 10.
            "k[-91,10) ON_TIME#0 final=7");
    assertThat(w.stats().earlyRows()).isEqualTo(4);
  }

  @Test
  void anOpenWindowThatTookNoRecordGivesNoEarlyRowAndItsOnTimeRowComesWithTheNextIndex() {
    SlidingWindows<String, Long, Long> w = sliding(100, 10, 0);
    w.add(5, "a", 1L);
    w.add(6, "a", 2L);
    rows(w);
    w.add(10, "b", 1L); // the mark 10: a's [6,107) holds 6; b's [-90,11) opens
    assertThat(rows(w))
        .containsExactly("a[6,107) EARLY#0=2", "b[-90,11) EARLY#0=1", "a[-94,7) ON_TIME#0 final=3");
    w.add(20, "b", 1L); // the mark 20: a's [6,107) took nothing since its row, so no row
    assertThat(rows(w))
        .containsExactly(
            "b[-80,21) EARLY#0=2", "b[11,112) EARLY#0=1", "b[-90,11) ON_TIME#1 final=1");
    w.finish();
    assertThat(rows(w))
        .containsExactly(
            "b[-80,21) ON_TIME#1 final=2",
            "a[6,107) ON_TIME#1 final=2",
            "b[11,112) ON_TIME#1 final=1");
  }

  @Test
  void aLateUpdateGivesALateRowInEachCompleteWindowItJoinsOrMakesAndAtEndPlusGraceItIsLate() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0, 20);
    w.add(0, "k", 1L);
    w.add(5, "k", 2L);
    // [-10,1) closed when 5 raised the watermark to 5, before 1 + 20: not final; 25 retires it.
    w.add(25, "z", 0L); // watermark 25: k's windows are complete
    w.add(7, "k", 4L); // 7 + 1 <= 25 < 7 + 1 + 20: a late update, folded in
    assertThat(rows(w))
        .containsExactly(
            "k[-10,1) ON_TIME#0=1",
            "k[-5,6) ON_TIME#0=3",
            "k[1,12) ON_TIME#0=2", // produced before 7 came: 7 is not in it
            "k[-3,8) LATE#0=7", // made by 7: no on-time row
            "k[1,12) LATE#1=6", // joined by 7
            "k[6,17) LATE#0=4"); // made by 7, starting just after 5
    // [-5,6) does not hold 7, and nothing holds 7's right window [8,19)
    assertThat(w.isLate(4, "k")).as("4 + 1 + 20 <= 25").isTrue();
    assertThat(w.add(4, "k", 100L)).isFalse();
    assertThat(w.isLate(5, "k")).isFalse();
    assertThat(w.stats().lateUpdates()).isEqualTo(3);
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.stats().retiredWindows()).as("[-10,1), at 1 + 20 <= 25").isEqualTo(1);
    w.add(32, "z", 0L); // watermark 32: the windows ending by 12 retire
    assertThat(w.stats().retiredWindows()).isEqualTo(4);
    assertThat(w.add(11, "k", 8L)).as("11 + 1 + 20 <= 32: late").isFalse();
    assertThat(w.add(12, "k", 8L)).as("12 + 1 + 20 > 32: in the grace period").isTrue();
    assertThat(rows(w))
        .containsExactly(
            "z[15,26) ON_TIME#0=0",
            "k[2,13) LATE#0=14", // made by 12
            "k[6,17) LATE#1=12",
            "k[8,19) LATE#0=8"); // made by 12, starting just after 7
    // [1,12) has retired, and does not hold 12 anyway
    w.finish();
    rows(w);
    assertThat(w.stats().openEntries()).as("every record let go once drained").isZero();
    assertThat(w.stats().retiredWindows()).isEqualTo(w.stats().finalizedWindows() + 4);
  }

  @Test
  void replayedRowsAreNotHandedOutButTheirIndexesAreTaken() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0, 20);
    w.replaying(true);
    w.add(0, "k", 1L);
    w.add(20, "z", 0L); // watermark 20: [-10,1)'s on-time row, index 0, not handed out
    w.replaying(false);
    assertThat(rows(w)).isEmpty();
    w.add(0, "k", 2L); // 0 + 1 + 20 > 20: a late update
    assertThat(rows(w)).containsExactly("k[-10,1) LATE#1=3");
  }

  @Test
  void aWindowEndingByTheWrittenEndGivesNoRowOfAnyTiming() {
    SlidingWindows<String, Long, Long> w = sliding(10, 1, 20);
    w.add(0, "k", 1L);
    rows(w);
    w.markWritten(12);
    w.add(5, "k", 2L); // [-5,6) and [1,12) end by 12: no early row
    w.add(20, "z", 0L);
    w.add(8, "k", 4L); // a late update: [-2,9) and [1,12) end by 12, [6,17) does not
    assertThat(rows(w)).filteredOn(r -> r.startsWith("k")).containsExactly("k[6,17) LATE#0=4");
  }

  @Test
  void aVisitorThatThrowsLeavesItsRowFirstForTheNextDrain() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0, 5);
    w.add(0, "a", 1L);
    w.add(0, "b", 2L);
    w.add(30, "z", 0L);
    List<String> seen = drainUntilThrow(w, 1);
    assertThat(seen).containsExactly("a");
    assertThat(rows(w)).containsExactly("b[-10,1) ON_TIME#0 final=2");
  }

  @Test
  void rowsLeftByVisitorsThatThrowComeWholeAndInOrderToPollFinalizedAfterMoreRowsQueued() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0, 30);
    List<String> expected = new ArrayList<>();
    for (int k = 0; k < 20; k++) {
      w.add(0, "k" + k, 1L);
      expected.add("k" + k + "[-10,1) ON_TIME#0=1");
    }
    w.add(20, "z", 0L); // watermark 20: twenty on-time rows, not final (1 + 30 > 20)
    assertThat(drainUntilThrow(w, 9)).as("a visitor that throws at the tenth row").hasSize(9);
    for (int k = 0; k < 20; k++) {
      w.add(1, "k" + k, 2L); // late updates: the window ending at 1, and 0's right window
      expected.add("k" + k + "[-9,2) LATE#0=3");
      expected.add("k" + k + "[1,12) LATE#0=2");
    }
    assertThat(drainUntilThrow(w, 4)).hasSize(4);
    List<String> rest = new ArrayList<>();
    for (WindowResult<String, Long> r : w.pollFinalized()) {
      rest.add(
          SlidingPanesReferenceTest.row(
                  r.key(),
                  r.start(),
                  r.end(),
                  String.valueOf(r.value()),
                  r.timing(),
                  r.index(),
                  r.isFinal())
              .replace(" final", ""));
    }
    assertThat(rest).containsExactlyElementsOf(expected.subList(13, expected.size()));
    assertThat(rows(w)).isEmpty();
  }

  @Test
  void atTheLongBoundsEachWindowsLastRowIsItsOneRowWithoutPanes() {
    SlidingWindows<String, Long, Long> paned = sliding(10, 3, 4);
    SlidingWindows<String, Long, Long> plain = sliding(10, 0, 0);
    long max = Long.MAX_VALUE;
    long min = Long.MIN_VALUE;
    Object[][] records = {
      {min, "lo"},
      {min + 1, "lo"},
      {min + 5, "lo"},
      {min + 14, "lo"},
      {max - 15, "hi"},
      {max - 9, "hi"},
      {max - 2, "hi"},
      {max - 1, "hi"},
      {max, "hi"},
      {max, "hi"}
    };
    long value = 1;
    for (Object[] r : records) {
      paned.add((long) r[0], (String) r[1], value);
      plain.add((long) r[0], (String) r[1], value);
      value *= 2;
    }
    paned.finish();
    plain.finish();
    java.util.Map<String, Long> last = new java.util.TreeMap<>();
    java.util.Map<String, Integer> lastIndex = new java.util.TreeMap<>();
    for (WindowResult<String, Long> r : paned.pollFinalized()) {
      String window = r.key() + "[" + r.start() + "," + r.end() + ")";
      Integer before = lastIndex.put(window, r.index());
      assertThat(r.index()).as(window).isEqualTo(before == null ? 0 : before + 1);
      last.put(window, r.value());
    }
    java.util.Map<String, Long> one = new java.util.TreeMap<>();
    for (WindowResult<String, Long> r : plain.pollFinalized()) {
      one.put(r.key() + "[" + r.start() + "," + r.end() + ")", r.value());
    }
    assertThat(last).isEqualTo(one);
    assertThat(one).containsKey("hi[" + (max - 11) + "," + max + ")"); // the saturated window
    assertThat(paned.stats().earlyRows()).isPositive();
    assertThat(paned.stats().openEntries()).isZero();
    assertThat(paned.stats().retiredWindows()).isEqualTo(one.size());
  }

  @Test
  void aSumThatOverflowsOnlyWhenGroupedOtherwiseIsTheSumInTimeOrderWithAndWithoutPanes() {
    for (SlidingWindows<String, Long, Long> w : List.of(sliding(10, 0, 100), sliding(10, 0, 0))) {
      w.add(1, "k", -1L);
      w.add(2, "k", Long.MAX_VALUE);
      w.add(3, "k", 1L);
      w.add(4, "z", 0L); // watermark 4: the windows ending at 2, 3 and 4, drained in a row
      // In time order -1, MAX, +1 never overflows; MAX + 1 first, as a running fold of the newer
      // records after the window ending at 3 would add them, does.
      assertThat(w.pollFinalized())
          .extracting(WindowResult::end, WindowResult::value)
          .containsExactly(
              org.assertj.core.api.Assertions.tuple(2L, -1L),
              org.assertj.core.api.Assertions.tuple(3L, Long.MAX_VALUE - 1),
              org.assertj.core.api.Assertions.tuple(4L, Long.MAX_VALUE));
    }
  }

  /** Drains until the visitor throws at row {@code rows} (from 0); returns the keys visited. */
  private static List<String> drainUntilThrow(SlidingWindows<String, Long, Long> w, int rows) {
    List<String> seen = new ArrayList<>();
    assertThatThrownBy(
            () ->
                w.drainFinalized(
                    new PaneVisitor() {
                      @Override
                      public void visitPane(
                          long start,
                          long end,
                          String key,
                          Long result,
                          Timing timing,
                          int index,
                          boolean isFinal) {
                        if (seen.size() == rows) {
                          throw new IllegalStateException("sink down");
                        }
                        seen.add(key);
                      }
                    }))
        .hasMessage("sink down");
    return seen;
  }
}
