package io.github.lowwater.align;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventAlignerTest {

  private final ManualClock clock = new ManualClock();
  private final List<String> released = new ArrayList<>();
  private final List<String> late = new ArrayList<>();

  private EventAligner<String, String> aligner(long latenessMillis) {
    return EventAligner.<String, String>builder()
        .allowedLateness(Duration.ofMillis(latenessMillis))
        .idleTimeout(Duration.ofMinutes(1))
        .clock(clock)
        .lateEventHandler((s, o, t, p) -> late.add(s + "/" + o + "@" + t))
        .build();
  }

  private int release(EventAligner<String, String> a) {
    return a.release((s, o, t, p) -> released.add(s + "/" + o + "@" + t + ":" + p));
  }

  @Test
  void releasesBelowTheWatermarkInEventTimeSourceOffsetOrder() {
    EventAligner<String, String> a = aligner(10);
    a.register("a");
    a.register("b");
    a.push("b", 0, 10, "x");
    a.push("b", 1, 30, "y");
    a.push("a", 0, 20, "z");
    a.push("a", 1, 10, "w"); // out of order within a
    assertThat(release(a)).isZero(); // watermark 10: min(a 20, b 30) - 10
    assertThat(a.watermark()).isEqualTo(10);
    assertThat(a.buffered()).isEqualTo(4);
    a.push("a", 2, 40, "v"); // watermark 20: min(a 40, b 30) - 10
    assertThat(release(a)).isEqualTo(2);
    assertThat(released).containsExactly("a/1@10:w", "b/0@10:x");
    a.advanceTo(Long.MAX_VALUE);
    release(a);
    assertThat(released)
        .containsExactly("a/1@10:w", "b/0@10:x", "a/0@20:z", "b/1@30:y", "a/2@40:v");
    assertThat(a.buffered()).isZero();
  }

  @Test
  void eventAtTheWatermarkIsBufferedOneBelowIsLate() {
    EventAligner<String, String> a = aligner(0);
    a.push("a", 0, 100, "p");
    assertThat(a.watermark()).isEqualTo(100);
    assertThat(a.push("a", 1, 100, "q")).isTrue(); // equal timestamp on the slowest source
    assertThat(a.push("a", 2, 99, "r")).isFalse();
    assertThat(late).containsExactly("a/2@99");
    assertThat(a.stats()).isEqualTo(new AlignerStats(1, 2, 100));
    a.push("a", 3, 101, "s");
    release(a);
    assertThat(released).containsExactly("a/0@100:p", "a/1@100:q");
  }

  @Test
  void removedSourceKeepsItsBufferedEvents() {
    EventAligner<String, String> a = aligner(0);
    a.push("slow", 0, 5, "keep");
    a.push("fast", 0, 50, "f");
    assertThat(a.remove("slow")).isTrue();
    release(a);
    assertThat(released).containsExactly("slow/0@5:keep");
  }

  @Test
  void customSourceOrderBreaksTies() {
    EventAligner<String, String> a =
        EventAligner.<String, String>builder()
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .sourceOrder(Comparator.reverseOrder())
            .build();
    a.push("a", 0, 10, "1");
    a.push("b", 0, 10, "2");
    a.advanceTo(11);
    release(a);
    assertThat(released).containsExactly("b/0@10:2", "a/0@10:1");
  }

  @Test
  void withinASourceEqualTimesGoByOffsetThenByPushOrder() {
    EventAligner<String, String> a = aligner(0);
    a.push("a", 7, 10, "1");
    a.push("a", 3, 10, "2");
    a.push("a", 5, 10, "3");
    a.push("a", 5, 10, "4"); // a full tie with the one before: push order
    a.push("a", 5, 10, "5");
    a.advanceTo(11);
    assertThat(release(a)).isEqualTo(5);
    assertThat(released)
        .containsExactly("a/3@10:2", "a/5@10:3", "a/5@10:4", "a/5@10:5", "a/7@10:1");
  }

  /** Sources that the source order ties are interleaved by offset, then push order. */
  @Test
  void sourcesTheOrderTiesGoByOffsetThenByPushOrder() {
    EventAligner<String, String> a =
        EventAligner.<String, String>builder()
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .sourceOrder(Comparator.comparing(source -> source.substring(0, 1)))
            .build();
    a.push("p2", 7, 10, "1");
    a.push("p1", 3, 10, "2");
    a.push("p3", 5, 10, "3");
    a.push("p2", 5, 10, "4"); // a full tie with p3's: push order
    a.advanceTo(11);
    release(a);
    assertThat(released).containsExactly("p1/3@10:2", "p3/5@10:3", "p2/5@10:4", "p2/7@10:1");
  }

  @Test
  void moreSourcesThanTheInitialHeapAreAllReleasedInOrder() {
    EventAligner<String, String> a = aligner(0);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      a.register(String.format("s%02d", i)); // holds the watermark until every source has pushed
    }
    for (int i = 19; i >= 0; i--) {
      assertThat(a.push(String.format("s%02d", i), 0, 100 + i, "x")).isTrue();
    }
    for (int i = 0; i < 20; i++) {
      expected.add(String.format("s%02d/0@%d:x", i, 100 + i));
    }
    a.advanceTo(1_000);
    assertThat(release(a)).isEqualTo(20);
    assertThat(released).isEqualTo(expected);
  }

  @Test
  void aSourceWhoseBufferWasEmptiedIsReleasedAgainAfterItsNextPush() {
    EventAligner<String, String> a = aligner(0);
    a.push("a", 0, 1, "first");
    a.advanceTo(10);
    assertThat(release(a)).isEqualTo(1);
    assertThat(a.buffered()).isZero();
    a.push("a", 1, 20, "second");
    a.advanceTo(30);
    assertThat(release(a)).isEqualTo(1);
    assertThat(released).containsExactly("a/0@1:first", "a/1@20:second");
  }

  @Test
  void aLateEventIsStillActivityOfItsSource() {
    EventAligner<String, String> a = aligner(0);
    a.push("slow", 0, 5, "x");
    a.push("fast", 0, 50, "x"); // watermark 5
    clock.advance(Duration.ofSeconds(40));
    assertThat(a.push("slow", 1, 4, "late")).isFalse();
    a.push("fast", 1, 60, "x");
    clock.advance(Duration.ofSeconds(30)); // slow: 30 s since its late event, not 70 s
    a.refresh();
    assertThat(a.watermark()).as("slow is active and holds").isEqualTo(5);
    assertThat(a.stats().late()).isEqualTo(1);
  }

  @Test
  void heartbeatKeepsASourceActiveWithoutAnEvent() {
    EventAligner<String, String> a = aligner(0);
    a.push("slow", 0, 5, "x");
    a.push("fast", 0, 50, "x");
    clock.advance(Duration.ofSeconds(40));
    a.heartbeat("slow");
    a.push("fast", 1, 60, "x");
    clock.advance(Duration.ofSeconds(30)); // slow: 30 s since its heartbeat
    a.refresh();
    assertThat(a.watermark()).isEqualTo(5);
  }

  @Test
  void refreshRetiresASourceSilentForLongerThanTheIdleTimeout() {
    EventAligner<String, String> a = aligner(0);
    a.push("slow", 0, 5, "x");
    clock.advance(Duration.ofSeconds(30));
    a.push("fast", 0, 50, "x"); // watermark 5
    clock.advance(Duration.ofSeconds(31)); // slow: 61 s, fast: 31 s
    assertThat(a.watermark()).as("reading has no side effect").isEqualTo(5);
    a.refresh();
    assertThat(a.watermark()).isEqualTo(50);
    release(a);
    assertThat(released).containsExactly("slow/0@5:x");
  }

  @Test
  void removeReportsWhetherTheSourceWasKnown() {
    EventAligner<String, String> a = aligner(0);
    a.push("a", 0, 5, "x");
    assertThat(a.remove("unknown")).isFalse();
    assertThat(a.remove("a")).isTrue();
    assertThat(a).hasToString("EventAligner{watermark=5, buffered=1}");
  }

  @Test
  void nonComparableSourceWithoutOrderIsRejectedAndChangesNothing() {
    EventAligner<Object, String> a = EventAligner.<Object, String>builder().clock(clock).build();
    Object source =
        new Object() {
          @Override
          public String toString() {
            return "tp-0";
          }
        };
    assertThatThrownBy(() -> a.push(source, 0, 1, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("source must be Comparable, or set Builder.sourceOrder: tp-0");
    assertThatThrownBy(() -> a.push(null, 0, 1, "x")).hasMessage("source");
    assertThat(a.buffered()).isZero();
    assertThat(a.watermark()).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void handlerExceptionCountsThatEventAsReleasedAndKeepsTheRest() {
    EventAligner<String, String> a = aligner(0);
    a.push("a", 0, 1, "boom");
    a.push("a", 1, 2, "ok");
    a.advanceTo(10);
    assertThatThrownBy(
            () ->
                a.release(
                    (s, o, t, p) -> {
                      throw new IllegalStateException(p);
                    }))
        .hasMessage("boom");
    assertThat(a.buffered()).isEqualTo(1);
    release(a);
    assertThat(released).containsExactly("a/1@2:ok");
  }

  @Test
  void builderRejectsNullsAndRepeats() {
    EventAligner.Builder<String, String> b = EventAligner.builder();
    assertThatThrownBy(() -> b.sourceOrder(null)).hasMessage("sourceOrder");
    assertThatThrownBy(() -> b.lateEventHandler(null)).hasMessage("lateEventHandler");
    b.sourceOrder(Comparator.naturalOrder());
    assertThatThrownBy(() -> b.sourceOrder(Comparator.naturalOrder()))
        .isInstanceOf(IllegalStateException.class);
    AlignedEventHandler<String, String> handler = (s, o, t, p) -> late.add(s);
    b.lateEventHandler(handler);
    assertThatThrownBy(() -> b.lateEventHandler(handler))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("lateEventHandler was already set to ");
    assertThatThrownBy(() -> b.build().release(null)).hasMessage("handler");
  }

  /**
   * Model-based: the aligner against a naive buffer that re-sorts everything on every release, over
   * seeded random traces. The concatenation of all releases must be sorted and equal the
   * reference's, and every pushed event is released or late exactly once.
   */
  @Test
  void matchesANaiveSortedListBufferOnRandomTraces() {
    for (long seed = 1; seed <= Trials.of(300); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      long lateness = random.nextInt(3) == 0 ? 0 : random.nextInt(2_000);
      EventAligner<Integer, Long> a =
          EventAligner.<Integer, Long>builder()
              .allowedLateness(Duration.ofMillis(lateness))
              .idleTimeout(Duration.ofMillis(1 + random.nextInt(5_000)))
              .clock(clock)
              .build();
      List<long[]> naive = new ArrayList<>(); // {t, source, offset, seq}
      List<long[]> releasedByAligner = new ArrayList<>();
      List<long[]> releasedByNaive = new ArrayList<>();
      int sources = 1 + random.nextInt(6);
      long[] next = new long[sources];
      long[] offsets = new long[sources];
      long pushed = 0;
      long seq = 0;
      for (int step = 0; step < 1_000; step++) {
        int dice = random.nextInt(100);
        if (dice < 75) {
          int s = random.nextInt(sources);
          next[s] += random.nextInt(400);
          long t = next[s] - (random.nextInt(4) == 0 ? random.nextInt(3_000) : 0);
          long wm = a.watermark();
          boolean buffered = a.push(s, offsets[s], t, seq);
          assertThat(buffered)
              .as("seed %d step %d: late iff t < watermark", seed, step)
              .isEqualTo(t >= wm);
          if (buffered) {
            naive.add(new long[] {t, s, offsets[s], seq});
          }
          offsets[s]++;
          seq++;
          pushed++;
        } else if (dice < 85) {
          clock.advanceMillis(random.nextInt(3_000));
        } else if (dice < 90) {
          a.refresh();
        } else {
          a.release((s, o, t, p) -> releasedByAligner.add(new long[] {t, s, o, p}));
          long wm = a.watermark();
          naive.sort(
              Comparator.<long[]>comparingLong(e -> e[0])
                  .thenComparingLong(e -> e[1])
                  .thenComparingLong(e -> e[2])
                  .thenComparingLong(e -> e[3]));
          while (!naive.isEmpty() && naive.get(0)[0] < wm) {
            releasedByNaive.add(naive.remove(0));
          }
          assertThat(releasedByAligner)
              .as("seed %d step %d", seed, step)
              .usingElementComparator(EventAlignerTest::compareEvents)
              .isEqualTo(releasedByNaive);
          assertThat(a.buffered())
              .as("seed %d step %d: buffered", seed, step)
              .isEqualTo(naive.size());
        }
      }
      assertThat(releasedByAligner.size() + a.buffered() + a.stats().late())
          .as("seed %d", seed)
          .isEqualTo(pushed);
    }
  }

  private static int compareEvents(long[] x, long[] y) {
    return java.util.Arrays.compare(x, y);
  }
}
