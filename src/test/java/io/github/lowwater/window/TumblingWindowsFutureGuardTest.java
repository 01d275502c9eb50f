package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The future-timestamp guard of the windows and its policies (rule 19). */
class TumblingWindowsFutureGuardTest extends WindowsFixture {

  @Test
  void futureEventIsAcceptedWithoutMovingTheFrontierByDefault() {
    TumblingWindows<String, Long, Long> w = builder().maxFutureSkew(Duration.ofMinutes(1)).build();
    w.add("fleet", now, "k", 1L);
    assertThat(w.add("fast-device", now + 60_000, "k", 1L)).as("exactly at the limit").isTrue();
    assertThat(w.frontier("fast-device")).isEqualTo(now + 60_000);
    assertThat(w.add("broken-device", now + 60_001, "k", 1L)).isTrue();
    assertThat(w.frontier("broken-device")).isEqualTo(Long.MIN_VALUE);
    assertThat(w.stats().futureEvents()).isEqualTo(1);
    assertThat(w.stats().accepted()).isEqualTo(3);
    assertThat(w.futureBySource()).containsExactly(entry("broken-device", 1L));
    assertThat(w.activeSources()).as("future events are not activity").isEqualTo(2);
    w.add("fleet", now + SIZE, "k", 1L);
    w.add("fast-device", now + SIZE, "k", 1L);
    assertThat(w.watermark()).as("the broken device holds nothing back").isEqualTo(now + SIZE);
  }

  /**
   * One guard, the tracker's: an event beyond it is counted once, by the same rule, whether it
   * comes through {@code add} under either policy or through {@code observe} (a redelivered
   * record), and an unknown source that sends only such events is known afterwards, but idle.
   */
  @Test
  void oneGuardTheTrackersCountsEveryPathOnceAndKeepsAnUnknownSourceIdle() {
    for (FutureEventPolicy policy : FutureEventPolicy.values()) {
      TumblingWindows<String, Long, Long> w =
          builder().maxFutureSkew(Duration.ofMinutes(1)).futureEventPolicy(policy).build();
      w.add("fleet", now, "k", 1L);
      w.add("device", now + 60_001, "k", 1L);
      w.observe("device", now + 120_000);
      w.observe(w.source("fleet"), now + 60_000); // at the limit: observed
      assertThat(w.stats().futureEvents()).as("%s", policy).isEqualTo(2);
      assertThat(w.futureBySource()).as("%s", policy).containsExactly(entry("device", 2L));
      assertThat(w.frontier("device")).isEqualTo(Long.MIN_VALUE);
      assertThat(w.frontier("fleet")).isEqualTo(now + 60_000);
      assertThat(w.isActive("device")).isFalse();
      assertThat(w.activeSources()).isEqualTo(1);
    }
  }

  @Test
  void futureEventGoesToTheLatePathUnderTheLatePolicy() {
    TumblingWindows<String, Long, Long> w =
        builder()
            .maxFutureSkew(Duration.ofSeconds(30))
            .futureEventPolicy(FutureEventPolicy.LATE)
            .build();
    w.add("fleet", now, "k", 1L);
    assertThat(w.add("device", now + Duration.ofDays(1).toMillis(), "k", 1L)).isFalse();
    assertThat(late).containsExactly("device@" + (now + Duration.ofDays(1).toMillis()) + " future");
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.stats().futureEvents()).isEqualTo(1);
    assertThat(w.stats().openWindows()).isEqualTo(1);
    assertThat(w.lateBySource()).containsExactly(entry("device", 1L));
  }

  /**
   * Regression: an event both beyond the guard and behind the watermark took the late path only: it
   * moved its source's frontier, counted as activity and was not counted as future.
   */
  @Test
  void anEventFromTheFutureAndBehindTheWatermarkIsFutureAndLateButNeverActivity() {
    for (FutureEventPolicy policy : FutureEventPolicy.values()) {
      late.clear();
      TumblingWindows<String, Long, Long> w =
          builder().maxFutureSkew(Duration.ofMinutes(5)).futureEventPolicy(policy).build();
      w.add("fleet", now + 2 * SIZE, "k", 1L);
      clock.jumpWall(Duration.ofDays(-1)); // the watermark is now a day ahead of the wall clock
      assertThat(w.add("device", now, "k", 1L)).as("%s", policy).isFalse();
      assertThat(w.stats().futureEvents()).as("%s", policy).isEqualTo(1);
      assertThat(w.stats().late()).as("%s", policy).isEqualTo(1);
      assertThat(w.frontier("device")).as("%s", policy).isEqualTo(Long.MIN_VALUE);
      assertThat(w.activeSources()).as("%s", policy).isEqualTo(1);
      assertThat(late).as("%s", policy).containsExactly("device@" + now);
      clock.jumpWall(Duration.ofDays(1));
    }
  }

  /**
   * A future event is closed out exactly like any other: late when its window's end is at the
   * watermark, into its window (under {@code ACCEPT}) one millisecond later.
   */
  @Test
  void aFutureEventWhoseWindowEndsExactlyAtTheWatermarkIsLateTheNextWindowTakesIt() {
    TumblingWindows<String, Long, Long> w = builder().maxFutureSkew(Duration.ofMinutes(5)).build();
    long watermark = now + 2 * SIZE;
    w.add("fleet", watermark, "f", 1L);
    clock.jumpWall(Duration.ofDays(-1)); // the watermark is now a day ahead of the wall clock
    assertThat(w.add("device", watermark - 1, "k", 1L)).as("end == watermark").isFalse();
    assertThat(w.add("device", watermark, "k", 2L)).as("end == watermark + SIZE").isTrue();
    assertThat(w.stats().futureEvents()).isEqualTo(2);
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(late).containsExactly("device@" + (watermark - 1));
    w.finish();
    assertThat(w.pollFinalized())
        .extracting(WindowResult::start, WindowResult::key, WindowResult::value)
        .containsExactly(tuple(watermark, "f", 1L), tuple(watermark, "k", 2L));
  }

  @Test
  void futureGuardOptionsAreValidated() {
    TumblingWindows.Builder<Long, Long> b = builder();
    assertThatThrownBy(() -> b.maxFutureSkew(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFutureSkew must be >= 0: PT-0.001S");
    assertThatThrownBy(() -> b.futureEventPolicy(null)).hasMessage("futureEventPolicy");
    b.futureEventPolicy(FutureEventPolicy.ACCEPT);
    assertThatThrownBy(() -> b.futureEventPolicy(FutureEventPolicy.LATE))
        .hasMessage("futureEventPolicy was already set to ACCEPT");
    b.maxFutureSkew(Duration.ofMinutes(1));
    assertThatThrownBy(() -> b.maxFutureSkew(Duration.ofMinutes(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxFutureSkew was already set to PT1M");
  }
}
