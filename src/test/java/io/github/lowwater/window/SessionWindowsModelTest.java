package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionWindows} against a naive reference that keeps every event of the sessions not yet
 * emitted and recomputes each key's sessions from them (sort, split at gaps {@code >= gap}) at
 * every event: the same verdict for every event, and the same sessions, each once, in ascending
 * (end, start) order, over random traces with disorder wider than the gap, equal times, negative
 * times and several sources.
 */
class SessionWindowsModelTest {

  /** A session row: first event time, end (last + gap), key, sum. */
  record Row(long start, long end, String key, long value) {}

  @Test
  void agreesWithNaiveSessionsRecomputedAtEveryEvent() {
    int merges = 0;
    int late = 0;
    for (int trace = 0; trace < Trials.of(2_000); trace++) {
      int[] counts = runTrace(new Random(trace), trace);
      merges += counts[0];
      late += counts[1];
    }
    assertThat(merges).as("events that merged two sessions").isGreaterThan(Trials.of(2_000) / 4);
    assertThat(late).as("late events").isGreaterThan(Trials.of(2_000) / 4);
  }

  private static int[] runTrace(Random random, int trace) {
    long gap = 1 + random.nextInt(6);
    long lateness = random.nextInt(4);
    long base = new long[] {0, -1_000, 1_000_000}[random.nextInt(3)];
    SessionWindows<String, Long, Long> windows =
        SessionWindows.builder(Duration.ofMillis(gap), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(lateness))
            .clock(new ManualClock())
            .build();
    Map<String, List<long[]>> openEvents = new HashMap<>(); // per key: {t, value}
    List<Row> due = new ArrayList<>();
    int merges = 0;
    int late = 0;
    int sources = 1 + random.nextInt(3);
    int events = 5 + random.nextInt(60);
    for (int i = 0; i < events; i++) {
      String source = "s" + random.nextInt(sources);
      long t = base + i + random.nextInt(4 * (int) gap + 5) - 2 * gap;
      String key = "k" + random.nextInt(3);
      long value = 1 + random.nextInt(9);
      long watermark = windows.watermark();
      List<long[]> keyEvents = openEvents.computeIfAbsent(key, k -> new ArrayList<>());
      List<Row> before = sessions(key, keyEvents, gap);
      long joined = before.stream().filter(s -> t + gap > s.start() && t < s.end()).count();
      boolean expectLate = joined == 0 && t + gap <= watermark;
      String what = "trace " + trace + " event " + i + " t=" + t + " wm=" + watermark;
      assertThat(windows.add(source, t, key, value)).as(what).isEqualTo(!expectLate);
      if (expectLate) {
        late++;
      } else {
        keyEvents.add(new long[] {t, value});
        if (joined > 1) {
          merges++;
        }
      }
      long now = windows.watermark();
      for (Map.Entry<String, List<long[]>> e : openEvents.entrySet()) {
        for (Row s : sessions(e.getKey(), e.getValue(), gap)) {
          if (s.end() <= now) {
            due.add(s);
            e.getValue().removeIf(ev -> ev[0] >= s.start() && ev[0] < s.end() - gap + 1);
          }
        }
      }
      if (random.nextInt(4) == 0) {
        compare(windows.pollFinalized(), due, what);
      }
    }
    windows.finish();
    openEvents.forEach((k, evs) -> due.addAll(sessions(k, evs, gap)));
    compare(windows.pollFinalized(), due, "trace " + trace + " finish");
    assertThat(windows.stats().late()).isEqualTo(late);
    assertThat(windows.stats().openWindows()).as("no session left").isZero();
    assertThat(windows.stats().openEntries()).isZero();
    return new int[] {merges, late};
  }

  /** The sessions of one key's events: sorted, split where consecutive times are >= gap apart. */
  static List<Row> sessions(String key, List<long[]> events, long gap) {
    List<long[]> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(e -> e[0]));
    List<Row> rows = new ArrayList<>();
    long first = 0;
    long last = 0;
    long sum = 0;
    boolean any = false;
    for (long[] e : sorted) {
      if (any && e[0] - last >= gap) {
        rows.add(new Row(first, last + gap, key, sum));
        any = false;
      }
      if (!any) {
        first = e[0];
        sum = 0;
        any = true;
      }
      last = e[0];
      sum += e[1];
    }
    if (any) {
      rows.add(new Row(first, last + gap, key, sum));
    }
    return rows;
  }

  private static void compare(List<WindowResult<String, Long>> rows, List<Row> due, String what) {
    List<Row> actual = new ArrayList<>();
    for (WindowResult<String, Long> r : rows) {
      actual.add(new Row(r.start(), r.end(), r.key(), r.value()));
    }
    for (int i = 1; i < actual.size(); i++) {
      Row a = actual.get(i - 1);
      Row b = actual.get(i);
      assertThat(a.end() < b.end() || (a.end() == b.end() && a.start() <= b.start()))
          .as(what + ": ascending (end, start): " + a + " then " + b)
          .isTrue();
    }
    assertThat(actual).as(what).containsExactlyInAnyOrderElementsOf(due);
    due.clear();
  }
}
