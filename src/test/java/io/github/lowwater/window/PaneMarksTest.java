package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link PaneMarks}: indexes, last values and shared accumulators per slot, and the early marks.
 */
class PaneMarksTest {

  @Test
  void eachSlotCountsItsRowsAndRemembersItsLastValueBeyondTheFirstArrays() {
    PaneMarks marks = new PaneMarks(true);
    assertThat(marks.nextIndex(0)).isZero();
    assertThat(marks.nextIndex(1_000)).isZero();
    assertThat(marks.changed(40, 7)).as("no row yet").isTrue();
    assertThat(marks.producedLong(40, 7)).isZero();
    assertThat(marks.producedLong(40, 7)).isEqualTo(1);
    assertThat(marks.nextIndex(40)).isEqualTo(2);
    assertThat(marks.changed(40, 7)).isFalse();
    assertThat(marks.changed(40, 8)).isTrue();
    assertThat(marks.producedLong(15, 3)).isZero();
    assertThat(marks.producedLong(16, 4)).isZero();
    assertThat(marks.changed(15, 3)).isFalse();
    assertThat(marks.changed(16, 3)).isTrue();
    marks.clear();
    assertThat(marks.nextIndex(40)).isZero();
    assertThat(marks.nextIndex(15)).isZero();
    assertThat(marks.changed(40, 7)).isTrue();
  }

  @Test
  void theFirstSlotPastEachArrayGrowsIt() {
    PaneMarks longs = new PaneMarks(true);
    assertThat(longs.producedLong(16, 5)).isZero(); // the first arrays hold 16 slots
    assertThat(longs.changed(16, 5)).isFalse();
    assertThat(longs.producedLong(32, 6)).isZero(); // doubled to 32
    assertThat(longs.nextIndex(32)).isEqualTo(1);
    PaneMarks objects = new PaneMarks(false);
    assertThat(objects.producedShared(64)).isZero(); // the first word holds 64 slots
    assertThat(objects.isShared(64)).isTrue();
    assertThat(objects.producedShared(128)).isZero();
    assertThat(objects.isShared(128)).isTrue();
    objects.clear();
    assertThat(objects.isShared(128)).isFalse();
  }

  @Test
  void anAccumulatorStaysSharedUntilItsNextFoldAndClearForgetsEveryWord() {
    PaneMarks marks = new PaneMarks(false);
    assertThat(marks.changed(100)).isTrue();
    assertThat(marks.isShared(100)).isFalse();
    assertThat(marks.producedShared(100)).isZero();
    assertThat(marks.producedShared(63)).isZero();
    assertThat(marks.producedShared(64)).isZero();
    assertThat(marks.isShared(100)).isTrue();
    assertThat(marks.isShared(99)).isFalse();
    assertThat(marks.isShared(63)).isTrue();
    assertThat(marks.isShared(62)).isFalse();
    assertThat(marks.changed(100)).isFalse();
    marks.unshare(100);
    assertThat(marks.isShared(100)).isFalse();
    assertThat(marks.isShared(64)).isTrue();
    assertThat(marks.changed(100)).as("folded since its row").isTrue();
    marks.unshare(10_000); // beyond the words: nothing to do
    assertThat(marks.producedShared(100)).isEqualTo(1);
    marks.clear();
    assertThat(marks.isShared(63)).isFalse();
    assertThat(marks.isShared(64)).isFalse();
    assertThat(marks.isShared(100)).isFalse();
    assertThat(marks.nextIndex(100)).isZero();
  }

  @Test
  void theFirstMarkAboveTheNewestTimeIsBelowTheEndAndExactAtTheLongBounds() {
    long none = WindowEntries.NO_MARK;
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, Long.MIN_VALUE)).isEqualTo(110);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 99)).isEqualTo(110);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 100)).isEqualTo(110);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 109)).isEqualTo(110);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 110)).isEqualTo(120);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 189)).isEqualTo(190);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 10, 190)).as("200 is the end").isEqualTo(none);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 100, 0))
        .as("the only multiple is the end")
        .isEqualTo(none);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 99, 0)).isEqualTo(199);
    assertThat(PaneMarks.firstMarkAfter(100, 200, 30, 150)).isEqualTo(160);
    assertThat(PaneMarks.firstMarkAfter(Long.MIN_VALUE, Long.MIN_VALUE + 100, 10, Long.MAX_VALUE))
        .as("more than Long.MAX_VALUE past the start")
        .isEqualTo(none);
    assertThat(
            PaneMarks.firstMarkAfter(Long.MAX_VALUE - 100, Long.MAX_VALUE, 10, Long.MAX_VALUE - 50))
        .isEqualTo(Long.MAX_VALUE - 40);
    assertThat(PaneMarks.firstMarkAfter(0, Long.MAX_VALUE, Long.MAX_VALUE - 1, 1))
        .isEqualTo(Long.MAX_VALUE - 1);
    assertThat(PaneMarks.firstMarkAfter(0, Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE - 1))
        .as("the next multiple is past Long.MAX_VALUE")
        .isEqualTo(none);
    assertThat(PaneMarks.firstMarkAfter(0, Long.MAX_VALUE, Long.MAX_VALUE - 1, -1))
        .isEqualTo(Long.MAX_VALUE - 1);
  }
}
