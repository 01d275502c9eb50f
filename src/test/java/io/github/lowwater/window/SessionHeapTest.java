package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionHeap} against a naive list over random operations: adds, removals (present or not),
 * re-keys up and down, re-keys of the top, a first moved earlier, polls; the least session by (key,
 * first, sequence) and the heap's size after every step, and each session's position field back at
 * -1 once it left.
 */
class SessionHeapTest {

  @Test
  void theHeapAgreesWithANaiveListOverRandomOperations() {
    int traces = Trials.of(2_000);
    for (int trace = 0; trace < traces; trace++) {
      Random random = new Random(trace);
      int which = random.nextInt(3);
      SessionHeap heap = new SessionHeap(which);
      Map<PanedSession, Long> naive = new HashMap<>();
      List<PanedSession> all = new ArrayList<>();
      for (int i = 0; i < 2 + random.nextInt(40); i++) {
        PanedSession s = new PanedSession();
        s.first = random.nextInt(10);
        s.sequence = i;
        all.add(s);
      }
      for (int step = 0; step < 200; step++) {
        PanedSession s = all.get(random.nextInt(all.size()));
        int op = random.nextInt(6);
        String what = "trace " + trace + " step " + step + " op " + op;
        if (op == 0 && !naive.containsKey(s)) {
          long key = random.nextInt(20);
          heap.add(s, key);
          naive.put(s, key);
        } else if (op == 1) {
          heap.remove(s);
          naive.remove(s);
        } else if (op == 2) {
          long key = random.nextInt(20);
          heap.put(s, key);
          naive.put(s, key);
        } else if (op == 3 && naive.containsKey(s) && s.first > 0) {
          s.first -= 1 + random.nextInt((int) s.first);
          heap.firstMovedEarlier(s);
        } else if (op == 4 && heap.size() > 0) {
          PanedSession top = heap.peek();
          long key = heap.peekKey() + random.nextInt(5);
          heap.rekeyTop(key);
          naive.put(top, key);
        } else if (op == 5 && heap.size() > 0) {
          PanedSession polled = heap.poll();
          assertThat(polled).as(what).isSameAs(least(naive));
          naive.remove(polled);
        }
        assertThat(heap.size()).as(what).isEqualTo(naive.size());
        if (!naive.isEmpty()) {
          assertThat(heap.peek()).as(what).isSameAs(least(naive));
          assertThat(heap.peekKey()).as(what).isEqualTo(naive.get(least(naive)));
        }
        for (PanedSession each : all) {
          assertThat(heap.contains(each)).as(what).isEqualTo(naive.containsKey(each));
        }
      }
    }
  }

  private static PanedSession least(Map<PanedSession, Long> naive) {
    Comparator<Map.Entry<PanedSession, Long>> order =
        Comparator.<Map.Entry<PanedSession, Long>>comparingLong(Map.Entry::getValue)
            .thenComparingLong(e -> e.getKey().first)
            .thenComparingLong(e -> e.getKey().sequence);
    return naive.entrySet().stream().min(order).orElseThrow().getKey();
  }
}
