package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamJoin} against a naive reference over random traces: three sources per side with
 * disorder, random intervals (negative bounds included), lateness, join types, and quiet-period
 * advances. The reference keeps every record and recomputes from scratch: the watermark as the
 * minimum of the sources' newest times minus the lateness (rules of the tracker), which records are
 * late, each judged against its own source (rule 68), every pair of on-time records (rule 67), and,
 * after each step, exactly which unmatched rows are due (rule 69). The rows must be equal as
 * multisets, step by step. A second test feeds the same sources' records in many interleavings and
 * requires the same rows from each.
 */
class StreamJoinModelTest {

  /** One record of the reference. */
  record Rec(JoinSide side, int source, long time, String key, String value) {}

  @Test
  void theJoinEmitsExactlyTheNaiveReferencesRowsAfterEveryStep() {
    long rows = 0;
    long late = 0;
    for (int trace = 0; trace < Trials.of(2_000); trace++) {
      Random random = new Random(trace);
      long lower = -random.nextInt(7) + (random.nextInt(4) == 0 ? 3 : 0);
      long upper = lower + random.nextInt(9);
      long lateness = random.nextInt(6);
      JoinType type = JoinType.values()[random.nextInt(3)];
      JoinInterval interval =
          JoinInterval.between(Duration.ofMillis(lower), Duration.ofMillis(upper));
      StreamJoin<String, String, String, String> join =
          StreamJoin.builder(interval, (String k, String l, String r) -> l + "+" + r)
              .type(type)
              .allowedLateness(Duration.ofMillis(lateness))
              .clock(new ManualClock())
              .build();
      int sources = 1 + random.nextInt(3);
      for (int s = 0; s < sources; s++) {
        join.register("L" + s);
        join.register("R" + s);
      }
      long[][] newest = new long[2][sources];
      for (long[] side : newest) {
        java.util.Arrays.fill(side, Long.MIN_VALUE);
      }
      long watermark = Long.MIN_VALUE;
      long[] lateBySide = new long[2];
      List<Rec> onTime = new ArrayList<>();
      Map<String, Integer> emitted = new HashMap<>();
      Map<String, Integer> expectedUnmatched = new HashMap<>();
      String context =
          String.format(
              "trace %d: %s [%d, %d] lateness %d, %d sources a side",
              trace, type, lower, upper, lateness, sources);
      int steps = 5 + random.nextInt(60);
      long clockBase = 100;
      for (int step = 0; step <= steps; step++) {
        boolean last = step == steps;
        if (last) {
          join.finish();
          watermark = Long.MAX_VALUE;
        } else if (random.nextInt(25) == 0) {
          long wall = clockBase + random.nextInt(6);
          join.advanceTo(wall);
          watermark = Math.max(watermark, wall - lateness);
        } else {
          JoinSide side = random.nextBoolean() ? JoinSide.LEFT : JoinSide.RIGHT;
          int source = random.nextInt(sources);
          int s = side.ordinal();
          long time = clockBase + random.nextInt(7) - 4;
          clockBase += random.nextInt(3);
          String key = "k" + random.nextInt(3);
          String value = (side == JoinSide.LEFT ? "l" : "r") + step;
          long own =
              newest[s][source] == Long.MIN_VALUE ? Long.MIN_VALUE : newest[s][source] - lateness;
          long judged = Math.max(watermark, own);
          boolean isLate = time < judged || judged == Long.MAX_VALUE;
          boolean joined =
              side == JoinSide.LEFT
                  ? join.addLeft("L" + source, time, key, value)
                  : join.addRight("R" + source, time, key, value);
          assertThat(joined).as("%s, step %d: on time", context, step).isEqualTo(!isLate);
          if (isLate) {
            late++;
            lateBySide[side.ordinal()]++;
          } else {
            onTime.add(new Rec(side, source, time, key, value));
          }
          newest[s][source] = Math.max(newest[s][source], time);
          watermark =
              Math.max(
                  watermark,
                  minNewest(newest) == Long.MIN_VALUE
                      ? Long.MIN_VALUE
                      : minNewest(newest) - lateness);
        }
        assertThat(join.watermark())
            .as("%s, step %d: watermark", context, step)
            .isEqualTo(watermark);
        for (JoinRow<String, String> row : join.pollResults()) {
          emitted.merge(
              row.kind() + " " + row.key() + " @" + row.timeMillis() + " " + row.value(),
              1,
              Integer::sum);
          rows++;
        }
        Map<String, Integer> expected = new HashMap<>(expectedUnmatched);
        expected.clear();
        for (Rec a : onTime) {
          boolean paired = false;
          for (Rec b : onTime) {
            if (a.side() == b.side() || !a.key().equals(b.key())) {
              continue;
            }
            Rec l = a.side() == JoinSide.LEFT ? a : b;
            Rec r = a.side() == JoinSide.LEFT ? b : a;
            if (interval.pairs(l.time(), r.time())) {
              paired = true;
              if (a.side() == JoinSide.LEFT) {
                expected.merge(
                    "PAIR "
                        + a.key()
                        + " @"
                        + Math.max(l.time(), r.time())
                        + " "
                        + l.value()
                        + "+"
                        + r.value(),
                    1,
                    Integer::sum);
              }
            }
          }
          long lastPartner = a.side() == JoinSide.LEFT ? a.time() + upper : a.time() - lower;
          boolean closed = watermark == Long.MAX_VALUE || watermark > lastPartner;
          if (!paired && closed && type.emitsUnmatched(a.side())) {
            expected.merge(
                (a.side() == JoinSide.LEFT ? "LEFT_ONLY " : "RIGHT_ONLY ")
                    + a.key()
                    + " @"
                    + a.time()
                    + " "
                    + (a.side() == JoinSide.LEFT ? a.value() + "+null" : "null+" + a.value()),
                1,
                Integer::sum);
          }
        }
        assertThat(emitted).as("%s, after step %d", context, step).isEqualTo(expected);
      }
      assertThat(join.buffered(JoinSide.LEFT) + join.buffered(JoinSide.RIGHT)).isZero();
      long pairRows = 0;
      long unmatchedRows = 0;
      for (Map.Entry<String, Integer> e : emitted.entrySet()) {
        if (e.getKey().startsWith("PAIR")) {
          pairRows += e.getValue();
        } else {
          unmatchedRows += e.getValue();
        }
      }
      assertThat(join.pairs()).as("%s: pairs()", context).isEqualTo(pairRows);
      assertThat(join.unmatched()).as("%s: unmatched()", context).isEqualTo(unmatchedRows);
      assertThat(join.late(JoinSide.LEFT)).as("%s: late(LEFT)", context).isEqualTo(lateBySide[0]);
      assertThat(join.late(JoinSide.RIGHT)).as("%s: late(RIGHT)", context).isEqualTo(lateBySide[1]);
    }
    System.out.printf("StreamJoinModelTest: %d rows, %d late records compared%n", rows, late);
    assertThat(rows).isGreaterThan(Trials.of(2_000) * 5L);
    assertThat(late).isGreaterThan(Trials.of(2_000) / 10L);
  }

