package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionTable}'s heap on its own: it closes sessions in ascending (end, first, key id)
 * order although it only re-keys a session whose end grew when that session reaches the top (its
 * entry holds a stale lower bound until then), and it moves a session up when an event lowers its
 * first event time at an unchanged end. Against a naive list of open sessions, over random traces
 * of many keys (a 4-ary heap several levels deep) whose sessions grow after they were placed.
 */
class SessionTableTest {

  private static final LongFold SUM = (LongFold) (Aggregator<?, ?, ?>) Aggregators.sumLong();

  private static SessionTable table(long gap, long span) {
    return new SessionTable(gap, span, SUM, null);
  }

  /** Closes every session ending by {@code watermark}: rows of first, end, key id, sum. */
  private static List<long[]> close(SessionTable table, long watermark) {
    List<long[]> rows = new ArrayList<>();
    int slot;
    while ((slot = table.closeNext(watermark)) >= 0) {
      rows.add(
          new long[] {table.first(slot), table.end(slot), table.keyId(slot), table.longAt(slot)});
      table.free(slot);
    }
    return rows;
  }

  /**
   * A heap of thousands of sessions, several levels of four children deep, emptied by a watermark
   * that rises step by step: each step closes exactly the sessions ending by it, in end order. A
   * sift-down that looked at fewer than all four children would leave a smaller end below a larger
   * one, and a step would miss it.
   */
  @Test
  void aDeepHeapClosesExactlyTheSessionsEndingByEachWatermarkInEndOrder() {
    Random random = new Random(17);
    SessionTable table = table(10, 0);
    List<Long> ends = new ArrayList<>();
    for (int key = 0; key < 3_000; key++) {
      long t = random.nextInt(1_000_000);
      table.add(key, t, 1L);
      ends.add(t + 10);
    }
    ends.sort(Comparator.naturalOrder());
    int closed = 0;
    for (long watermark = 0; closed < ends.size(); watermark += 1 + random.nextInt(2_000)) {
      long last = Long.MIN_VALUE;
      for (long[] row : close(table, watermark)) {
        assertThat(row[1]).as("in end order").isGreaterThanOrEqualTo(last);
        assertThat(row[1]).isEqualTo(ends.get(closed));
        last = row[1];
        closed++;
      }
      int due = 0;
      while (due < ends.size() && ends.get(due) <= watermark) {
        due++;
      }
      assertThat(closed).as("every session ending by %d, none later", watermark).isEqualTo(due);
    }
    assertThat(table.openCount()).isZero();
  }

  @Test
  void aSessionThatGrewAfterItWasPlacedClosesByItsNewEnd() {
    SessionTable table = table(10, 0);
    table.add(0, 0, 1L); // [0, 10)
    table.add(1, 5, 2L); // [5, 15)
    table.add(0, 8, 4L); // key 0 grows to [0, 18): its heap entry still says 10
    assertThat(close(table, 9)).isEmpty();
    assertThat(close(table, 15)).containsExactly(new long[] {5, 15, 1, 2});
    assertThat(table.openCount()).isEqualTo(1);
    assertThat(close(table, 17)).isEmpty();
    assertThat(close(table, 18)).containsExactly(new long[] {0, 18, 0, 5});
    assertThat(table.openCount()).isZero();
  }

  @Test
  void anEarlierFirstAtTheSameEndMovesASessionBeforeItsTies() {
    SessionTable table = table(10, 0);
    table.add(0, 5, 1L); // [5, 15)
    table.add(1, 5, 2L); // [5, 15): after key 0 at the same end and first
    table.add(1, 4, 4L); // [4, 15): now before key 0
    assertThat(close(table, 15))
        .containsExactly(new long[] {4, 15, 1, 6}, new long[] {5, 15, 0, 1});
  }

  @Test
  void closesInEndFirstKeyOrderLikeANaiveListOfOpenSessions() {
    long grownSessions = 0;
    for (int trace = 0; trace < Trials.of(300); trace++) {
      grownSessions += runTrace(new Random(trace));
    }
    assertThat(grownSessions)
        .as("sessions that grew after they were placed")
        .isGreaterThan(Trials.of(300) * 3);
  }

  /** Returns how many closed sessions grew after they opened. */
  private static long runTrace(Random random) {
    long gap = 1 + random.nextInt(20);
    long span = random.nextBoolean() ? 0 : gap + random.nextInt(40);
    int keys = 1 + random.nextInt(60);
    SessionTable table = table(gap, span);
    List<long[]> open = new ArrayList<>(); // first, last, key id, sum
    Comparator<long[]> order =
        Comparator.<long[]>comparingLong(s -> s[1] + gap)
            .thenComparingLong(s -> s[0])
            .thenComparingLong(s -> s[2]);
    long grown = 0;
    long watermark = -50;
    long clock = -40;
    for (int step = 0; step < 400; step++) {
      if (random.nextInt(8) == 0) {
        watermark += random.nextInt((int) gap * 3);
        List<long[]> expected = new ArrayList<>();
        for (long[] s : open) {
          if (s[1] + gap <= watermark) {
            expected.add(new long[] {s[0], s[1] + gap, s[2], s[3]});
            if (s[1] > s[0]) {
              grown++;
            }
          }
        }
        long closedBy = watermark;
        open.removeIf(s -> s[1] + gap <= closedBy);
        expected.sort(
            Comparator.<long[]>comparingLong(r -> r[1])
                .thenComparingLong(r -> r[0])
                .thenComparingLong(r -> r[2]));
        assertThat(close(table, watermark)).containsExactlyElementsOf(expected);
        assertThat(table.openCount()).isEqualTo(open.size());
        continue;
      }
      clock += random.nextInt(4);
      int key = random.nextInt(keys);
      long t = Math.max(watermark - 2 * gap, clock - random.nextInt((int) gap * 2 + 1));
      long v = random.nextInt(100);
      List<long[]> joined = new ArrayList<>();
      for (long[] s : open) {
        if (s[2] == key
            && s[0] - gap < t
            && t < s[1] + gap
            && (span == 0 || Math.floorDiv(t, span) == Math.floorDiv(s[0], span))) {
          joined.add(s);
        }
      }
      if (joined.isEmpty() && t + gap <= watermark) {
        continue; // late: the kind never adds it
      }
      int opened = table.add(key, t, v);
      if (joined.isEmpty()) {
        assertThat(opened).isEqualTo(1);
        open.add(new long[] {t, t, key, v});
      } else {
        assertThat(opened).isEqualTo(1 - joined.size());
        long[] merged = {t, t, key, v};
        for (long[] s : joined) {
          merged[0] = Math.min(merged[0], s[0]);
          merged[1] = Math.max(merged[1], s[1]);
          merged[3] += s[3];
        }
        open.removeAll(joined);
        open.add(merged);
      }
      open.sort(order);
      assertThat(table.oldestOpenFirst())
          .isEqualTo(open.stream().mapToLong(s -> s[0]).min().orElse(Long.MAX_VALUE));
    }
    return grown;
  }
}
