package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Event-time timers (rule 18). */
class TimersTest extends TrackerFixture {

  @Test
  void timersFireOnceInTimeOrderWhenTheWatermarkReachesThem() {
    WatermarkTracker t = builder().build();
    List<String> fired = new ArrayList<>();
    t.registerTimer(50_000, (time, wm) -> fired.add("b@" + time + "/" + wm));
    t.registerTimer(20_000, (time, wm) -> fired.add("a@" + time + "/" + wm));
    t.registerTimer(90_000, (time, wm) -> fired.add("c@" + time + "/" + wm));
    t.observe("p0", 59_999); // watermark 49_999
    assertThat(fired).containsExactly("a@20000/49999");
    t.observe("p0", 60_000); // watermark 50_000: reached exactly
    assertThat(fired).containsExactly("a@20000/49999", "b@50000/50000");
    t.observe("p0", 60_001);
    assertThat(fired).hasSize(2);
    assertThat(t.pendingTimers()).isEqualTo(1);
    t.advanceTo(Long.MAX_VALUE);
    assertThat(fired).hasSize(3);
    assertThat(t.pendingTimers()).isZero();
  }

  @Test
  void tiesFireInRegistrationOrder() {
    WatermarkTracker t = builder().build();
    List<Integer> fired = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      int id = i;
      t.registerTimer(1_000, (time, wm) -> fired.add(id));
    }
    t.advanceTo(LATENESS + 1_000);
    assertThat(fired)
        .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
  }

  @Test
  void aSeedThatReachesATimerFiresItBeforeReturning() {
    WatermarkTracker t = builder().build();
    long bound = clock.wallMillis() - LATENESS;
    List<Long> fired = new ArrayList<>();
    t.registerTimer(bound, (time, wm) -> fired.add(wm));
    t.seedWatermark(bound - 1);
    assertThat(fired).isEmpty();
    t.seedWatermark(bound);
    assertThat(fired).containsExactly(bound);
    assertThat(t.pendingTimers()).isZero();
  }

  @Test
  void finishFiresEveryPendingTimerBeforeReturning() {
    WatermarkTracker t = builder().build();
    t.observe("p0", 100_000);
    List<Long> fired = new ArrayList<>();
    t.registerTimer(Long.MAX_VALUE, (time, wm) -> fired.add(time));
    t.registerTimer(200_000, (time, wm) -> fired.add(time));
    t.finish();
    assertThat(fired).containsExactly(200_000L, Long.MAX_VALUE);
    assertThat(t.pendingTimers()).isZero();
  }

  @Test
  void timerAtOrBelowTheWatermarkFiresBeforeRegisterReturns() {
    WatermarkTracker t = builder().build();
    t.observe("p0", 100_000);
    List<Long> fired = new ArrayList<>();
    t.registerTimer(90_000, (time, wm) -> fired.add(time));
    assertThat(fired).containsExactly(90_000L);
  }

  @Test
  void callbackMayRegisterTimersAndMoveTheWatermarkAndOrderHolds() {
    WatermarkTracker t = builder().build();
    List<Long> fired = new ArrayList<>();
    t.registerTimer(
        10,
        (time, wm) -> {
          fired.add(time);
          t.registerTimer(5, (tt, w) -> fired.add(tt)); // already due: fires next
          t.registerTimer(500, (tt, w) -> fired.add(tt));
          t.observe("p0", 600 + LATENESS); // moves the watermark to 600 from inside
        });
    t.registerTimer(1_000, (time, wm) -> fired.add(time));
    t.observe("p0", 100 + LATENESS);
    assertThat(fired).containsExactly(10L, 5L, 500L);
    assertThat(t.watermark()).isEqualTo(600);
  }

  @Test
  void exceptionFromACallbackPropagatesAndTheRestFireLater() {
    WatermarkTracker t = builder().build();
    List<Long> fired = new ArrayList<>();
    t.registerTimer(
        1,
        (time, wm) -> {
          throw new IllegalStateException("boom");
        });
    t.registerTimer(2, (time, wm) -> fired.add(time));
    assertThatThrownBy(() -> t.observe("p0", 100 + LATENESS)).hasMessage("boom");
    assertThat(t.watermark()).isEqualTo(100);
    assertThat(t.pendingTimers()).isEqualTo(1);
    t.refresh();
    assertThat(fired).containsExactly(2L);
  }

  @Test
  void nullTimerIsRejected() {
    WatermarkTracker t = builder().build();
    assertThatThrownBy(() -> t.registerTimer(1, null)).hasMessage("timer");
    assertThat(t.pendingTimers()).isZero();
  }

  @Test
  void manyTimersFireInSortedOrder() {
    WatermarkTracker t = builder().build();
    SplittableRandom random = new SplittableRandom(7);
    List<Long> fired = new ArrayList<>();
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      long time = random.nextLong(1_000_000);
      expected.add(time);
      t.registerTimer(time, (tt, w) -> fired.add(tt));
    }
    for (long e = 0; e <= 1_000_000 + LATENESS; e += 12_345) {
      t.observe("p0", e);
    }
    t.advanceTo(Long.MAX_VALUE);
    expected.sort(null);
    assertThat(fired).isEqualTo(expected);
  }
}
