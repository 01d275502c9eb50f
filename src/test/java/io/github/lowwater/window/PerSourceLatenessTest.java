package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link EventTimeOptions#perSourceLateness()}, semantics rule 72. */
class PerSourceLatenessTest {

  private static TumblingWindows<String, Long, Long> windows(boolean perSource, List<String> late) {
    TumblingWindows.Builder<Long, Long> b =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .lateEventHandler((s, t, end, w, key, value) -> late.add(s + "@" + t + " w" + w));
    if (perSource) {
      b.perSourceLateness();
    }
    TumblingWindows<String, Long, Long> windows = b.build();
    windows.register("fast");
    windows.register("slow");
    return windows;
  }

  @Test
  void anEventIsJudgedAgainstItsOwnSourcesWatermarkWhileWindowsCloseOnTheShared() {
    List<String> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> windows = windows(true, late);
    windows.add("fast", 25, "k", 1L);
    windows.add("slow", 5, "k", 1L);
    assertThat(windows.watermark()).isEqualTo(5);
    // [10, 20) is open on the shared watermark, but the fast source's own is 25: late for it.
    assertThat(windows.isLate("fast", 19, "k")).isTrue();
    assertThat(windows.isLate("slow", 19, "k")).isFalse();
    assertThat(windows.add("fast", 19, "k", 1L)).isFalse();
    assertThat(windows.add("slow", 19, "k", 1L)).isTrue();
    // The fast source's own window is still open: ends 30 > 25.
    assertThat(windows.add("fast", 20, "k", 1L)).isTrue();
    assertThat(late).containsExactly("fast@19 w25");
    // The shared watermark is the slow source's 19: [0, 10) closes, [10, 20) waits for it.
    assertThat(windows.pollFinalized())
        .extracting(r -> r.start() + "=" + r.value())
        .containsExactly("0=1");
    windows.add("slow", 30, "k", 1L);
    assertThat(windows.watermark()).isEqualTo(25);
    assertThat(windows.pollFinalized())
        .extracting(r -> r.start() + "=" + r.value())
        .containsExactly("10=1");
    windows.add("fast", 30, "k", 1L);
    assertThat(windows.pollFinalized())
        .extracting(r -> r.start() + "=" + r.value())
        .containsExactly("20=2");
  }

  @Test
  void theSharedWatermarkJudgesWhenItIsHigherAfterAQuietPeriodAdvanceOrFinish() {
    List<String> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> windows = windows(true, late);
    windows.add("fast", 25, "k", 1L);
    windows.add("slow", 5, "k", 1L);
    windows.advanceTo(40);
    assertThat(windows.add("fast", 35, "k", 1L)).isFalse();
    windows.finish();
    assertThat(windows.add("slow", 1_000, "k", 1L)).isFalse();
    assertThat(late).containsExactly("fast@35 w40", "slow@1000 w" + Long.MAX_VALUE);
  }

  @Test
  void withoutTheOptionAnEventIsJudgedAgainstTheSharedWatermark() {
    List<String> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> windows = windows(false, late);
    windows.add("fast", 25, "k", 1L);
    windows.add("slow", 5, "k", 1L);
    assertThat(windows.perSourceLateness()).isFalse();
    assertThat(windows.add("fast", 19, "k", 1L)).isTrue();
    assertThat(late).isEmpty();
  }

