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
  static final class Recorder<R> implements ResultVisitor<String, R> {
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
}
