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
                    .earlyResults(Duration.ofMillis(5))
                    .build())
        .hasMessage(
            "perSourceLateness does not combine with early results (semantics rule 72): an early"
                + " row's value depends on how the sources interleave; earlyResults PT0.005S");
    assertThatThrownBy(
            () ->
                SlidingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
                    .perSourceLateness()
                    .grace(Duration.ofMillis(5))
                    .build())
        .hasMessage(
            "perSourceLateness with a grace period is for tumbling and hopping windows, not sliding"
                + " windows (semantics rule 72): grace PT0.005S");
    // What it keeps exact: a grace period on tumbling and hopping windows (held late updates).
    assertThat(
            TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
                .perSourceLateness()
                .grace(Duration.ofMillis(5))
                .build()
                .graceMillis())
        .isEqualTo(5);
    assertThat(
            HoppingWindows.builder(
                    Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.sumLong())
                .perSourceLateness()
                .grace(Duration.ofMillis(5))
                .build()
                .perSourceLateness())
        .isTrue();
    TumblingWindows.Builder<Long, Long> b =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong()).perSourceLateness();
    assertThatThrownBy(b::perSourceLateness)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("perSourceLateness was already set to true");
  }

  private static TumblingWindows<String, Long, Long> graceWindows(List<String> late) {
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .grace(Duration.ofMillis(5))
            .perSourceLateness()
            .clock(new ManualClock())
            .lateEventHandler((s, t, end, w, key, value) -> late.add(s + "@" + t + " w" + w))
            .<String, Long>build();
    windows.register("fast");
    windows.register("slow");
    return windows;
  }

  private static List<String> rows(EventTimeWindows<String, Long, Long> windows) {
    List<String> rows = new ArrayList<>();
    for (WindowResult<String, Long> r : windows.pollFinalized()) {
      rows.add(
          r.start()
              + " "
              + r.key()
              + "="
              + r.value()
              + " "
              + r.timing()
              + "#"
              + r.index()
              + (r.isFinal() ? " final" : ""));
    }
    return rows;
  }

  /**
   * Rule 72 with a grace period G = 5 on the window [0, 10): an event is on time while its own
   * source's watermark is below 10 (9: into the on-time row), a held late update from 10 to 14 (one
   * ms either side of the end, and of {@code end + G}), even while the shared watermark has not
   * reached the end, and late at 15. The on-time row (not final) comes when the shared watermark
   * reaches 10 and holds the on-time events only; at 15 the window retires and each key with a held
   * update gets one final {@code LATE} row with its next index and the whole value (a key with no
   * on-time row: index 0). Guards the failure that held updates prevent: a {@code LATE} row per
   * event at once, or a grace-period event folded into the on-time row when read before the shared
   * watermark passed the end, would make the rows depend on how the sources interleave.
   */
  @Test
  void aGraceEventOfItsOwnSourceIsHeldAndCorrectsTheWindowOnceAtEndPlusGrace() {
    List<String> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> windows = graceWindows(late);
    windows.add("slow", 0, "s", 1L);
    windows.add("fast", 9, "k", 1L); // fast's own watermark 9 = end - 1
    assertThat(windows.add("fast", 2, "k", 10L)).isTrue(); // on time: 10 > 9
    windows.add("fast", 10, "x", 1L); // own watermark 10 = end
    assertThat(windows.isLate("fast", 3, "k")).isFalse();
    assertThat(windows.add("fast", 3, "k", 1_000L)).isTrue(); // held: shared still 0
    windows.add("fast", 14, "x", 1L); // own watermark 14 = end + G - 1
    assertThat(windows.add("fast", 4, "k", 10_000L)).isTrue(); // held
    windows.add("fast", 15, "x", 1L); // own watermark 15 = end + G
    assertThat(windows.isLate("fast", 5, "k")).isTrue();
    assertThat(windows.add("fast", 5, "k", 100_000L)).isFalse(); // late path
    assertThat(late).containsExactly("fast@5 w15");
    assertThat(windows.watermark()).isEqualTo(0);
    assertThat(rows(windows)).isEmpty();
    windows.add("slow", 9, "s", 1L); // shared 9: [0, 10) still open
    assertThat(rows(windows)).isEmpty();
    windows.add("slow", 10, "s", 1L); // shared 10 = end: the on-time row, on-time events only
    assertThat(rows(windows)).containsExactly("0 s=2 ON_TIME#0", "0 k=11 ON_TIME#0");
    windows.add("slow", 6, "k2", 7L); // slow's own 10: held, a key with no on-time row
    windows.add("slow", 14, "s", 1L); // shared 14 = end + G - 1: not retired yet
    assertThat(rows(windows)).isEmpty();
    windows.add("slow", 15, "s", 1L); // shared 15 = end + G: retires, one correction per key
    assertThat(rows(windows)).containsExactly("0 k=11011 LATE#1 final", "0 k2=7 LATE#0 final");
    assertThat(windows.stats().lateUpdates()).isEqualTo(3);
    assertThat(windows.stats().late()).isEqualTo(1);
  }

  /**
   * A held correction and the on-time value always merge: a fold that would make their sum leave
   * the {@code long} range is refused when it comes (an {@link ArithmeticException}, nothing
   * changes), whichever of the two it goes into, so that the window retires. Guards the failure of
   * a merge that throws at retirement, from the call that moved the watermark, again at every rise.
   */
  @Test
  void aFoldThatWouldOverflowTheHeldCorrectionIsRefusedAndTheWindowStillRetires() {
    List<String> late = new ArrayList<>();
    TumblingWindows<String, Long, Long> windows = graceWindows(late);
    windows.add("slow", 0, "k", Long.MAX_VALUE - 10);
    windows.add("fast", 12, "x", 1L); // fast's own watermark 12: [0, 10) is in its grace period
    windows.add("fast", 3, "k", 5L); // held
    long events = windows.events();
    assertThatThrownBy(() -> windows.add("fast", 4, "k", 6L))
        .isInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> windows.add("slow", 1, "k", 6L))
        .isInstanceOf(ArithmeticException.class);
    assertThat(windows.events()).isEqualTo(events);
    windows.add("slow", 20, "s", 1L);
    windows.add("fast", 20, "s", 1L);
    assertThat(rows(windows))
        .filteredOn(r -> r.startsWith("0 "))
        .containsExactly(
            "0 k=" + (Long.MAX_VALUE - 10) + " ON_TIME#0",
            "0 k=" + (Long.MAX_VALUE - 5) + " LATE#1 final");
  }

  /** How a run judges and rows late updates: the rule, and the two controls. */
  private enum Mode {
    /** Rule 72: per source, late updates held until the window retires. */
    PER_SOURCE,
    /** Control: the shared watermark judges (rule 52). */
    SHARED,
    /** Control: per source, but a {@code LATE} row per late update at once. */
    PER_SOURCE_ROW_PER_UPDATE
  }

  private static EventTimeWindows<String, Long, Long> windows(
      int kind, long size, long advance, long lateness, long grace, Mode mode, List<String> late) {
    if (kind == 2) {
      return configure(
              SlidingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong()),
              lateness,
              grace,
              mode,
              late)
          .build();
    }
    if (kind == 1) {
      return configure(
              HoppingWindows.builder(
                  Duration.ofMillis(size), Duration.ofMillis(advance), Aggregators.sumLong()),
              lateness,
              grace,
              mode,
              late)
          .build();
    }
    return configure(
            TumblingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong()),
            lateness,
            grace,
            mode,
            late)
        .build();
  }

  private static <B extends WindowOptions<Long, Long, B>> B configure(
      B b, long lateness, long grace, Mode mode, List<String> late) {
    b.allowedLateness(Duration.ofMillis(lateness))
        .clock(new ManualClock())
        .lateEventHandler((s, t, end, w, key, value) -> late.add(s + "@" + t + key));
    if (grace > 0) {
      b.grace(Duration.ofMillis(grace));
    }
    if (mode != Mode.SHARED) {
      b.perSourceLateness();
    }
    b.holdLateUpdates = mode != Mode.PER_SOURCE_ROW_PER_UPDATE;
    return b;
  }

  /**
   * The promise: the same sources' events in any interleaving give the same rows, with the same
   * timing, index and finality, and the same late events, tumbling, hopping and sliding (a trace in
   * three each), and with a grace period on tumbling and hopping windows (half of those traces).
   * Two controls must fail it on some traces, or the traces would not test anything: the
   * shared-watermark rule, and, with a grace period, per-source verdicts with a {@code LATE} row
   * per late update at once (as a single source's windows give it), whose rows depend on how far
   * the other sources had been read when the update came.
   */
  @Test
  void everyInterleavingOfTheSameSourcesEventsGivesTheSameRows() {
    int sharedDiffered = 0;
    int rowPerUpdateDiffered = 0;
    int graceTraces = 0;
    long rows = 0;
    long correctionRows = 0;
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
      long grace = kind != 2 && random.nextBoolean() ? 1 + random.nextInt(6) : 0;
      if (grace > 0) {
        graceTraces++;
      }
      for (Mode mode : Mode.values()) {
        if (mode == Mode.PER_SOURCE_ROW_PER_UPDATE && grace == 0) {
          continue; // without a grace period it is the rule itself
        }
        Map<String, Integer> first = null;
        boolean differed = false;
        for (int run = 0; run < 6; run++) {
          List<String> late = new ArrayList<>();
          EventTimeWindows<String, Long, Long> windows =
              windows(kind, size, advance, lateness, grace, mode, late);
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
            rows(windows).forEach(r -> got.merge(r, 1, Integer::sum));
          }
          windows.finish();
          rows(windows).forEach(r -> got.merge(r, 1, Integer::sum));
          late.forEach(l -> got.merge("late " + l, 1, Integer::sum));
          if (first == null) {
            first = got;
            if (mode == Mode.PER_SOURCE) {
              rows += got.size();
              correctionRows += got.keySet().stream().filter(r -> r.contains("LATE#")).count();
            }
          } else if (mode == Mode.PER_SOURCE) {
            assertThat(got)
                .as("trace %d (kind %d, grace %d), interleaving %d", trace, kind, grace, run)
                .isEqualTo(first);
          } else if (!got.equals(first)) {
            differed = true;
          }
        }
        if (differed && mode == Mode.SHARED) {
          sharedDiffered++;
        } else if (differed) {
          rowPerUpdateDiffered++;
        }
      }
    }
    System.out.printf(
        "PerSourceLatenessTest: %d rows and late events per interleaving, %d of them corrections;"
            + " the shared rule differed between interleavings in %d traces, a LATE row per"
            + " update in %d of %d traces with a grace period%n",
        rows, correctionRows, sharedDiffered, rowPerUpdateDiffered, graceTraces);
    assertThat(correctionRows).as("corrections happen").isGreaterThan(Trials.of(400) / 20);
    assertThat(sharedDiffered)
        .as("the control differs somewhere")
        .isGreaterThan(Trials.of(400) / 20);
    assertThat(rowPerUpdateDiffered)
        .as("a LATE row per update differs somewhere")
        .isGreaterThan(graceTraces / 20);
  }
}
