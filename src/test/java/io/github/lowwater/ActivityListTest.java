package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.WatermarkTracker.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link ActivityList} against a map from each listed source to the elapsed time of
 * its last activity, on seeded random adds, touches, removals, clock steps and idle retirements.
 * The reference counts elapsed nanoseconds from zero, never wrapping, while the list sees readings
 * from an origin that may lie just below the {@code long} overflow; so the list's differences must
 * survive a reading that wraps. A failure names its seed and step.
 */
class ActivityListTest {

  @Test
  void matchesAMapOfLastActivityOnRandomOperationsAcrossTheNanoTimeWrap() {
    for (long seed = 1; seed <= 300; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      long[] timeouts = {1, 1_000, 60_000_000_000L, Long.MAX_VALUE};
      long timeout = timeouts[random.nextInt(timeouts.length)];
      long origin = random.nextBoolean() ? Long.MAX_VALUE - 5_000 : random.nextLong();
      Source[] pool = new Source[1 + random.nextInt(20)];
      for (int i = 0; i < pool.length; i++) {
        pool[i] = new Source(null, "s" + i);
      }
      ActivityList list = new ActivityList(timeout);
      Map<Source, Long> reference = new HashMap<>(); // listed source -> elapsed at last activity
      long elapsed = 0;
      for (int step = 0; step < 1_500; step++) {
        Source s = pool[random.nextInt(pool.length)];
        long now = origin + elapsed; // wraps like System.nanoTime may
        int dice = random.nextInt(10);
        String op;
        if (dice < 3) {
          if (reference.containsKey(s)) {
            op = "touch " + s;
            list.touch(s, now);
          } else {
            op = "add " + s;
            list.add(s, now);
          }
          reference.put(s, elapsed);
        } else if (dice < 5 && reference.containsKey(s)) {
          op = "remove " + s;
          list.remove(s);
          reference.remove(s);
        } else if (dice < 7) {
          long[] steps = {0, 1, timeout, Math.min(timeout, 1L << 40) + 1, random.nextInt(3_000)};
          long step1 = steps[random.nextInt(steps.length)];
          op = "advance " + step1;
          elapsed += Math.min(step1, 1L << 40);
        } else {
          op = "retire idle";
          Set<Source> idle = new HashSet<>();
          for (Map.Entry<Source, Long> e : reference.entrySet()) {
            if (elapsed - e.getValue() > timeout) {
              idle.add(e.getKey());
            }
          }
          assertThat(list.hasIdle(now))
              .as("seed %d step %d hasIdle", seed, step)
              .isEqualTo(!idle.isEmpty());
          Set<Source> retired = new HashSet<>();
          Source first;
          while ((first = list.firstIdle(now)) != null) {
            assertThat(retired.add(first)).as("seed %d step %d retired twice", seed, step).isTrue();
            list.remove(first);
          }
          assertThat(retired).as("seed %d step %d retired", seed, step).isEqualTo(idle);
          reference.keySet().removeAll(idle);
          assertThat(list.hasIdle(now)).isFalse();
        }
        compare("seed " + seed + " step " + step + " " + op, list, reference, pool, origin);
      }
    }
  }

  private static void compare(
      String where, ActivityList list, Map<Source, Long> reference, Source[] pool, long origin) {
    List<Source> forward = new ArrayList<>();
    Source previous = null;
    for (Source s = list.oldest(); s != null; s = s.newer) {
      assertThat(s.older).as(where + " back link of " + s).isSameAs(previous);
      assertThat(forward.size()).as(where + " no cycle").isLessThanOrEqualTo(pool.length);
      forward.add(s);
      previous = s;
    }
    assertThat(list.newest()).as(where + " newest").isSameAs(previous);
    assertThat(new HashSet<>(forward)).as(where + " members").isEqualTo(reference.keySet());
    assertThat(forward).as(where + " each once").hasSize(reference.size());
    for (int i = 0; i < forward.size(); i++) {
      Source s = forward.get(i);
      assertThat(s.lastSeenNanos)
          .as(where + " last seen of " + s)
          .isEqualTo(origin + reference.get(s));
      if (i > 0) {
        assertThat(reference.get(s))
            .as(where + " order at " + s)
            .isGreaterThanOrEqualTo(reference.get(forward.get(i - 1)));
      }
    }
    for (Source s : pool) {
      if (!reference.containsKey(s)) {
        assertThat(s.older).as(where + " unlinked " + s).isNull();
        assertThat(s.newer).as(where + " unlinked " + s).isNull();
      }
    }
  }

  @Test
  void aSourceSilentForExactlyTheTimeoutIsNotIdleOneNanosecondMoreIs() {
    ActivityList list = new ActivityList(100);
    Source a = new Source(null, "a");
    list.add(a, Long.MAX_VALUE - 50); // the deadline lies beyond the overflow
    long exactly = Long.MAX_VALUE - 50 + 100;
    assertThat(list.hasIdle(exactly)).isFalse();
    assertThat(list.firstIdle(exactly)).isNull();
    assertThat(list.hasIdle(exactly + 1)).isTrue();
    assertThat(list.firstIdle(exactly + 1)).isSameAs(a);
  }

  @Test
  void aTouchMovesTheOldestToTheNewestEndUnlessItsReadingIsUnchanged() {
    ActivityList list = new ActivityList(1_000);
    Source a = new Source(null, "a");
    Source b = new Source(null, "b");
    Source c = new Source(null, "c");
    list.add(a, 10);
    list.add(b, 10);
    list.add(c, 20);
    list.touch(a, 10); // the same reading: it stays where it is
    assertThat(list.oldest()).isSameAs(a);
    list.touch(c, 30); // the newest already: only its time moves
    assertThat(list.newest()).isSameAs(c);
    assertThat(c.lastSeenNanos).isEqualTo(30);
    list.touch(a, 40);
    assertThat(list.oldest()).isSameAs(b);
    assertThat(list.newest()).isSameAs(a);
    assertThat(b.newer).isSameAs(c);
    assertThat(c.newer).isSameAs(a);
    assertThat(a.older).isSameAs(c);
    assertThat(list.firstIdle(1_011)).isSameAs(b);
  }

  @Test
  void anEmptyListHasNoIdleSourceAndNoEnds() {
    ActivityList list = new ActivityList(1);
    assertThat(list.hasIdle(Long.MAX_VALUE)).isFalse();
    assertThat(list.firstIdle(Long.MIN_VALUE)).isNull();
    assertThat(list.oldest()).isNull();
    assertThat(list.newest()).isNull();
    Source a = new Source(null, "a");
    list.add(a, 0);
    list.remove(a);
    assertThat(list.oldest()).isNull();
    assertThat(list.newest()).isNull();
  }
}