  /**
   * What a consumer group needs from a join: whoever reads the sources, and however the broker
   * interleaves their records across polls, the rows are the same. Each source's records in the
   * same order, the sources interleaved at random, many times per trace; every run must give the
   * same multiset of rows and the same late records.
   */
  @Test
  void everyInterleavingOfTheSameSourcesRecordsGivesTheSameRows() {
    long rows = 0;
    for (int trace = 0; trace < Trials.of(500); trace++) {
      Random random = new Random(trace);
      long lower = -random.nextInt(7);
      long upper = lower + random.nextInt(9);
      long lateness = random.nextInt(4);
      JoinType type = JoinType.values()[random.nextInt(3)];
      int sources = 1 + random.nextInt(3);
      List<List<Rec>> perSource = new ArrayList<>();
      for (int s = 0; s < 2 * sources; s++) {
        JoinSide side = s < sources ? JoinSide.LEFT : JoinSide.RIGHT;
        List<Rec> records = new ArrayList<>();
        long time = 100 + random.nextInt(10);
        for (int i = 0; i < 3 + random.nextInt(25); i++) {
          time += random.nextInt(4);
          long t = time - random.nextInt(6);
          records.add(
              new Rec(
                  side,
                  s,
                  t,
                  "k" + random.nextInt(3),
                  (side == JoinSide.LEFT ? "l" : "r") + s + "." + i));
        }
        perSource.add(records);
      }
      java.util.Map<String, Integer> first = null;
      java.util.Set<String> firstLate = null;
      for (int run = 0; run < 6; run++) {
        java.util.Set<String> late = new java.util.HashSet<>();
        StreamJoin<String, String, String, String> join =
            StreamJoin.builder(
                    JoinInterval.between(Duration.ofMillis(lower), Duration.ofMillis(upper)),
                    (String k, String l, String r) -> l + "+" + r)
                .type(type)
                .allowedLateness(Duration.ofMillis(lateness))
                .clock(new ManualClock())
                .lateHandler((side, source, t, w, key, value) -> late.add((String) value))
                .build();
        for (int s = 0; s < 2 * sources; s++) {
          join.register("S" + s);
        }
        int[] next = new int[2 * sources];
        int left = perSource.stream().mapToInt(List::size).sum();
        java.util.Map<String, Integer> emitted = new HashMap<>();
        while (left > 0) {
          int s = random.nextInt(2 * sources);
          if (next[s] == perSource.get(s).size()) {
            continue;
          }
          Rec r = perSource.get(s).get(next[s]++);
          left--;
          if (r.side() == JoinSide.LEFT) {
            join.addLeft("S" + s, r.time(), r.key(), r.value());
          } else {
            join.addRight("S" + s, r.time(), r.key(), r.value());
          }
          join.pollResults()
              .forEach(row -> emitted.merge(row.kind() + " " + row.value(), 1, Integer::sum));
        }
        join.finish();
        join.pollResults()
            .forEach(row -> emitted.merge(row.kind() + " " + row.value(), 1, Integer::sum));
        if (first == null) {
          first = emitted;
          firstLate = late;
          rows += emitted.values().stream().mapToInt(Integer::intValue).sum();
        } else {
          assertThat(emitted).as("trace %d, interleaving %d: rows", trace, run).isEqualTo(first);
          assertThat(late)
              .as("trace %d, interleaving %d: late records", trace, run)
              .isEqualTo(firstLate);
        }
      }
    }
    System.out.printf("StreamJoinModelTest interleavings: %d rows per interleaving%n", rows);
    assertThat(rows).isGreaterThan(Trials.of(500) * 5L);
  }

  private static long minNewest(long[][] newest) {
    long min = Long.MAX_VALUE;
    for (long[] side : newest) {
      for (long t : side) {
        min = Math.min(min, t);
      }
    }
    return min;
  }
}
