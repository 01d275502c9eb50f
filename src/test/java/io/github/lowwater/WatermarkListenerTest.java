package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link WatermarkListener}: told of each rise, once, before the timers due at it. */
class WatermarkListenerTest extends TrackerFixture {

  @Test
  void theListenerHearsEachRiseOnceBeforeTheTimersDueAtIt() {
    List<String> heard = new ArrayList<>();
    WatermarkTracker t = builder().build(wm -> heard.add("rise " + wm));
    t.registerTimer(50_000, (time, wm) -> heard.add("timer " + time + "/" + wm));
    t.observe("p0", 59_999); // watermark 49_999
    t.observe("p0", 59_000); // behind the frontier: no rise
    t.observe("p0", 60_000); // 50_000
    t.heartbeat("p0"); // no rise
    t.finish();
    assertThat(heard)
        .containsExactly("rise 49999", "rise 50000", "timer 50000/50000", "rise " + Long.MAX_VALUE);
  }

  @Test
  void everyCallThatRaisesTheWatermarkTellsTheListener() {
    List<Long> heard = new ArrayList<>();
    WatermarkTracker t = builder().build(heard::add);
    t.seedWatermark(1_000);
    t.punctuate("p0", 50_000);
    t.advanceTo(clock.wallMillis());
    assertThat(heard).hasSize(3).isSorted();
    assertThat(heard.get(0)).isEqualTo(1_000);
  }

  @Test
  void aListenerThatThrowsLeavesTheWatermarkMovedAndTheTimersForLater() {
    List<Long> fired = new ArrayList<>();
    boolean[] fail = {true};
    WatermarkTracker t =
        builder()
            .build(
                wm -> {
                  if (fail[0]) {
                    throw new IllegalStateException("listener");
                  }
                });
    t.registerTimer(10_000, (time, wm) -> fired.add(wm));
    assertThatThrownBy(() -> t.observe("p0", 80_000)).hasMessage("listener");
    assertThat(t.watermark()).isEqualTo(70_000);
    assertThat(fired).as("not yet: the rise threw first").isEmpty();
    fail[0] = false;
    t.refresh();
    assertThat(fired).containsExactly(70_000L);
  }

  @Test
  void aNullListenerIsRefused() {
    assertThatThrownBy(() -> builder().build(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("listener");
  }
}
