package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The short cut of {@code observe}: an event of a source that is not the slowest skips the
 * re-evaluation when no deadline is due. Each test is a case where a skip taken too eagerly would
 * change what rule 4 of {@code docs/semantics.md} says the call does: retire an idle source, raise
 * the watermark to a source that entered without a re-evaluation, or fire a timer left due.
 */
class ObserveSkipTest extends TrackerFixture {

  /**
   * Guards a skip that ignores idleness: the slowest source goes idle while only a faster one
   * speaks, and that faster source's event must retire it and release the watermark.
   */
  @Test
  void anEventOfAFasterSourceRetiresTheSlowestOnceItIsIdle() {
    WatermarkTracker t = builder().build();
    t.observe("slow", 1_000_000);
    t.observe("fast", 2_000_000);
    assertThat(t.watermark()).isEqualTo(1_000_000 - LATENESS);
    clock.advance(Duration.ofMinutes(1));
    t.observe("fast", 2_000_001);
    assertThat(t.isActive("slow")).as("exactly the timeout: still active").isTrue();
    assertThat(t.watermark()).isEqualTo(1_000_000 - LATENESS);
    clock.advance(Duration.ofNanos(1));
    t.observe("fast", 2_000_002);
    assertThat(t.isActive("slow")).isFalse();
    assertThat(t.activeSources()).isEqualTo(1);
    assertThat(t.watermark()).isEqualTo(2_000_002 - LATENESS);
  }

  /**
   * Guards a skip that trusts the root after a registration: under processing time a source
   * registered into an empty tracker holds a contribution above the watermark without a
   * re-evaluation, and the next event of any source must raise the watermark to it.
   */
  @Test
  void anEventAfterRegistrationsRaisesTheWatermarkToTheSourcesThatEnteredWithoutOne() {
    WatermarkTracker t = builder().strategy(WatermarkStrategy.PROCESSING_TIME).build();
    long wall = clock.wallMillis();
    t.register("b");
    clock.jumpWall(Duration.ofSeconds(1));
    WatermarkTracker.Source c = t.source("c");
    assertThat(t.watermark()).as("registration does not re-evaluate").isEqualTo(Long.MIN_VALUE);
    t.observe(c, 0); // c is not the slowest: b is
    assertThat(t.watermark()).isEqualTo(wall - LATENESS);
  }

  /**
   * Guards a skip that forgets timers: a timer that stayed due because an earlier one threw must
   * fire at the next event, even of a source that is not the slowest.
   */
  @Test
  void aTimerLeftDueByAThrowingOneFiresAtTheNextEventOfAnySource() {
    WatermarkTracker t = builder().build();
    t.observe("slow", 50 + LATENESS);
    t.observe("fast", 500 + LATENESS);
    List<Long> fired = new ArrayList<>();
    t.registerTimer(
        100,
        (time, wm) -> {
          throw new IllegalStateException("boom");
        });
    t.registerTimer(100, (time, wm) -> fired.add(time));
    assertThatThrownBy(() -> t.observe("slow", 100 + LATENESS)).hasMessage("boom");
    assertThat(t.pendingTimers()).isEqualTo(1);
    t.observe("fast", 600 + LATENESS); // not the slowest, nothing else due
    assertThat(fired).containsExactly(100L);
    assertThat(t.pendingTimers()).isZero();
  }

  /**
   * Random traces with a clock read once per poll, as a consumer runs it: after every event the
   * watermark, the active count and the fired timers are what a full re-evaluation gives, computed
   * here from scratch. A failure names its seed and step.
   */
  @Test
  void everyEventLeavesWhatAFullReEvaluationWouldOnRandomPolls() {
    for (long seed = 1; seed <= Trials.of(100); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      ManualClock manual = new ManualClock();
      CachedClock cached = new CachedClock(manual);
      long idleNanos = Duration.ofSeconds(1).toNanos();
      WatermarkTracker t =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(LATENESS))
              .idleTimeout(Duration.ofNanos(idleNanos))
              .clock(cached)
              .build();
      int pool = 1 + random.nextInt(20);
      long[] frontier = new long[pool];
      long[] lastSeen = new long[pool];
      boolean[] known = new boolean[pool];
      long watermark = Long.MIN_VALUE;
      List<Long> fired = new ArrayList<>();
      List<Long> pending = new ArrayList<>();
      for (int step = 0; step < 3_000; step++) {
        String where = "seed " + seed + " step " + step;
        if (random.nextInt(50) == 0) {
          manual.advance(Duration.ofMillis(random.nextInt(1_200)));
          cached.update();
        }
        if (random.nextInt(40) == 0) {
          long time = watermark == Long.MIN_VALUE ? 0 : watermark + random.nextInt(20_000);
          pending.add(time);
          t.registerTimer(time, (tm, wm) -> fired.add(tm));
        }
        int p = random.nextInt(pool);
        long now = cached.monotonicNanos();
        long base = known[p] && frontier[p] != Long.MIN_VALUE ? frontier[p] : 0;
        long eventTime = base + random.nextInt(-100, 1_000);
        if (random.nextInt(100) == 0) {
          t.register("p" + p);
          if (!known[p]) { // a known source, active or idle, is left as it is
            frontier[p] = Long.MIN_VALUE;
            lastSeen[p] = now;
            known[p] = true;
          }
          continue; // register does not re-evaluate; nothing to compare until the next event
        }
        t.observe("p" + p, eventTime);
        frontier[p] = known[p] ? Math.max(frontier[p], eventTime) : eventTime;
        lastSeen[p] = now;
        known[p] = true;
        long min = Long.MAX_VALUE;
        int active = 0;
        for (int i = 0; i < pool; i++) {
          if (known[i] && now - lastSeen[i] <= idleNanos) {
            active++;
            min = Math.min(min, TimeMath.saturatedSubtract(frontier[i], LATENESS));
          }
        }
        watermark = Math.max(watermark, min);
        assertThat(t.watermark()).as(where + " watermark").isEqualTo(watermark);
        assertThat(t.activeSources()).as(where + " active").isEqualTo(active);
        final long w = watermark;
        List<Long> due = new ArrayList<>(pending.stream().filter(x -> x <= w).sorted().toList());
        pending.removeIf(x -> x <= w);
        assertThat(fired).as(where + " fired").containsExactlyElementsOf(due);
        fired.clear();
        assertThat(t.pendingTimers()).as(where + " pending").isEqualTo(pending.size());
      }
    }
  }
}
