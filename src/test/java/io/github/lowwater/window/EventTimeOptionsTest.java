package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkStrategy;
import io.github.lowwater.WatermarkTracker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The event-time options shared by every builder of windows: checked once, set once, and handed on
 * whole (except the clock) by {@link EventTimeOptions#copyOptionsTo}.
 */
class EventTimeOptionsTest {

  /** A builder of each kind, as a user gets it. */
  static final List<Supplier<? extends WindowOptions<Long, Long, ?>>> KINDS =
      List.of(
          () -> TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()),
          () ->
              HoppingWindows.builder(
                  Duration.ofMinutes(5), Duration.ofMinutes(1), Aggregators.sumLong()),
          () -> SessionWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong()));

  /** The options with a valid value each, applied to any builder. */
  static final List<Function<EventTimeOptions<?>, Object>> EVERY_OPTION =
      List.of(
          b -> b.allowedLateness(Duration.ofSeconds(30)),
          b -> b.idleTimeout(Duration.ofSeconds(45)),
          b -> b.clock(new ManualClock(Instant.EPOCH)),
          b -> b.strategy(WatermarkStrategy.PUNCTUATED),
          b -> b.maxFutureSkew(Duration.ofMinutes(10)),
          b -> b.futureEventPolicy(FutureEventPolicy.LATE));

  @Test
  void everyOptionOfEveryKindIsSetOnceAndASecondCallNamesIt() {
    List<String> names =
        List.of(
            "allowedLateness",
            "idleTimeout",
            "clock",
            "strategy",
            "maxFutureSkew",
            "futureEventPolicy");
    for (Supplier<? extends WindowOptions<Long, Long, ?>> kind : KINDS) {
      for (int i = 0; i < EVERY_OPTION.size(); i++) {
        WindowOptions<Long, Long, ?> b = kind.get();
        EVERY_OPTION.get(i).apply(b);
        int option = i;
        assertThatThrownBy(() -> EVERY_OPTION.get(option).apply(b))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(names.get(i));
      }
    }
  }

  @Test
  void badValuesNameTheParameterAndTheValueAndLeaveTheBuilderUnset() {
    for (Supplier<? extends WindowOptions<Long, Long, ?>> kind : KINDS) {
      WindowOptions<Long, Long, ?> b = kind.get();
      assertThatThrownBy(() -> b.allowedLateness(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allowedLateness")
          .hasMessageContaining("-0.001");
      assertThatThrownBy(() -> b.idleTimeout(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("idleTimeout");
      assertThatThrownBy(() -> b.maxFutureSkew(Duration.ofSeconds(-5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxFutureSkew");
      assertThatThrownBy(() -> b.clock(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> b.strategy(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> b.futureEventPolicy(null)).isInstanceOf(NullPointerException.class);
      // Nothing was set by the rejected calls: each option still takes a value.
      for (Function<EventTimeOptions<?>, Object> option : EVERY_OPTION) {
        option.apply(b);
      }
    }
  }

  @Test
  void theOptionsReachTheTrackerAndTheDefaultsAreTheCores() {
    ManualClock clock = new ManualClock(Instant.EPOCH);
    TumblingWindows.Builder<Long, Long> set =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
    everyOptionSet(set, clock);
    assertEveryOptionReached(set, clock);

    WindowOptions<Long, Long, ?> unset =
        TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
    WatermarkTracker core = WatermarkTracker.builder().build();
    WatermarkTracker d = unset.trackerBuilder().build();
    assertThat(d.allowedLatenessMillis()).isEqualTo(core.allowedLatenessMillis());
    assertThat(d.idleTimeoutNanos()).isEqualTo(core.idleTimeoutNanos());
    assertThat(d.strategy()).isEqualTo(core.strategy());
    assertThat(d.futureLimitMillis()).isEqualTo(core.futureLimitMillis());
    assertThat(unset.futureEventPolicyOrDefault()).isEqualTo(FutureEventPolicy.ACCEPT);
  }

  @Test
  void copyingHandsOnEveryOptionButTheClock() {
    ManualClock mine = new ManualClock(Instant.EPOCH);
    SessionWindows.Builder<Long, Long> source =
        SessionWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
    everyOptionSet(source, mine);
    HoppingWindows.Builder<Long, Long> target =
        source.copyOptionsTo(
            HoppingWindows.builder(
                Duration.ofMinutes(5), Duration.ofMinutes(1), Aggregators.sumLong()));
    assertThat(target.configuredClock()).as("the clock is the caller's to wrap").isNull();
    assertThat(source.configuredClock()).isSameAs(mine);
    target.clock(mine); // still free to set
    assertEveryOptionReached(target, mine);

    // A copy onto a builder that already has one of the options is refused, by name.
    assertThatThrownBy(
            () ->
                source.copyOptionsTo(
                    TumblingWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                        .idleTimeout(Duration.ofSeconds(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("idleTimeout");
  }

  /** Sets every option, the values the assertions expect: 30 s, 45 s, punctuated, 10 min, LATE. */
  static <B extends EventTimeOptions<B>> B everyOptionSet(B b, ManualClock clock) {
    return b.allowedLateness(Duration.ofSeconds(30))
        .idleTimeout(Duration.ofSeconds(45))
        .clock(clock)
        .strategy(WatermarkStrategy.PUNCTUATED)
        .maxFutureSkew(Duration.ofMinutes(10))
        .futureEventPolicy(FutureEventPolicy.LATE);
  }

  /** The values of {@link #everyOptionSet}, as the windows' tracker and policy see them. */
  static void assertEveryOptionReached(WindowOptions<?, ?, ?> options, ManualClock clock) {
    WatermarkTracker t = options.trackerBuilder().build();
    assertThat(t.allowedLatenessMillis()).isEqualTo(30_000);
    assertThat(t.idleTimeoutNanos()).isEqualTo(Duration.ofSeconds(45).toNanos());
    assertThat(t.clock()).isSameAs(clock);
    assertThat(t.strategy()).isEqualTo(WatermarkStrategy.PUNCTUATED);
    assertThat(t.futureLimitMillis()).isEqualTo(10 * 60_000);
    assertThat(options.futureEventPolicyOrDefault()).isEqualTo(FutureEventPolicy.LATE);
  }
}
