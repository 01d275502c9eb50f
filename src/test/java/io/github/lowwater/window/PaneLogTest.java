package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PaneLog}: rows in the order they were added, each handed out once, through partial drains
 * that leave the log's arrays to be compacted and grown; the pane of each row as it was given.
 */
class PaneLogTest {

  @SuppressWarnings("unchecked") // a long log never calls result
  private final PaneLog<String, Long> longs =
      new PaneLog<>(
          (Aggregator<?, Object, Long>) (Aggregator<?, ?, ?>) Aggregators.sumLong(), true);

  /** Records rows as {@code key=value TIMING#index} and {@code !} if final; throws at one key. */
  static class Recorder<R> implements ResultVisitor<String, R> {
    final List<String> seen = new ArrayList<>();
    String failAt;

    @Override
    public void visit(long start, long end, String key, R result) {
      throw new AssertionError("the log calls the pane methods");
    }

    @Override
    public void visitPane(
        long start, long end, String key, R result, Timing t, int index, boolean isFinal) {
      if (key.equals(failAt)) {
        failAt = null;
        throw new IllegalStateException("sink down at " + key);
      }
      seen.add(
          start
              + "-"
              + end
              + ":"
              + key
              + "="
              + result
              + " "
              + t
              + "#"
              + index
              + (isFinal ? "!" : ""));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void visitLongPane(
        long start, long end, String key, long result, Timing t, int index, boolean isFinal) {
      visitPane(start, end, key, (R) Long.valueOf(result), t, index, isFinal);
    }
  }

  @Test
  void rowsLeaveInOrderOnceEachThroughAPartialDrainCompactionAndGrowth() {
    for (int i = 0; i < 10; i++) {
      longs.addLong(i, i + 1, "k" + i, 100 + i, Timing.EARLY, i, false);
    }
    Recorder<Long> visitor = new Recorder<>();
    visitor.failAt = "k3";
    assertThatThrownBy(() -> longs.drain(visitor)).hasMessage("sink down at k3");
    assertThat(visitor.seen).hasSize(3);
    assertThat(longs.size()).isEqualTo(7);
    for (int i = 10; i < 40; i++) { // fills the 16 slots: compacts, then doubles twice
      longs.addLong(
          i, i + 1, "k" + i, 100 + i, i % 2 == 0 ? Timing.ON_TIME : Timing.LATE, i, i % 4 == 0);
    }
    assertThat(longs.size()).isEqualTo(37);
    assertThat(longs.drain(visitor)).isEqualTo(37);
    assertThat(longs.isEmpty()).isTrue();
    assertThat(longs.size()).isZero();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      Timing t = i < 10 ? Timing.EARLY : i % 2 == 0 ? Timing.ON_TIME : Timing.LATE;
      expected.add(
          i
              + "-"
              + (i + 1)
              + ":k"
              + i
              + "="
              + (100 + i)
              + " "
              + t
              + "#"
              + i
              + (i >= 10 && i % 4 == 0 ? "!" : ""));
    }
    assertThat(visitor.seen).isEqualTo(expected);
    assertThat(longs.drain(visitor)).isZero();
  }

  @Test
  void visitAllKeepsTheRowsUntilTakeAllAndAnEmptyLogStartsOver() {
    longs.addLong(0, 5, "a", 1, Timing.EARLY, 0, false);
    longs.addLong(0, 5, "a", 2, Timing.ON_TIME, 1, true);
    Recorder<Long> visitor = new Recorder<>();
    longs.visitAll(visitor);
    longs.visitAll(visitor);
    assertThat(visitor.seen).hasSize(4);
    assertThat(longs.size()).isEqualTo(2);
    longs.takeAll();
    assertThat(longs.isEmpty()).isTrue();
    longs.addLong(5, 10, "b", 3, Timing.LATE, 2, false);
    Recorder<Long> after = new Recorder<>();
    assertThat(longs.drain(after)).isEqualTo(1);
    assertThat(after.seen).containsExactly("5-10:b=3 LATE#2");
  }

