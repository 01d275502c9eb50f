package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every kind promises through {@link EventTimeWindows}, checked on each of the three: the
 * empty poll, the drain's count, {@code lastWindowEnd} as the lateness edge, and {@code
 * markWritten}.
 */
class WindowKindsContractTest {

  @Test
  void pollFinalizedWithNothingReadyIsTheImmutableEmptyList() {
    for (EventTimeWindows<String, Long, Long> w : WindowKindsGuardTest.kinds()) {
      w.add("p", 1, "k", 1L);
      List<WindowResult<String, Long>> none = w.pollFinalized();
      assertThat(none).as("%s", w).isEmpty();
      assertThatThrownBy(() -> none.add(null)).isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void drainFinalizedReturnsTheNumberOfResultsItVisited() {
    for (EventTimeWindows<String, Long, Long> w : WindowKindsGuardTest.kinds()) {
      w.add("p", 1, "a", 1L);
      w.add("p", 2, "b", 1L);
      w.add("p", 3, "c", 1L);
      w.finish();
      List<String> visited = new ArrayList<>();
      int count = w.drainFinalized((s, e, k, v) -> visited.add(k));
      assertThat(count).as("%s", w).isEqualTo(visited.size()).isPositive();
      assertThat(w.drainFinalized((s, e, k, v) -> visited.add(k))).isZero();
    }
  }

  @Test
  void lastWindowEndIsTheEndAtWhichTheWatermarkMakesAnEventLate() {
    for (EventTimeWindows<String, Long, Long> w : WindowKindsGuardTest.kinds()) {
      long end = w.lastWindowEnd(14); // tumbling [10,20), hopping [10,20), session 14 + 5
      w.add("p", end, "k", 1L); // watermark = end
      assertThat(w.add("p", 14, "x", 1L)).as("%s: late at its last end", w).isFalse();
      assertThat(w.add("p", end, "y", 1L)).as("%s: its next window is open", w).isTrue();
    }
    List<EventTimeWindows<String, Long, Long>> kinds = WindowKindsGuardTest.kinds();
    assertThat(kinds.get(0).lastWindowEnd(14)).isEqualTo(20);
    assertThat(kinds.get(1).lastWindowEnd(14)).isEqualTo(20);
    assertThat(kinds.get(2).lastWindowEnd(14)).isEqualTo(19);
  }

  @Test
  void markWrittenDropsTheWindowsEndingByItAndReturnsTheLaterOnes() {
    List<EventTimeWindows<String, Long, Long>> kinds = WindowKindsGuardTest.kinds();
    List<List<String>> rows = new ArrayList<>();
    for (EventTimeWindows<String, Long, Long> w : kinds) {
      w.markWritten(10);
      w.markWritten(5); // monotone: changes nothing
      w.add("p", 3, "k", 1L);
      w.add("p", 12, "k", 1L);
      w.finish();
      List<String> r = new ArrayList<>();
      w.drainFinalized((s, e, k, v) -> r.add("[" + s + "," + e + ")=" + v));
      rows.add(r);
    }
    assertThat(rows.get(0)).as("tumbling").containsExactly("[10,20)=1");
    assertThat(rows.get(1)).as("hopping").containsExactly("[5,15)=1", "[10,20)=1");
    assertThat(rows.get(2)).as("sessions").containsExactly("[12,17)=1");
    for (EventTimeWindows<String, Long, Long> w : kinds) {
      assertThat(w.stats().openWindows()).as("%s: dropped ones are gone too", w).isZero();
      assertThat(w.stats().openEntries()).isZero();
    }
  }
}
