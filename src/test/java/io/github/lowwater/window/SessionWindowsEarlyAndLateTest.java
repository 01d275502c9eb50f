package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Early results and the grace period of {@link SessionWindows} (semantics rule 56), each at its
 * edge on a fake clock: a gap of 10 ms and one source, so that the watermark is the newest event
 * time minus the allowed lateness.
 */
class SessionWindowsEarlyAndLateTest {

  private static final Duration GAP = Duration.ofMillis(10);

  private static SessionWindows.Builder<Long, Long> sum(long latenessMillis) {
    return SessionWindows.builder(GAP, Aggregators.sumLong())
        .allowedLateness(Duration.ofMillis(latenessMillis))
        .clock(new ManualClock());
  }

  /**
   * A row as text: {@code start..end key=value TIMING#index}, {@code !} if final, then replaces.
   */
  static List<String> rows(EventTimeWindows<String, ?, ?> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, ?> r : windows.pollFinalized()) {
      rows.add(
          r.start()
              + ".."
              + r.end()
              + " "
              + r.key()
              + "="
              + r.value()
              + " "
              + r.timing()
              + "#"
              + r.index()
              + (r.isFinal() ? "!" : "")
              + (r.replaces().isEmpty() ? "" : " replaces " + r.replaces()));
    }
    return rows;
  }

  @Test
  void aSessionFiresAtTheMarksOfItsCurrentSpanOnlyWhenItChanged() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(3)).build();
    w.add(0, "a", 1L); // [0, 10): marks 3, 6, 9
    assertThat(rows(w)).isEmpty();
    w.add(4, "a", 2L); // N = 4 passes 3
    assertThat(rows(w)).containsExactly("0..14 a=3 EARLY#0");
    w.add(5, "b", 0L); // N = 5: no mark of a's in (4, 5]
    assertThat(rows(w)).isEmpty();
    w.add(6, "b", 0L); // N = 6 passes a's 6: a did not change since its row
    assertThat(rows(w)).isEmpty();
    w.add(2, "a", 0L); // a's value and span stay: [0, 14)
    w.add(9, "b", 0L); // N = 9 passes a's 9 and b's 8: a unchanged, b's first row
    assertThat(rows(w)).containsExactly("5..19 b=0 EARLY#0");
    w.add(11, "a", 1L); // a grows to [0, 21), next mark 12; N = 11 passes b's 11: unchanged
    assertThat(rows(w)).isEmpty();
    w.add(12, "a", 0L); // N = 12 passes 12: the end moved, so it changed
    assertThat(rows(w)).containsExactly("0..22 a=4 EARLY#1");
    assertThat(w.stats().earlyRows()).isEqualTo(3);
  }

  @Test
  void aSessionWhoseFirstMovesEarlierReplacesItsRowUnderTheOldStart() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(5)).build();
    w.add(10, "a", 1L); // [10, 20): marks 15
    w.add(16, "a", 1L); // N = 16 passes 15
    assertThat(rows(w)).containsExactly("10..26 a=2 EARLY#0");
    w.add(8, "a", 1L); // first 8: marks 13, 18, 23; the next above N = 16 is 18
    assertThat(rows(w)).isEmpty();
    w.add(18, "a", 1L);
    assertThat(rows(w)).containsExactly("8..28 a=4 EARLY#1 replaces [10]");
    w.finish();
    assertThat(rows(w)).containsExactly("8..28 a=4 ON_TIME#2!"); // always, though unchanged
  }

  @Test
  void sessionsThatMergeAfterTheirRowsGiveOneRowThatReplacesTheLaterOnesAndContinuesTheIndex() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(2)).build();
    w.add(0, "a", 1L); // [0, 10)
    w.add(15, "a", 1L); // [15, 25); N = 15 passes 2 to 8 of [0, 10)
    assertThat(rows(w)).containsExactly("0..10 a=1 EARLY#0");
    w.add(17, "a", 1L); // N = 17 passes 17 of [15, 27)
    w.add(18, "a", 1L); // N = 18 passes nothing more of [15, 28): its next mark is 19
    assertThat(rows(w)).containsExactly("15..27 a=2 EARLY#0");
    w.add(19, "a", 0L);
    assertThat(rows(w)).containsExactly("15..29 a=3 EARLY#1");
    w.add(8, "a", 1L); // joins both: one session [0, 29), its index the higher of 1 and 2
    assertThat(rows(w)).isEmpty(); // its next mark above N = 19 is 20
    w.add(20, "a", 0L);
    assertThat(rows(w)).containsExactly("0..30 a=5 EARLY#2 replaces [15]");
    w.finish();
    assertThat(rows(w)).containsExactly("0..30 a=5 ON_TIME#3!");
    assertThat(w.stats().openWindows()).isZero();
  }

  @Test
  void aLateUpdateWithinTheGraceGivesALateRowAndTheSessionRetiresAtItsEndPlusTheGrace() {
    SessionWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(5)).build();
    w.add(0, "a", 1L); // [0, 10)
    w.add(12, "b", 1L); // W = 12: [0, 10) on time, not final (10 + 5 > 12)
    assertThat(rows(w)).containsExactly("0..10 a=1 ON_TIME#0");
    w.add(5, "a", 2L); // joins the complete session: [0, 15), a late update
    assertThat(rows(w)).containsExactly("0..15 a=3 LATE#1");
    w.add(19, "b", 0L); // W = 19: [0, 15) retires at 20, not yet; b's [12, 29) grows
    assertThat(w.add(4, "a", 1L)).isFalse(); // 4 + 10 + 5 <= 19, though it would join [0, 15)
    assertThat(w.add(5, "a", 1L)).isTrue(); // 5 + 10 + 5 > 19
    assertThat(rows(w)).containsExactly("0..15 a=4 LATE#2");
    w.add(20, "b", 0L); // W = 20: [0, 15) retires, with no row
    assertThat(rows(w)).isEmpty();
    assertThat(w.stats().retiredWindows()).isEqualTo(1);
    assertThat(w.add(5, "a", 1L)).isFalse(); // 5 + 10 + 5 <= 20: late
    assertThat(w.add(6, "a", 1L)).isTrue(); // 6 + 10 + 5 > 20: a session in grace, LATE from 0
    assertThat(rows(w)).containsExactly("6..16 a=1 LATE#0");
    assertThat(w.stats().lateUpdates()).isEqualTo(3);
    assertThat(w.stats().late()).isEqualTo(2);
  }

  @Test
  void aMergeWithACompleteSessionIsCompleteAndGivesOnlyLateRows() {
    SessionWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(20)).build();
    w.add(0, "a", 1L); // [0, 10)
    w.add(15, "a", 1L); // W = 15: [0, 10) on time; [15, 25) open
    assertThat(rows(w)).containsExactly("0..10 a=1 ON_TIME#0");
    w.add(8, "a", 1L); // joins both: [0, 25), complete though its end is above W; [15, 25) had
    // no row, so nothing is replaced
    assertThat(rows(w)).containsExactly("0..25 a=3 LATE#1");
    w.add(30, "b", 0L); // W = 30 passes 25: no on-time row for a complete session
    assertThat(rows(w)).isEmpty();
    w.add(45, "b", 0L); // W = 45 = 25 + 20: it retires; b's [30, 40) on time and retires at 60
    assertThat(rows(w)).containsExactly("30..40 b=0 ON_TIME#0");
    assertThat(w.stats().retiredWindows()).isEqualTo(1);
  }

  @Test
  void withPanesAnEventWhoseGapEndedByTheWatermarkLessTheGraceIsLateEvenIfItWouldJoin() {
    SessionWindows<String, Long, Long> paned = sum(0).grace(Duration.ofMillis(2)).build();
    SessionWindows<String, Long, Long> plain = sum(0).build();
    for (SessionWindows<String, Long, Long> w : List.of(paned, plain)) {
      w.add(20, "a", 1L); // [20, 30)
      w.add(28, "b", 1L); // W = 28
    }
    // 14 joins [20, 30) (20 - 10 < 14), and 14 + 10 + 2 <= 28: no session reaches back over a
    // retired one of its key, so that (start, key) names one session for good
    assertThat(paned.isLate(14, "a")).isTrue();
    assertThat(paned.add(14, "a", 1L)).isFalse();
    assertThat(paned.add(17, "a", 1L)).isTrue(); // 17 + 10 + 2 > 28
    assertThat(plain.add(14, "a", 1L)).isTrue(); // rule 43 without panes: it joins an open one
  }

  @Test
  void aFoldThatOverflowsInAMergeChangesNoSession() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(2)).build();
    w.add(0, "a", Long.MAX_VALUE); // [0, 10)
    w.add(15, "a", 1L); // [15, 25)
    int pending = w.pendingSessions();
    assertThatThrownBy(() -> w.add(8, "a", 0L)).isInstanceOf(ArithmeticException.class);
    assertThat(w.pendingSessions()).isEqualTo(pending);
    assertThat(w.stats().accepted()).isEqualTo(2);
    w.finish();
    assertThat(rows(w))
        .containsExactly(
            "0..10 a=" + Long.MAX_VALUE + " EARLY#0",
            "0..10 a=" + Long.MAX_VALUE + " ON_TIME#1!",
            "15..25 a=1 ON_TIME#0!");
  }

  /**
   * {@code markWritten(e)}: a new owner re-reading a partition cannot tell a part of a session
   * written before (it ended by {@code e}) from the start of one that will grow past {@code e}, so
   * a session that ends by {@code e} holds its rows back, gives them in order once it grows past
   * {@code e}, and drops them if it retires first.
   */
  @Test
  void aSessionEndingByTheWrittenEndHoldsItsRowsBackUntilItGrowsPastItAndDropsThemIfItRetires() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(2)).build();
    w.markWritten(20);
    w.add(0, "a", 1L); // a: [0, 10)
    w.add(4, "b", 1L); // b: [4, 14); N = 4 passes a's 2: a's row is held back (10 <= 20)
    assertThat(rows(w)).isEmpty();
    w.add(9, "a", 1L); // a: [0, 19); N = 9 passes a's 6 and b's 6: both held back
    assertThat(rows(w)).isEmpty();
    w.add(12, "a", 1L); // a: [0, 22), past 20; N = 12 passes a's 10 (b's 10: b is unchanged)
    assertThat(rows(w))
        .containsExactly("0..10 a=1 EARLY#0", "0..19 a=2 EARLY#1", "0..22 a=3 EARLY#2");
    w.finish(); // b's on-time row is held back and dropped as it retires
    assertThat(rows(w)).containsExactly("0..22 a=3 ON_TIME#3!");
    assertThat(w.stats().openWindows()).isZero();
  }

  @Test
  void sessionsWithTheSameEndComeInTheOrderOfTheirStartAlsoAfterAStartMovedEarlier() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofSeconds(1)).build();
    w.add(10, "b", 1L); // [10, 20), opened first
    w.add(10, "a", 1L); // [10, 20)
    w.add(5, "a", 1L); // a: [5, 20), the same end as b's and an earlier start
    w.finish();
    assertThat(rows(w)).containsExactly("5..20 a=2 ON_TIME#0!", "10..20 b=1 ON_TIME#0!");
  }

  @Test
  void aSessionThatAbsorbsFiveSessionsWithRowsReplacesTheirFiveStartsInOneRow() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(5)).build();
    for (long t = 0; t <= 100; t += 20) {
      w.add(t, "a", 1L); // six sessions [t, t + 10); each later one fires the one before
    }
    w.add(120, "b", 1L); // N = 120 fires [100, 110)
    assertThat(rows(w)).hasSize(6).allMatch(r -> r.endsWith(" a=1 EARLY#0"));
    for (long t = 9; t < 100; t += 20) {
      w.add(t, "a", 1L); // the session grows to t + 10
      w.add(t + 6, "a", 1L); // and joins the next one: no mark below N = 120 is left to fire
    }
    assertThat(rows(w)).isEmpty();
    w.finish();
    assertThat(rows(w))
        .containsExactly(
            "0..110 a=16 ON_TIME#1! replaces [20, 40, 60, 80, 100]", "120..130 b=1 ON_TIME#0!");
  }

  /**
   * The held-back rows of {@code markWritten} at their edges: a row of a session ending exactly at
   * the written end is held; a session absorbed with rows held back hands them to the one it joins,
   * in order, before that one's own; they come out once the session ends past the written end.
   */
  @Test
  void heldBackRowsAtTheWrittenEndAndThroughAMergeComeOutInOrderOncePastIt() {
    SessionWindows<String, Long, Long> w = sum(100).earlyResults(Duration.ofMillis(1)).build();
    w.markWritten(20);
    w.add(0, "a", 1L); // A: [0, 10)
    w.add(10, "a", 1L); // P: [10, 20); N = 10 fires A: held back (10 <= 20)
    w.add(11, "x", 1L); // N = 11 fires P: held back, its end exactly 20
    assertThat(rows(w)).isEmpty();
    w.add(5, "a", 1L); // joins A and P: [0, 20), P's held row with A's
    w.add(12, "y", 1L); // N = 12 fires a (held back, replacing 10), then x
    assertThat(rows(w)).containsExactly("11..21 x=1 EARLY#0");
    w.add(19, "a", 1L); // a: [0, 29), past 20; N = 19 fires a: its held rows first, in order
    assertThat(rows(w))
        .containsExactly(
            "0..10 a=1 EARLY#0",
            "10..20 a=1 EARLY#0",
            "0..20 a=3 EARLY#1 replaces [10]",
            "0..29 a=4 EARLY#2",
            "12..22 y=1 EARLY#0");
  }

  /** A session that retires with rows held back drops them, and its pooled object forgets them. */
  @Test
  void aSessionThatRetiresWithRowsHeldBackDropsThemAndTheNextSessionOfItsSlotStartsClean() {
    SessionWindows<String, Long, Long> w = sum(0).earlyResults(Duration.ofMillis(1)).build();
    w.markWritten(20);
    w.add(0, "k", 1L); // K: [0, 10)
    w.add(5, "k", 1L); // K: [0, 15); N = 5 fires it: held back
    w.add(15, "z", 1L); // W = 15: K on time, held back, and retires: both rows dropped
    assertThat(rows(w)).isEmpty();
    w.add(16, "m", 1L); // M: [16, 26), in K's pooled object; N = 16 fires Z
    w.add(17, "m", 1L); // N = 17 fires M: its own row, nothing of K's
    assertThat(rows(w)).containsExactly("15..25 z=1 EARLY#0", "16..27 m=2 EARLY#0");
    assertThat(w.stats().retiredWindows()).isEqualTo(1);
  }

  @Test
  void pendingSessionsCountTheLiveOnesAndTheRowsWaitingAndTheOldestStartIsTheirs() {
    SessionWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(10)).build();
    assertThat(w.pendingSessions()).isZero();
    assertThat(w.oldestPendingStartMillis()).isEqualTo(Long.MAX_VALUE);
    w.add(0, "a", 1L); // [0, 10)
    assertThat(w.pendingSessions()).isEqualTo(1);
    assertThat(w.oldestPendingStartMillis()).isZero();
    w.add(12, "b", 1L); // W = 12: a on time, in its grace period until 20; its row waits
    assertThat(w.pendingSessions()).isEqualTo(3);
    assertThat(w.oldestPendingStartMillis()).isZero();
    assertThat(rows(w)).containsExactly("0..10 a=1 ON_TIME#0");
    assertThat(w.pendingSessions()).isEqualTo(2);
    w.add(25, "b", 1L); // W = 25: b's [12, 22) on time, a retires; b's [25, 35) opens
    assertThat(w.pendingSessions()).isEqualTo(3);
    assertThat(w.oldestPendingStartMillis()).isEqualTo(12);
    assertThat(rows(w)).containsExactly("12..22 b=1 ON_TIME#0");
    w.finish();
    assertThat(w.pendingSessions()).isEqualTo(1); // b's last row waits; [12, 22) retired
    assertThat(w.oldestPendingStartMillis()).isEqualTo(25);
    assertThat(rows(w)).containsExactly("25..35 b=1 ON_TIME#0!");
    assertThat(w.pendingSessions()).isZero();
    assertThat(w.oldestPendingStartMillis()).isEqualTo(Long.MAX_VALUE);
  }

  /** The dictionary's sweep keeps the key of a session in its grace period. */
  @Test
  void aSweepKeepsTheKeysOfSessionsOpenAndInTheirGracePeriod() {
    SessionWindows<String, Long, Long> w = sum(0).grace(Duration.ofMillis(500)).build();
    w.add(0, "gone", 1L); // [0, 10)
    w.add(400, "held", 1L); // W = 400: gone on time, in its grace period until 510
    assertThat(rows(w)).containsExactly("0..10 gone=1 ON_TIME#0");
    w.add(520, "k0", 0L); // W = 520: gone retires; held on time, in its grace period until 910
    assertThat(rows(w)).containsExactly("400..410 held=1 ON_TIME#0");
    for (int k = 1; k < 10_000; k++) {
      w.add(520, "k" + k, (long) k); // the dictionary grows and sweeps
    }
    w.add(405, "held", 1L);
    assertThat(rows(w)).containsExactly("400..415 held=2 LATE#1");
    w.finish();
    List<String> last = rows(w);
    assertThat(last).hasSize(10_000);
    for (int k = 0; k < 10_000; k++) {
      assertThat(last.get(k)).isEqualTo("520..530 k" + k + "=" + k + " ON_TIME#0!");
    }
  }

  /** Lists values; its {@code merge} refuses a right side that holds 99. */
  static final Aggregator<Long, List<Long>, List<Long>> NO_MERGE_OF_99 =
      Aggregators.of(
          ArrayList::new,
          (list, v) -> {
            list.add(v);
            return list;
          },
          (left, right) -> {
            if (right.contains(99L)) {
              throw new IllegalStateException("refused to merge " + right);
            }
            left.addAll(right);
            return left;
          },
          List::copyOf);

  @Test
  void anObjectMergeThatThrowsLeavesTheTargetAsItWasThoughItsAddHadChangedIt() {
    SessionWindows<String, Long, List<Long>> w =
        SessionWindows.builder(GAP, NO_MERGE_OF_99)
            .allowedLateness(Duration.ofMillis(1_000))
            .grace(Duration.ofMillis(1))
            .clock(new ManualClock())
            .build();
    w.add(0, "a", 1L); // [0, 10), its accumulator shared with no row
    w.add(15, "a", 99L); // [15, 25)
    assertThatThrownBy(() -> w.add(8, "a", 2L)) // joins both: the merge of [99] throws
        .isInstanceOf(IllegalStateException.class);
    w.finish();
    assertThat(rows(w)).containsExactly("0..10 a=[1] ON_TIME#0!", "15..25 a=[99] ON_TIME#0!");
  }

  @Test
  void aVisitorThatDoesNotHandleReplacedRowsFailsLoudlyAndTheRowStaysQueued() {
    SessionWindows<String, Long, Long> w = sum(1_000).earlyResults(Duration.ofMillis(5)).build();
    w.add(10, "a", 1L);
    w.add(16, "a", 1L);
    ResultVisitor<String, Long> plain = (start, end, key, value) -> {};
    assertThat(w.drainFinalized(plain)).isEqualTo(1); // "10..26 a=2 EARLY#0"
    w.add(8, "a", 1L);
    w.add(18, "a", 1L);
    assertThatThrownBy(() -> w.drainFinalized(plain))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage(
            "a session row replaces the earlier row of key a that started at 10: override"
                + " ResultVisitor.visitReplaced to delete it, or drain with pollFinalized() and"
                + " read WindowResult.replaces()");
    assertThat(rows(w)).containsExactly("8..28 a=4 EARLY#1 replaces [10]");
  }
}
