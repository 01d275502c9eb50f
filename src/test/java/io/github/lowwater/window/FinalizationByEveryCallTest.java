package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule 11: a window is finalized by whichever call raised the watermark to its end, before that
 * call returns, so {@link TumblingWindows#stats()} shows it before any {@code pollFinalized()}.
 * Each case starts from the same state: window {@code [0, 10)} open and held by "slow", which goes
 * idle as of the next re-evaluation, and "p" active at 15.
 */
class FinalizationByEveryCallTest {

  private static final long SKEW_MILLIS = 1_000;

  static Stream<Arguments> callsThatRaiseTheWatermark() {
    return Stream.of(
        call("add (accepted)", w -> w.add("p", 16, "k", 1L)),
        call("add (late, its observation retires slow)", w -> w.add("p", -5, "k", 1L)),
        call(
            "add (future, ACCEPT: a re-evaluation without activity)",
            w -> w.add("p", 1_000_000, "k", 1L)),
        call("add through a handle", w -> w.add(w.source("p"), 16, "k", 1L)),
        call("observe", w -> w.observe("p", 15)),
        call("heartbeat", w -> w.heartbeat("p")),
        call("punctuate", w -> w.punctuate("p", 0)),
        call("lookahead", w -> w.lookahead("p", 16, 16)),
        call("refresh", TumblingWindows::refresh),
        call("remove", w -> w.remove("slow")),
        call("advanceTo", w -> w.advanceTo(10)),
        call("seedWatermark", w -> w.seedWatermark(10)),
        call("finish (closes [10, 20) too)", 2, TumblingWindows::finish));
  }

  private static Arguments call(String name, Consumer<TumblingWindows<String, Long, Long>> call) {
    return call(name, 1, call);
  }

  private static Arguments call(
      String name, long finalized, Consumer<TumblingWindows<String, Long, Long>> call) {
    return Arguments.of(name, finalized, call);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("callsThatRaiseTheWatermark")
  void theCallThatRaisesTheWatermarkFinalizesTheWindowsItPassesBeforeReturning(
      String name, long finalized, Consumer<TumblingWindows<String, Long, Long>> call) {
    TumblingWindows<String, Long, Long> w = windows(FutureEventPolicy.ACCEPT);
    call.accept(w);
    assertThat(w.watermark()).isGreaterThanOrEqualTo(10);
    assertThat(w.stats().finalizedWindows())
        .as("finalized by the call itself")
        .isEqualTo(finalized);
  }

  /** Under {@code LATE}, a future event goes to the late path, which re-evaluates without it. */
  @Test
  void aFutureEventOnTheLatePathFinalizesTheWindowsItsReEvaluationPasses() {
    TumblingWindows<String, Long, Long> w = windows(FutureEventPolicy.LATE);
    assertThat(w.add("p", 1_000_000, "k", 1L)).isFalse();
    assertThat(w.watermark()).isEqualTo(15);
    assertThat(w.stats().finalizedWindows()).isEqualTo(1);
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.frontier("p")).as("a future event moves no frontier").isEqualTo(15);
  }

  /**
   * Window {@code [0, 10)} and {@code [10, 20)} open, watermark 5 held by "slow" (silent 1.1 s,
   * more than the 1 s idle timeout, not re-evaluated yet), "p" active at 15.
   */
  private static TumblingWindows<String, Long, Long> windows(FutureEventPolicy policy) {
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> w =
        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .idleTimeout(Duration.ofSeconds(1))
            .maxFutureSkew(Duration.ofMillis(SKEW_MILLIS))
            .futureEventPolicy(policy)
            .clock(clock)
            .build();
    w.add("slow", 5, "k", 1L);
    w.add("p", 15, "k", 1L);
    clock.advance(Duration.ofMillis(600));
    w.heartbeat("p");
    clock.advance(Duration.ofMillis(500));
    assertThat(w.watermark()).isEqualTo(5);
    assertThat(w.stats().openWindows()).isEqualTo(2);
    assertThat(w.stats().finalizedWindows()).isZero();
    return w;
  }
}
