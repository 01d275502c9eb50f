package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import io.github.lowwater.WatermarkStrategy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the windows delegate to the tracker: punctuation, lookahead, strategies, timers, handles.
 */
class TumblingWindowsDelegationTest extends WindowsFixture {

  @Test
  void punctuationAndLookaheadFinalizeWindowsTheyPass() {
    TumblingWindows<String, Long, Long> w = builder().build();
    w.add("p0", 10, "k", 1L);
    w.add("p1", 10, "k", 1L);
    w.punctuate("p0", SIZE);
    assertThat(w.pollFinalized()).isEmpty();
    w.lookahead("p1", SIZE + 5, SIZE + 50);
    assertThat(w.pollFinalized())
        .extracting(WindowResult::end, WindowResult::value)
        .containsExactly(tuple(SIZE, 2L));
  }

  @Test
  void punctuatedStrategyClosesWindowsOnlyOnPunctuation() {
    TumblingWindows<String, Long, Long> w =
        builder().strategy(WatermarkStrategy.PUNCTUATED).build();
    w.add("p0", 10, "k", 1L);
    w.add("p0", 5 * SIZE, "k", 1L);
    assertThat(w.pollFinalized()).isEmpty();
    w.punctuate("p0", SIZE);
    assertThat(w.pollFinalized()).extracting(WindowResult::end).containsExactly(SIZE);
  }

  @Test
  void timerFiresFromTheAddThatMovesTheWatermark() {
    TumblingWindows<String, Long, Long> w = builder().build();
    List<Long> fired = new ArrayList<>();
    w.registerTimer(SIZE, (t, wm) -> fired.add(wm));
    w.add("p0", SIZE - 1, "k", 1L);
    assertThat(fired).isEmpty();
    w.add("p0", SIZE, "k", 1L);
    assertThat(fired).containsExactly(SIZE);
  }

  @Test
  void handleAddsLikeItsKeyAndHandlersSeeTheKey() {
    TumblingWindows<String, Long, Long> w = builder().build();
    var p0 = w.source("p0");
    assertThat(w.add(p0, now, "k", 2L)).isTrue();
    assertThat(w.add((Object) p0, now + 1, "k", 3L)).isTrue();
    assertThat(w.add("p0", now + 2, "k", 4L)).isTrue();
    assertThat(w.frontier("p0")).isEqualTo(now + 2);
    assertThat(w.add(p0, now - 2 * SIZE, "k", 1L)).isFalse();
    assertThat(late).containsExactly("p0@" + (now - 2 * SIZE));
    assertThat(w.lateBySource()).containsExactly(entry("p0", 1L));
    w.advanceTo(Long.MAX_VALUE);
    assertThat(w.pollFinalized()).extracting(WindowResult::value).containsExactly(9L);
  }

  @Test
  void handleOfOtherWindowsIsRejectedAndChangesNothing() {
    TumblingWindows<String, Long, Long> w = builder().build();
    TumblingWindows<String, Long, Long> other = builder().build();
    var foreign = other.source("p0");
    assertThatThrownBy(() -> w.add(foreign, now, "k", 1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("source handle belongs to other windows: p0");
    assertThat(w.stats().accepted()).isZero();
    assertThat(w.stats().openWindows()).isZero();
  }
}
