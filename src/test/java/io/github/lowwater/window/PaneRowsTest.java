package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PaneRows} and {@link PaneMarks} on one window of {@code long}s: a key's index and last
 * value survive the window's turn from the indexed form to the dense one, where the marks move from
 * entry positions to key ids.
 */
class PaneRowsTest {

  private final KeyDictionary keys = new KeyDictionary(live -> Arrays.fill(live, -1L));
  private final WindowCounters counters = new WindowCounters();

  @SuppressWarnings("unchecked") // the log of a long aggregator never calls result
  private final PaneLog<String, Long> log =
      new PaneLog<>(
          (Aggregator<?, Object, Long>) (Aggregator<?, ?, ?>) Aggregators.sumLong(), true);

  private final PaneRows<String, Long> rows = new PaneRows<>(log, keys, counters, true);
  private final LongFold sum = (LongFold) Aggregators.sumLong();

  private void fold(WindowEntries w, String key, long value) {
    w.fold(keys.id(key), value, sum, keys.idBound());
  }

  private List<String> drained() {
    List<String> seen = new ArrayList<>();
    log.drain(
        new ResultVisitor<String, Long>() {
          @Override
          public void visit(long start, long end, String key, Long result) {
            throw new AssertionError("rows of longs come through visitLongPane");
          }

          @Override
          public void visitLongPane(
              long start, long end, String key, long result, Timing t, int index, boolean f) {
            seen.add(key + "=" + result + " " + t + "#" + index);
          }
        });
    return seen;
  }

  @Test
  void aKeysIndexAndLastValueSurviveTheWindowTurningDense() {
    for (int k = 39; k >= 0; k--) {
      keys.id("k" + k); // ids in the reverse order of the window's first events: k0 has id 39
    }
    WindowEntries w = new WindowEntries(true, true).reset(0, 10, 0, keys.idBound());
    fold(w, "k0", 1);
    fold(w, "k1", 1);
    rows.early(w);
    assertThat(drained()).containsExactly("k0=1 EARLY#0", "k1=1 EARLY#0");
    assertThat(w.dense()).isFalse();

    for (int k = 2; k < 40; k++) {
      fold(w, "k" + k, 1);
    }
    assertThat(w.dense()).as("the window holds every id: it turned dense").isTrue();
    fold(w, "k0", 1);
    rows.early(w);
    List<String> second = drained();
    assertThat(second).startsWith("k0=2 EARLY#1").doesNotContain("k1=1 EARLY#1");
    assertThat(second).hasSize(39).contains("k2=1 EARLY#0", "k39=1 EARLY#0");

    rows.late(w, keys.id("k1"));
    rows.onTime(w, true);
    List<String> third = drained();
    assertThat(third.get(0)).isEqualTo("k1=1 LATE#1");
    assertThat(third).contains("k0=2 ON_TIME#2", "k1=1 ON_TIME#2", "k2=1 ON_TIME#1");
    assertThat(counters.snapshot(0, 0).earlyRows()).isEqualTo(41);
  }

  @Test
  void aReusedWindowForgetsTheRowsOfItsLastSpan() {
    WindowEntries w = new WindowEntries(true, true).reset(0, 10, 0, 1);
    fold(w, "a", 5);
    rows.onTime(w, true);
    assertThat(drained()).containsExactly("a=5 ON_TIME#0");
    w.reset(10, 20, 1, keys.idBound()); // expected to hold every id: dense from the start
    assertThat(w.dense()).isTrue();
    fold(w, "a", 5);
    rows.early(w);
    assertThat(drained())
        .as("a new span: the first row, whatever the value")
        .containsExactly("a=5 EARLY#0");
  }
}
