package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.testing.Trials;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based: {@link TimerQueue} against a list kept in (time, registration) order by a stable
 * sort, on seeded random adds, removals of the first timer and due checks, with many ties and the
 * {@code long} bounds. A failure names its seed and step.
 */
class TimerQueueTest {

  /** A timer of the reference: its time and a callback that is compared by identity. */
  private record Entry(long time, WatermarkTimer timer) {}

  private static final Comparator<Entry> BY_TIME = Comparator.comparingLong(Entry::time);

  @Test
  void removesTimersInTimeThenRegistrationOrderOnRandomOperations() {
    for (long seed = 1; seed <= Trials.of(300); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      TimerQueue queue = new TimerQueue();
      List<Entry> reference = new ArrayList<>();
      int spread = 1 + random.nextInt(50); // small spreads give many ties
      for (int step = 0; step < 2_000; step++) {
        String where = "seed " + seed + " step " + step;
        if (random.nextInt(5) < 3) {
          long time = time(random, spread);
          WatermarkTimer timer = (t, w) -> {};
          queue.add(time, timer);
          reference.add(new Entry(time, timer));
          reference.sort(BY_TIME); // stable: equal times stay in registration order
          where += " add " + time;
        } else if (!reference.isEmpty()) {
          Entry first = reference.remove(0);
          assertThat(queue.firstTime()).as(where + " first time").isEqualTo(first.time());
          assertThat(queue.removeFirst()).as(where + " first timer").isSameAs(first.timer());
        }
        assertThat(queue.size()).as(where + " size").isEqualTo(reference.size());
        long watermark = time(random, spread);
        assertThat(queue.hasDue(watermark))
            .as(where + " due at " + watermark)
            .isEqualTo(!reference.isEmpty() && reference.get(0).time() <= watermark);
        if (!reference.isEmpty()) {
          assertThat(queue.hasDue(reference.get(0).time())).as(where + " due at its time").isTrue();
        }
      }
    }
  }

  private static long time(SplittableRandom random, int spread) {
    int dice = random.nextInt(40);
    if (dice == 0) {
      return Long.MIN_VALUE;
    }
    if (dice == 1) {
      return Long.MAX_VALUE;
    }
    return random.nextInt(-spread, spread + 1);
  }

  @Test
  void anEmptyQueueHasNothingDueEvenAtTheTopOfTime() {
    TimerQueue queue = new TimerQueue();
    assertThat(queue.size()).isZero();
    assertThat(queue.hasDue(Long.MAX_VALUE)).isFalse();
    queue.add(Long.MAX_VALUE, (t, w) -> {});
    assertThat(queue.hasDue(Long.MAX_VALUE - 1)).isFalse();
    assertThat(queue.hasDue(Long.MAX_VALUE)).isTrue();
    queue.removeFirst();
    assertThat(queue.hasDue(Long.MAX_VALUE)).isFalse();
  }

  @Test
  void manyTimersOfOneTimeComeOutInRegistrationOrderThroughGrowth() {
    TimerQueue queue = new TimerQueue();
    List<WatermarkTimer> registered = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      WatermarkTimer timer = (t, w) -> {};
      registered.add(timer);
      queue.add(42, timer);
    }
    for (WatermarkTimer timer : registered) {
      assertThat(queue.firstTime()).isEqualTo(42);
      assertThat(queue.removeFirst()).isSameAs(timer);
    }
    assertThat(queue.size()).isZero();
  }
}
