package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A row and its pane: today's one row per window, and the checks of the pane's fields. */
class WindowResultTest {

  @Test
  void todayEveryRowOfEveryKindIsTheWindowsOneOnTimeFinalRow() {
    for (EventTimeWindows<String, Long, Long> w : WindowKindsGuardTest.kinds()) {
      w.add("p", 1, "a", 1L);
      w.add("p", 2, "b", 1L);
      w.add("p", 40, "a", 1L);
      w.finish();
      List<WindowResult<String, Long>> rows = w.pollFinalized();
      assertThat(rows).as("%s", w).isNotEmpty();
      for (WindowResult<String, Long> r : rows) {
        assertThat(r.timing()).as("%s", r).isEqualTo(Timing.ON_TIME);
        assertThat(r.index()).isZero();
        assertThat(r.isFinal()).isTrue();
      }
    }
  }

  @Test
  void theShortConstructorsAreTheOneRowAndASourceKeepsThePane() {
    WindowResult<String, Long> merged = new WindowResult<>(0, 10, "k", 3L);
    assertThat(merged)
        .isEqualTo(new WindowResult<>(0, 10, "k", 3L, null, Timing.ON_TIME, 0, true))
        .isEqualTo(new WindowResult<>(0, 10, "k", 3L, null));
    WindowResult<String, Long> late =
        new WindowResult<>(0, 10, "k", 4L, null, Timing.LATE, 2, true);
    WindowResult<String, Long> tagged = late.withSource("p0");
    assertThat(tagged.source()).isEqualTo("p0");
    assertThat(tagged.timing()).isEqualTo(Timing.LATE);
    assertThat(tagged.index()).isEqualTo(2);
    assertThat(tagged.isFinal()).isTrue();
    assertThat(new WindowResult<>(0, 10, "k", 1L, null, Timing.EARLY, 0, false).isFinal())
        .isFalse();
  }

  @Test
  void everyConstructorMakesACompleteRowAndIncompleteKeepsTheRestOfIt() {
    WindowResult<String, Long> row =
        new WindowResult<>(0, 10, "k", 3L, "p", Timing.LATE, 2, true, List.of(-5L));
    assertThat(row.isComplete()).isTrue();
    assertThat(new WindowResult<>(0, 10, "k", 3L).isComplete()).isTrue();
    WindowResult<String, Long> incomplete = row.incomplete();
    assertThat(incomplete.isComplete()).isFalse();
    assertThat(incomplete)
        .isEqualTo(
            new WindowResult<>(0, 10, "k", 3L, "p", Timing.LATE, 2, true, List.of(-5L), false))
        .isNotEqualTo(row);
    assertThat(incomplete.incomplete()).isSameAs(incomplete);
    assertThat(incomplete.withSource("q").isComplete()).isFalse(); // a source keeps the mark
  }

  @Test
  void aPaneThatCannotBeIsRefusedByName() {
    assertThatThrownBy(() -> new WindowResult<>(0, 10, "k", 1L, null, null, 0, true))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timing");
    assertThatThrownBy(() -> new WindowResult<>(0, 10, "k", 1L, null, Timing.LATE, -1, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("index must be >= 0: -1");
    assertThatThrownBy(() -> new WindowResult<>(0, 10, "k", 1L, null, Timing.EARLY, 0, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("an EARLY row is never final");
  }
}
