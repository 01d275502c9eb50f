package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link HoppingWindows} against a naive reference that keeps every (window, key) sum and
 * enumerates an event's windows one by one, over random traces with disorder, equal times, window
 * edges, negative times and several sources: the same verdict (accepted, late, partially late) for
 * every event, and the same rows, each once, in ascending end order.
 */
class HoppingWindowsModelTest {

  /** A row as the reference sees it: window start and end, key. */
  record Cell(long start, long end, String key) {}

  @Test
  void agreesWithANaiveMapOfEveryWindowOverRandomTraces() {
    int partiallyLate = 0;
    int late = 0;
    for (int trace = 0; trace < Trials.of(2_000); trace++) {
      int[] counts = runTrace(new Random(trace), trace);
      partiallyLate += counts[0];
      late += counts[1];
    }
    // The traces reach the cases that matter, not only the easy one.
    assertThat(partiallyLate).as("partially late events").isGreaterThan(Trials.of(2_000) / 4);
    assertThat(late).as("late events").isGreaterThan(Trials.of(2_000) / 4);
  }

  private static int[] runTrace(Random random, int trace) {
    long size = 1 + random.nextInt(12);
    long advance = 1 + random.nextInt((int) size);
    long offset = random.nextInt(11) - 5;
    long lateness = random.nextInt(3);
    long base = new long[] {0, -1_000, 1_000_000, -7}[random.nextInt(4)];
    ManualClock clock = new ManualClock();
    HoppingWindows<String, Long, Long> windows =
        HoppingWindows.builder(
                Duration.ofMillis(size), Duration.ofMillis(advance), Aggregators.sumLong())
            .offset(Duration.ofMillis(offset))
            .allowedLateness(Duration.ofMillis(lateness))
            .clock(clock)
            .build();
    long reducedOffset = Math.floorMod(offset, advance);
    Map<Cell, Long> open = new HashMap<>();
    List<Map.Entry<Cell, Long>> due = new ArrayList<>();
    int partiallyLate = 0;
    int late = 0;
    int sources = 1 + random.nextInt(3);
    int events = 5 + random.nextInt(60);
    for (int i = 0; i < events; i++) {
      String source = "s" + random.nextInt(sources);
      long t = base + i / 2 + random.nextInt(2 * (int) size + 3) - size;
      String key = "k" + random.nextInt(3);
      long value = 1 + random.nextInt(9);
      long watermark = windows.watermark();
      List<Long> starts = new ArrayList<>();
      for (long s = t - size + 1; s <= t; s++) {
        if (Math.floorMod(s - reducedOffset, advance) == 0) {
          starts.add(s);
        }
      }
      long openWindows = starts.stream().filter(s -> s + size > watermark).count();
      boolean expectLate = openWindows == 0;
      boolean expectPartial = !expectLate && openWindows < starts.size();
      String what = "trace " + trace + " event " + i + " t=" + t + " wm=" + watermark;
      assertThat(windows.add(source, t, key, value)).as(what).isEqualTo(!expectLate);
      if (expectLate) {
        late++;
      } else {
        for (long s : starts) {
          if (s + size > watermark) {
            open.merge(new Cell(s, s + size, key), value, Long::sum);
          }
        }
      }
      if (expectPartial) {
        partiallyLate++;
      }
      long now = windows.watermark();
      open.entrySet()
          .removeIf(
              e -> {
                if (e.getKey().end() <= now) {
                  due.add(Map.entry(e.getKey(), e.getValue()));
                  return true;
                }
                return false;
              });
      if (random.nextInt(4) == 0) {
        compare(windows.pollFinalized(), due, what);
      }
    }
    windows.finish();
    due.addAll(open.entrySet());
    compare(windows.pollFinalized(), due, "trace " + trace + " finish");
    assertThat(windows.stats().partiallyLate()).isEqualTo(partiallyLate);
    assertThat(windows.stats().late()).isEqualTo(late);
    assertThat(windows.stats().openWindows()).as("no pane left").isZero();
    assertThat(windows.stats().openEntries()).isZero();
    return new int[] {partiallyLate, late};
  }

  private static void compare(
      List<WindowResult<String, Long>> rows, List<Map.Entry<Cell, Long>> due, String what) {
    Map<Cell, Long> actual = new TreeMap<>(HoppingWindowsModelTest::order);
    long previousEnd = Long.MIN_VALUE;
    for (WindowResult<String, Long> r : rows) {
      assertThat(r.end()).as(what + ": ascending ends").isGreaterThanOrEqualTo(previousEnd);
      previousEnd = r.end();
      Long before = actual.put(new Cell(r.start(), r.end(), r.key()), r.value());
      assertThat(before).as(what + ": each row once " + r).isNull();
    }
    Map<Cell, Long> expected = new TreeMap<>(HoppingWindowsModelTest::order);
    due.forEach(e -> expected.put(e.getKey(), e.getValue()));
    assertThat(actual).as(what).isEqualTo(expected);
    due.clear();
  }

  private static int order(Cell a, Cell b) {
    int c = Long.compare(a.start(), b.start());
    return c != 0 ? c : a.key().compareTo(b.key());
  }

  @Test
  void withAdvanceEqualToSizeTheRowsAreTumblingWindowsRowsInTheSameOrder() {
    for (int trace = 0; trace < Trials.of(500); trace++) {
      Random random = new Random(trace);
      long size = 1 + random.nextInt(20);
      TumblingWindows<String, Long, Long> tumbling =
          TumblingWindows.builder(Duration.ofMillis(size), Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(2))
              .clock(new ManualClock())
              .build();
      HoppingWindows<String, Long, Long> hopping =
          HoppingWindows.builder(
                  Duration.ofMillis(size), Duration.ofMillis(size), Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(2))
              .clock(new ManualClock())
              .build();
      List<WindowResult<String, Long>> a = new ArrayList<>();
      List<WindowResult<String, Long>> b = new ArrayList<>();
      for (int i = 0; i < 80; i++) {
        long t = i + random.nextInt(7) - 3 - 40;
        String key = "k" + random.nextInt(5);
        assertThat(hopping.add("p", t, key, 1L)).isEqualTo(tumbling.add("p", t, key, 1L));
        if (random.nextInt(5) == 0) {
          a.addAll(tumbling.pollFinalized());
          b.addAll(hopping.pollFinalized());
        }
      }
      tumbling.finish();
      hopping.finish();
      a.addAll(tumbling.pollFinalized());
      b.addAll(hopping.pollFinalized());
      assertThat(b).as("trace " + trace).isEqualTo(a);
    }
  }
}
