package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What every kind promises through {@link EventTimeWindows}, checked on each of the four: the empty
 * poll, the drain's count, {@code lastWindowEnd} as the lateness edge, {@code isLate} as the
 * verdict of {@code add}, and {@code markWritten}.
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
    assertThat(kinds.get(3).lastWindowEnd(14)).as("sliding [5, 15)").isEqualTo(15);
    for (int k = 0; k < 3; k++) {
      assertThat(kinds.get(k).lastAffectedWindowEnd(14)).isEqualTo(kinds.get(k).lastWindowEnd(14));
    }
    assertThat(kinds.get(3).lastAffectedWindowEnd(14)).as("sliding [15, 25)").isEqualTo(25);
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
    // [-6,4) ends by 10; 12's own [3,13) and 3's right window [4,14) are later
    assertThat(rows.get(3)).as("sliding").containsExactly("[3,13)=2", "[4,14)=1");
    for (EventTimeWindows<String, Long, Long> w : kinds) {
      assertThat(w.stats().openWindows()).as("%s: dropped ones are gone too", w).isZero();
      assertThat(w.stats().openEntries()).isZero();
    }
  }

  /**
   * {@code isLate} is the decision {@code add} makes, asked first: on random feeds with disorder,
   * equal times, sessions that a late-looking event still joins, and events beyond the future guard
   * under both policies, it says {@code true} exactly when {@code add} then returns {@code false},
   * and asking changes nothing.
   */
  @Test
  void isLateIsTheVerdictOfTheAddThatFollows() {
    int lateSeen = 0;
    int joinedSeen = 0;
    for (int trace = 0; trace < Trials.of(300); trace++) {
      SplittableRandom random = new SplittableRandom(trace);
      ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
      FutureEventPolicy policy =
          random.nextBoolean() ? FutureEventPolicy.LATE : FutureEventPolicy.ACCEPT;
      TumblingWindows.Builder<Long, Long> tumbling =
          TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong());
      HoppingWindows.Builder<Long, Long> hopping =
          HoppingWindows.builder(
              Duration.ofMillis(12), Duration.ofMillis(4), Aggregators.sumLong());
      SessionWindows.Builder<Long, Long> sessions =
          SessionWindows.builder(Duration.ofMillis(6), Aggregators.sumLong());
      SlidingWindows.Builder<Long, Long> sliding =
          SlidingWindows.builder(Duration.ofMillis(7), Aggregators.sumLong());
      List<EventTimeWindows<String, Long, Long>> kinds =
          List.of(
              guarded(tumbling, clock, policy).<String, Long>build(),
              guarded(hopping, clock, policy).<String, Long>build(),
              guarded(sessions, clock, policy).<String, Long>build(),
              guarded(sliding, clock, policy).<String, Long>build());
      for (EventTimeWindows<String, Long, Long> w : kinds) {
        for (int i = 0; i < 200; i++) {
          clock.advance(Duration.ofMillis(random.nextInt(3)));
          String source = "p" + random.nextInt(3);
          // Mostly near the wall clock, some behind by up to 40 ms, some beyond the 20 ms guard.
          long t = clock.wallMillis() - 40 + random.nextInt(70);
          String key = "k" + random.nextInt(4);
          WindowStats before = w.stats();
          boolean late = w.isLate(t, key);
          assertThat(w.stats()).as("asking changes nothing").isEqualTo(before);
          boolean closedByRule = w.lastWindowEnd(t) <= w.watermark();
          boolean accepted = w.add(source, t, key, 1L);
          assertThat(late).as("trace %d, %s, t %d, key %s", trace, w, t, key).isEqualTo(!accepted);
          lateSeen += late ? 1 : 0;
          joinedSeen += closedByRule && accepted ? 1 : 0;
        }
      }
    }
    assertThat(lateSeen).as("late events reached").isGreaterThan(100);
    assertThat(joinedSeen).as("late-looking events that joined an open session").isPositive();
  }

  static <B extends EventTimeOptions<B>> B guarded(
      B builder, ManualClock clock, FutureEventPolicy policy) {
    return builder
        .allowedLateness(Duration.ofMillis(5))
        .clock(clock)
        .maxFutureSkew(Duration.ofMillis(20))
        .futureEventPolicy(policy);
  }
}
