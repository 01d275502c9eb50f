package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every kind refuses every mutating call made from a result visitor while it emits, and changes
 * nothing: the visitor's exception then leaves its window to be visited again from its first
 * result.
 */
class WindowKindsGuardTest {

  /** Each mutating call, by name. */
  static Map<String, Consumer<EventTimeWindows<String, Long, Long>>> calls() {
    Map<String, Consumer<EventTimeWindows<String, Long, Long>>> calls = new LinkedHashMap<>();
    calls.put("add", w -> w.add("p", 100, "k", 1L));
    calls.put("add#implicit", w -> w.add(100, "k", 1L));
    calls.put("add#handle", w -> w.add(w.source("p"), 100, "k", 1L));
    calls.put(
        "addAll",
        w -> w.addAll(w.source("p"), new long[] {100}, new String[] {"k"}, new Long[] {1L}, 0, 1));
    calls.put("register", w -> w.register("q"));
    calls.put("heartbeat", w -> w.heartbeat("p"));
    calls.put("punctuate", w -> w.punctuate("p", 50));
    calls.put("lookahead", w -> w.lookahead("p", 60, 70));
    calls.put("registerTimer", w -> w.registerTimer(80, (t, wm) -> {}));
    calls.put("remove", w -> w.remove("p"));
    calls.put("refresh", EventTimeWindows::refresh);
    calls.put("advanceTo", w -> w.advanceTo(90));
    calls.put("finish", EventTimeWindows::finish);
    calls.put("observe", w -> w.observe("p", 95));
    calls.put("observeLate", w -> w.observeLate("p", 1));
    calls.put("seedWatermark", w -> w.seedWatermark(40));
    calls.put("markWritten", w -> w.markWritten(10));
    calls.put("pollFinalized", EventTimeWindows::pollFinalized);
    calls.put("drainFinalized", w -> w.drainFinalized((s, e, k, v) -> {}));
    return calls;
  }

  static List<EventTimeWindows<String, Long, Long>> kinds() {
    ManualClock clock = new ManualClock();
    return List.of(
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build(),
        HoppingWindows.builder(Duration.ofMillis(10), Duration.ofMillis(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build(),
        SessionWindows.builder(Duration.ofMillis(5), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build(),
        SlidingWindows.builder(Duration.ofMillis(9), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .clock(clock)
            .build());
  }

  @Test
  void everyMutatingCallFromAVisitorIsRefusedAndChangesNothing() {
    for (Map.Entry<String, Consumer<EventTimeWindows<String, Long, Long>>> call :
        calls().entrySet()) {
      for (EventTimeWindows<String, Long, Long> windows : kinds()) {
        windows.add("p", 1, "k", 1L);
        windows.add("p", 30, "k", 2L); // closes the first windows
        WindowStats before = windows.stats();
        List<String> visited = new ArrayList<>();
        assertThatThrownBy(
                () ->
                    windows.drainFinalized(
                        (s, e, k, v) -> {
                          visited.add(s + "," + e + "=" + v);
                          call.getValue().accept(windows);
                        }))
            .as("%s from a visitor of %s", call.getKey(), windows)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith(call.getKey().split("#")[0] + " called from a result visitor");
        assertThat(windows.stats()).as("%s changed nothing", call.getKey()).isEqualTo(before);
        List<String> again = new ArrayList<>();
        windows.drainFinalized((s, e, k, v) -> again.add(s + "," + e + "=" + v));
        assertThat(again).as("the window is visited again").startsWith(visited.get(0));
      }
    }
  }
}