  @Test
  void perSourceLatenessIsRefusedWhereItCannotKeepItsPromiseYet() {
    assertThatThrownBy(
            () ->
                SessionWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
                    .perSourceLateness()
                    .build())
        .hasMessage(
            "perSourceLateness is for tumbling, hopping and sliding windows, not session windows"
                + " (semantics rule 72)");
    assertThatThrownBy(
            () ->
                TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
                    .perSourceLateness()
                    .grace(Duration.ofMillis(5))
                    .build())
        .hasMessage(
            "perSourceLateness does not combine with early results or a grace period (semantics"
                + " rule 72): earlyResults null, grace PT0.005S");
    TumblingWindows.Builder<Long, Long> b =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong()).perSourceLateness();
    assertThatThrownBy(b::perSourceLateness)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("perSourceLateness was already set to true");
  }

  private static EventTimeWindows<String, Long, Long> windows(
      int kind, long size, long advance, long lateness, boolean perSource, List<String> late) {
    LateEventHandler<Long> handler = (s, t, end, w, key, value) -> late.add(s + "@" + t + key);
    if (kind == 2) {
      SlidingWindows.Builder<Long, Long> b =
          SlidingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(lateness))
              .clock(new ManualClock())
              .lateEventHandler(handler);
      return (perSource ? b.perSourceLateness() : b).build();
    }
    if (kind == 1) {
      HoppingWindows.Builder<Long, Long> b =
          HoppingWindows.builder(
                  Duration.ofMillis(size), Duration.ofMillis(advance), Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(lateness))
              .clock(new ManualClock())
              .lateEventHandler(handler);
      return (perSource ? b.perSourceLateness() : b).build();
    }
    TumblingWindows.Builder<Long, Long> b =
        TumblingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(lateness))
            .clock(new ManualClock())
            .lateEventHandler(handler);
    return (perSource ? b.perSourceLateness() : b).build();
  }

  /**
   * The promise: the same sources' events in any interleaving give the same rows and the same late
   * events, tumbling, hopping and sliding (a trace in three each). The control, the
   * shared-watermark rule, must fail it on some trace, or the traces would not test anything.
   */
  @Test
  void everyInterleavingOfTheSameSourcesEventsGivesTheSameRows() {
    int controlDiffered = 0;
    long rows = 0;
    for (int trace = 0; trace < Trials.of(400); trace++) {
      Random random = new Random(trace);
      long size = 1 + random.nextInt(10);
      long lateness = random.nextInt(5);
      int sources = 2 + random.nextInt(3);
      List<List<long[]>> events = new ArrayList<>();
      for (int s = 0; s < sources; s++) {
        List<long[]> list = new ArrayList<>();
        long time = random.nextInt(20);
        for (int i = 0; i < 5 + random.nextInt(40); i++) {
          time += random.nextInt(4);
          list.add(new long[] {time - random.nextInt(8), random.nextInt(3), 1 + random.nextInt(5)});
        }
        events.add(list);
      }
      int kind = trace % 3; // tumbling, hopping, sliding
      long advance = 1 + random.nextInt((int) size);
      for (boolean perSource : new boolean[] {true, false}) {
        Map<String, Integer> first = null;
        boolean differed = false;
        for (int run = 0; run < 6; run++) {
          List<String> late = new ArrayList<>();
          EventTimeWindows<String, Long, Long> windows =
              windows(kind, size, advance, lateness, perSource, late);
          for (int s = 0; s < sources; s++) {
            windows.register("s" + s);
          }
          int[] next = new int[sources];
          int left = events.stream().mapToInt(List::size).sum();
          Map<String, Integer> got = new HashMap<>();
          while (left > 0) {
            int s = random.nextInt(sources);
            if (next[s] == events.get(s).size()) {
              continue;
            }
            long[] e = events.get(s).get(next[s]++);
            left--;
            windows.add("s" + s, e[0], "k" + e[1], e[2]);
            windows
                .pollFinalized()
                .forEach(
                    r -> got.merge(r.start() + " " + r.key() + "=" + r.value(), 1, Integer::sum));
          }
          windows.finish();
          windows
              .pollFinalized()
              .forEach(
                  r -> got.merge(r.start() + " " + r.key() + "=" + r.value(), 1, Integer::sum));
          late.forEach(l -> got.merge("late " + l, 1, Integer::sum));
          if (first == null) {
            first = got;
            rows += perSource ? got.size() : 0;
          } else if (perSource) {
            assertThat(got).as("trace %d, interleaving %d", trace, run).isEqualTo(first);
          } else if (!got.equals(first)) {
            differed = true;
          }
        }
        if (!perSource && differed) {
          controlDiffered++;
        }
      }
    }
    System.out.printf(
        "PerSourceLatenessTest: %d rows and late events per interleaving; the shared rule differed"
            + " between interleavings in %d traces%n",
        rows, controlDiffered);
    assertThat(controlDiffered)
        .as("the control differs somewhere")
        .isGreaterThan(Trials.of(400) / 20);
  }
}
