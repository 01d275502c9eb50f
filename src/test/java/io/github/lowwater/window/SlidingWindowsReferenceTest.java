package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link SlidingWindows} against a naive reference of semantics rule 77 on random traces: several
 * sources and keys, disorder beyond the allowed lateness, equal times, and a drain after every
 * record. The reference knows only the records that were not late and the watermark before and
 * after each record; it enumerates every window each key's records could define and decides it from
 * the rule's text, with no store, heap or cursor:
 *
 * <ul>
 *   <li>a record is late iff {@code t + 1 <= } the watermark it meets;
 *   <li>the window ending at {@code e} is emitted in the drain after the record that raised the
 *       watermark to {@code e} or past it, iff, of the records so far, one lies at {@code e - 1},
 *       or one at {@code e - d - 2} and one in {@code [e - d - 1, e)};
 *   <li>its value is the sum (a third of the traces: the maximum) of those that lie in it.
 * </ul>
 */
class SlidingWindowsReferenceTest {

  record Event(long t, int key, long value) {}

  @Test
  void everyRowIsTheReferencesInTheDrainTheReferenceSays() {
    int rows = 0;
    int late = 0;
    for (int trace = 0; trace < Trials.of(1_000); trace++) {
      SplittableRandom random = new SplittableRandom(trace);
      long d = random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(40);
      long lateness = random.nextInt(6);
      int keys = 1 + random.nextInt(4);
      int sources = 1 + random.nextInt(3);
      // A third of the traces take the maximum, whose fold cannot be undone: the windows' fold
      // (LongWindowFold) must combine its parts in order, not subtract.
      boolean max = trace % 3 == 0;
      SlidingWindows<String, Long, Long> w =
          SlidingWindows.builder(
                  Duration.ofMillis(d), max ? Aggregators.maxLong() : Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(lateness))
              .idleTimeout(Duration.ofDays(1))
              .clock(new ManualClock())
              .build();
      List<Event> accepted = new ArrayList<>();
      Set<String> emitted = new HashSet<>();
      long base = random.nextLong(-1_000, 1_000);
      long[] sourceTime = new long[sources];
      java.util.Arrays.fill(sourceTime, base);
      int n = 5 + random.nextInt(120);
      for (int i = 0; i < n; i++) {
        int s = random.nextInt(sources);
        // Each source mostly ascending, some records far behind (late, or behind other sources).
        sourceTime[s] += random.nextInt((int) Math.max(1, d / 2 + 3));
        long t = sourceTime[s] - (random.nextInt(5) == 0 ? random.nextInt((int) (2 * d + 8)) : 0);
        int key = random.nextInt(keys);
        long value = 1L << random.nextInt(20);
        long before = w.watermark();
        boolean expectLate = t + 1 <= before;
        boolean in = w.add("s" + s, t, "k" + key, value);
        assertThat(in)
            .as("trace %d: record %d at %d, watermark %d", trace, i, t, before)
            .isEqualTo(!expectLate);
        if (in) {
          accepted.add(new Event(t, key, value));
        } else {
          late++;
        }
        long after = w.watermark();
        List<String> got = new ArrayList<>();
        long[] lastEnd = {Long.MIN_VALUE};
        int traceNumber = trace;
        w.drainFinalized(
            (st, e, k, v) -> {
              assertThat(e)
                  .as("trace %d: ends ascend", traceNumber)
                  .isGreaterThanOrEqualTo(lastEnd[0]);
              lastEnd[0] = e;
              got.add(k + "[" + st + "," + e + ")=" + v);
            });
        List<String> expected = reference(accepted, d, before, after, max);
        assertThat(got)
            .as("trace %d (d %d, lateness %d), drain after record %d", trace, d, lateness, i)
            .containsExactlyInAnyOrderElementsOf(expected);
        for (String row : got) {
          assertThat(emitted.add(row.substring(0, row.indexOf('='))))
              .as("trace %d: %s emitted once", trace, row)
              .isTrue();
        }
        rows += got.size();
      }
      long before = w.watermark();
      w.finish();
      List<String> got = new ArrayList<>();
      w.drainFinalized((st, e, k, v) -> got.add(k + "[" + st + "," + e + ")=" + v));
      assertThat(got)
          .as("trace %d: the rows of finish", trace)
          .containsExactlyInAnyOrderElementsOf(reference(accepted, d, before, Long.MAX_VALUE, max));
      rows += got.size();
      assertThat(w.stats().openEntries()).as("trace %d: every record let go", trace).isZero();
    }
    System.out.printf(
        "SlidingWindowsReferenceTest: %d rows compared, %d late records%n", rows, late);
    assertThat(rows).isGreaterThan(Trials.of(1_000) * 20);
    assertThat(late).isGreaterThan(100);
  }

  /** The rows of the windows ending in {@code (from, to]}, from the rule's text. */
  private static List<String> reference(
      List<Event> events, long d, long from, long to, boolean max) {
    List<String> rows = new ArrayList<>();
    TreeSet<Integer> keys = new TreeSet<>();
    events.forEach(e -> keys.add(e.key()));
    for (int key : keys) {
      TreeSet<Long> ends = new TreeSet<>();
      for (Event e : events) {
        if (e.key() == key) {
          ends.add(e.t() + 1);
          ends.add(e.t() + d + 2);
        }
      }
      for (long end : ends) {
        if (end <= from || end > to) {
          continue;
        }
        long start = end - d - 1;
        boolean atEnd = false;
        boolean beforeStart = false;
        boolean inside = false;
        long sum = max ? Long.MIN_VALUE : 0;
        for (Event e : events) {
          if (e.key() != key) {
            continue;
          }
          atEnd |= e.t() == end - 1;
          beforeStart |= e.t() == start - 1;
          if (e.t() >= start && e.t() < end) {
            inside = true;
            sum = max ? Math.max(sum, e.value()) : sum + e.value();
          }
        }
        if (atEnd || (beforeStart && inside)) {
          rows.add("k" + key + "[" + start + "," + end + ")=" + sum);
        }
      }
    }
    return rows;
  }
}
