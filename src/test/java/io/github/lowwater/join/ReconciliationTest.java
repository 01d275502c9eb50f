package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The co-group of two streams on the window kinds, at its edges (docs/semantics.md, rule 71). */
class ReconciliationTest {

  private static final Aggregator<Sided<Long, Long>, ?, Reconciled<Long, Long>> SUMS =
      Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals);

  private static TumblingWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> tumbling(
      List<String> late) {
    TumblingWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
        TumblingWindows.builder(Duration.ofMillis(10), SUMS)
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .lateEventHandler((s, t, end, w, key, value) -> late.add(key + " " + value))
            .build();
    windows.register("source");
    windows.register("target");
    return windows;
  }

  @Test
  void eachKeyOfAWindowSaysWhetherTheSidesMatchDifferOrOneIsMissing() {
    var windows = tumbling(new ArrayList<>());
    windows.add("source", 1, "same", Sided.left(5L));
    windows.add("target", 2, "same", Sided.right(2L));
    windows.add("target", 3, "same", Sided.right(3L));
    windows.add("source", 4, "differs", Sided.left(3L));
    windows.add("target", 5, "differs", Sided.right(4L));
    windows.add("source", 6, "only-source", Sided.left(1L));
    windows.add("target", 7, "only-target", Sided.right(1L));
    windows.add("source", 10, "next", Sided.left(0L));
    assertThat(windows.pollFinalized()).isEmpty(); // the target side has not reached 10
    windows.add("target", 10, "next", Sided.right(0L));
    assertThat(windows.pollFinalized())
        .extracting(WindowResult::key, WindowResult::value)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "same", new Reconciled<>(Reconciled.Status.MATCHED, 5L, 5L, 1, 2)),
            org.assertj.core.groups.Tuple.tuple(
                "differs", new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 1)),
            org.assertj.core.groups.Tuple.tuple(
                "only-source", new Reconciled<>(Reconciled.Status.LEFT_ONLY, 1L, null, 1, 0)),
            org.assertj.core.groups.Tuple.tuple(
                "only-target", new Reconciled<>(Reconciled.Status.RIGHT_ONLY, null, 1L, 0, 1)));
  }

  @Test
  void aRecordDelayedOnOneSideIsFoldedInAndOneAfterTheWindowClosedTakesTheLatePathWithItsSide() {
    List<String> late = new ArrayList<>();
    var windows = tumbling(late);
    windows.add("source", 5, "k", Sided.left(7L));
    for (long t = 10; t < 100; t += 10) {
      windows.add("source", t, "busy", Sided.left(1L));
    }
    windows.add("target", 9, "k", Sided.right(7L)); // delayed: 9 ms behind the source side
    windows.add("target", 10, "busy", Sided.right(1L));
    assertThat(windows.pollFinalized())
        .extracting(WindowResult::value)
        .extracting(Reconciled::status)
        .containsExactly(Reconciled.Status.MATCHED);
    windows.add("target", 9, "k", Sided.right(1L)); // its window [0, 10) is closed now
    assertThat(late).containsExactly("k RIGHT(1)");
  }

  @Test
  void hoppingAndSessionWindowsMergeEachSideWithItsOwnAggregator() {
    var hopping =
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), SUMS)
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .<String, Sided<Long, Long>>build();
    hopping.add("s", 3, "k", Sided.left(1L));
    hopping.add("s", 7, "k", Sided.right(1L));
    hopping.add("s", 8, "k", Sided.left(2L));
    hopping.finish();
    assertThat(hopping.pollFinalized())
        .extracting(r -> r.start() + " " + r.value())
        .containsExactly(
            "-5 LEFT_ONLY(left 1 x1, right null x0)",
            "0 DIFFERENT(left 3 x2, right 1 x1)",
            "5 DIFFERENT(left 2 x1, right 1 x1)");
    var sessions =
        SessionWindows.builder(Duration.ofMillis(5), SUMS)
            .allowedLateness(Duration.ofMillis(100)) // nothing closes before finish
            .clock(new ManualClock())
            .<String, Sided<Long, Long>>build();
    sessions.add("s", 0, "k", Sided.left(4L));
    sessions.add("s", 8, "k", Sided.right(4L));
    sessions.add("s", 4, "k", Sided.right(0L)); // bridges the two sessions
    sessions.finish();
    assertThat(sessions.pollFinalized())
        .extracting(r -> r.start() + ".." + r.end() + " " + r.value())
        .containsExactly("0..13 MATCHED(left 4 x1, right 4 x2)");
  }

  @Test
  void aReconciliationOfAggregatorsThatCannotMergeIsRefusedByTheKindsThatMerge() {
    Aggregator<Long, ?, Long> plain = Aggregators.of(() -> new long[1], (a, v) -> a, a -> a[0]);
    var noMerge = Reconciliation.of(plain, Aggregators.sumLong(), Long::equals);
    assertThat(Aggregator.canMerge(noMerge)).isFalse();
    assertThat(Aggregator.canMerge(SUMS)).isTrue();
    assertThatThrownBy(
            () ->
                HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), noMerge)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Aggregator.merge");
    assertThatThrownBy(() -> Reconciliation.of(null, plain, Long::equals)).hasMessage("left");
    assertThatThrownBy(() -> Sided.left(null)).hasMessage("value");
    assertThatThrownBy(() -> Sided.<Long, Long>left(1L).right())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a left value has no right(): LEFT(1)");
  }

  @Test
  void aComparisonThatThrowsLeavesTheRowQueuedForTheNextPoll() {
    boolean[] fail = {true};
    var windows =
        TumblingWindows.builder(
                Duration.ofMillis(10),
                Reconciliation.of(
                    Aggregators.sumLong(),
                    Aggregators.sumLong(),
                    (Long a, Long b) -> {
                      if (fail[0]) {
                        throw new IllegalStateException("boom");
                      }
                      return a.equals(b);
                    }))
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .<String, Sided<Long, Long>>build();
    windows.add("s", 1, "k", Sided.left(1L));
    windows.add("s", 2, "k", Sided.right(1L));
    windows.add("s", 10, "other", Sided.left(1L));
    assertThatThrownBy(windows::pollFinalized).hasMessage("boom");
    fail[0] = false;
    assertThat(windows.pollFinalized())
        .extracting(r -> r.value().status())
        .containsExactly(Reconciled.Status.MATCHED);
  }
}