  @Test
  void anObjectRowsResultIsComputedAtTheDrainAndAThrowingResultLeavesItFirst() {
    List<String> results = new ArrayList<>();
    Aggregator<String, StringBuilder, String> joined =
        Aggregators.of(
            StringBuilder::new,
            StringBuilder::append,
            StringBuilder::append,
            b -> {
              if (b.toString().equals("boom")) {
                throw new ArithmeticException("result of " + b);
              }
              results.add(b.toString());
              return b.toString();
            });
    @SuppressWarnings("unchecked")
    PaneLog<String, String> log =
        new PaneLog<>((Aggregator<?, Object, String>) (Aggregator<?, ?, ?>) joined, false);
    for (int i = 0; i < 20; i++) {
      log.addObject(
          0, 5, "k" + i, new StringBuilder(i == 1 ? "boom" : "v" + i), Timing.EARLY, 0, false);
    }
    assertThat(results).isEmpty(); // nothing computed when a row is added
    Recorder<String> visitor = new Recorder<>();
    assertThatThrownBy(() -> log.drain(visitor)).hasMessage("result of boom");
    assertThat(visitor.seen).containsExactly("0-5:k0=v0 EARLY#0");
    assertThat(log.size()).isEqualTo(19); // the row whose result threw is first again
    for (int i = 20; i < 40; i++) {
      log.addObject(0, 5, "k" + i, new StringBuilder("v" + i), Timing.LATE, 1, false);
    }
    assertThatThrownBy(() -> log.drain(visitor)).hasMessage("result of boom");
    assertThat(log.size()).isEqualTo(39);
  }

  /** Records replaced starts as {@code -start:key} before the row they come with. */
  static final class ReplacingRecorder extends Recorder<Long> {
    @Override
    public void visitReplaced(long start, String key) {
      if (("-" + key).equals(failAt)) {
        failAt = null;
        throw new IllegalStateException("sink down at the replacement of " + key);
      }
      seen.add("-" + start + ":" + key);
    }
  }

  /**
   * Sessions (rule 56): each row's replaced starts come just before it, in order, through partial
   * drains that throw at a replacement or at a row (the row and its starts come again), and through
   * the compaction and growth of both the rows and the starts.
   */
  @Test
  void replacedStartsComeWithTheirRowThroughThrowsCompactionAndGrowth() {
    List<String> expected = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    int next = 0;
    for (int round = 0; round < 6; round++) {
      for (int i = 0; i < 11; i++, next++) {
        String key = "k" + next;
        for (int r = 0; r < next % 3; r++) { // 0 to 2 starts per row
          longs.replaces(100L * next + r);
          expected.add("-" + (100L * next + r) + ":" + key);
        }
        longs.addLong(0, 10, key, next, Timing.EARLY, next % 3, false);
        expected.add("0-10:" + key + "=" + next + " EARLY#" + next % 3);
      }
      ReplacingRecorder visitor = new ReplacingRecorder();
      int failing = next - 3; // a row, or the first start of a row with starts
      while (round % 2 == 1 && failing % 3 == 0) {
        failing--;
      }
      visitor.failAt = (round % 2 == 0 ? "k" : "-k") + failing;
      assertThatThrownBy(() -> longs.drain(visitor)).hasMessageContaining("sink down");
      seen.addAll(keepWholeRows(visitor.seen));
      if (round % 3 == 2) {
        continue; // leave rows waiting: the next round's rows and starts go behind them
      }
      ReplacingRecorder again = new ReplacingRecorder();
      longs.drain(again);
      seen.addAll(again.seen);
    }
    ReplacingRecorder last = new ReplacingRecorder();
    longs.drain(last);
    seen.addAll(last.seen);
    assertThat(seen).isEqualTo(expected);
    assertThat(longs.isEmpty()).isTrue();
  }

  /** The lines of whole rows: a row's starts without their row (it threw) are seen again. */
  private static List<String> keepWholeRows(List<String> lines) {
    int end = lines.size();
    while (end > 0 && lines.get(end - 1).startsWith("-")) {
      end--;
    }
    return new ArrayList<>(lines.subList(0, end));
  }

  /** {@code takeFrom} moves rows with their starts, in order, and empties the other log. */
  @Test
  void takeFromMovesRowsWithTheirReplacedStartsAndEmptiesTheOther() {
    @SuppressWarnings("unchecked")
    PaneLog<String, Long> held =
        new PaneLog<>(
            (Aggregator<?, Object, Long>) (Aggregator<?, ?, ?>) Aggregators.sumLong(), true);
    longs.addLong(0, 5, "a", 1, Timing.EARLY, 0, false);
    held.addLong(0, 10, "b", 2, Timing.EARLY, 0, false);
    held.replaces(7);
    held.replaces(8);
    held.addLong(0, 12, "b", 3, Timing.ON_TIME, 1, true);
    longs.takeFrom(held);
    assertThat(held.isEmpty()).isTrue();
    longs.replaces(9);
    longs.addLong(0, 20, "b", 4, Timing.LATE, 2, false);
    ReplacingRecorder visitor = new ReplacingRecorder();
    assertThat(longs.drain(visitor)).isEqualTo(4);
    assertThat(visitor.seen)
        .containsExactly(
            "0-5:a=1 EARLY#0",
            "0-10:b=2 EARLY#0",
            "-7:b",
            "-8:b",
            "0-12:b=3 ON_TIME#1!",
            "-9:b",
            "0-20:b=4 LATE#2");
    assertThat(longs.oldestStart()).isEqualTo(Long.MAX_VALUE);
  }
}
