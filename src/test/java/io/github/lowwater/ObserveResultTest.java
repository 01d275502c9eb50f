package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What the {@code observe} overloads that take the future limit return: {@code true} iff the event
 * was observed (at or below the limit), {@code false} iff it was beyond it and only counted, by
 * key, by handle, and by a handle passed as an {@code Object}; and {@code true} on the short cut
 * that skips the re-evaluation.
 */
class ObserveResultTest extends TrackerFixture {

  @Test
  void eachOverloadWithALimitSaysWhetherTheEventWasObserved() {
    WatermarkTracker t = builder().build();
    assertThat(t.observe("k", 1_000, 1_000)).as("by key, at the limit").isTrue();
    assertThat(t.observe("k", 1_001, 1_000)).as("by key, beyond").isFalse();
    WatermarkTracker.Source a = t.source("a");
    assertThat(t.observe(a, 500, 1_000)).as("by handle").isTrue();
    assertThat(t.observe(a, 2_000, 1_000)).as("by handle, beyond").isFalse();
    Object handle = a;
    assertThat(t.observe(handle, 600, 1_000)).as("a handle as an Object").isTrue();
    assertThat(t.observe(handle, 2_000, 1_000)).as("a handle as an Object, beyond").isFalse();
    assertThat(t.futureEvents()).isEqualTo(3);
    assertThat(t.frontier("k")).isEqualTo(1_000);
    assertThat(t.frontier("a")).isEqualTo(600);
  }

  /** Events of a source that is not the slowest skip the re-evaluation: still observed. */
  @Test
  void anEventThatSkipsTheReevaluationIsObserved() {
    WatermarkTracker t = builder().build();
    t.observe("slow", 1_000_000);
    WatermarkTracker.Source fast = t.source("fast");
    for (long e = 2_000_000; e < 2_000_010; e++) {
      assertThat(t.observe(fast, e, Long.MAX_VALUE)).as("event %d", e).isTrue();
      assertThat(t.frontier("fast")).isEqualTo(e);
    }
    assertThat(t.watermark()).isEqualTo(1_000_000 - LATENESS);
  }
}
