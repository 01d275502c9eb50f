package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SlidingWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Sliding windows (issue 36) against the shapes a user would otherwise reach for, in one run, on
 * the same {@link Feed} and keys as {@link WindowKindsBenchmark}, each drained once per poll
 * through the allocation-free visitor:
 *
 * <ul>
 *   <li>{@code tumbling}: tumbling windows of {@code d} (the baseline; one row per key and {@code
 *       d}).
 *   <li>{@code hopping}: windows of {@code d} every {@code d / 12}, the usual approximation of "the
 *       last {@code d} at every record" (twelve panes combined per window).
 *   <li>{@code sliding}: {@link SlidingWindows} of time difference {@code d}: up to two rows per
 *       record, each folding the key's records within {@code d}.
 *   <li>{@code tumblingPanes} and {@code slidingPanes}: the same with early results every {@code d
 *       / 12} and a grace period of {@code d} (semantics rules 50 to 53 and 79): what panes cost
 *       each shape. A sliding window's early firing visits every key with records at each mark
 *       crossed, and each of its rows folds its records one by one.
 * </ul>
 *
 * <p>The feed carries about 17,500 records per second over its keys, so a key holds about 17.5
 * records per second at 1,000 keys and 0.17 at 100,000. With {@code d} = 1 s and 100,000 keys a
 * window holds one record or two (sparse); with {@code d} = 60 s and 1,000 keys it holds about a
 * thousand, and every record emits a window that folds them all (the skeptic's dense case: the cost
 * of the semantics, which Kafka Streams pays as an update of every window a record is in).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar SlidingWindowsBenchmark -p sources=6};
 * quote each shape as a ratio of medians to {@code tumbling} of the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class SlidingWindowsBenchmark {

  /** One set of windows of each shape, fed through its own handles. */
  @State(Scope.Thread)
  public static class Shapes {
    @Param({"1000", "60000"})
    long differenceMillis;

    CachedClock clock;
    WindowKindsBenchmark.Kind tumbling;
    WindowKindsBenchmark.Kind hopping;
    WindowKindsBenchmark.Kind sliding;
    WindowKindsBenchmark.Kind tumblingPanes;
    WindowKindsBenchmark.Kind slidingPanes;

    @Setup(Level.Trial)
    public void setUp(FeedInput input, Blackhole bh) {
      clock = new CachedClock(Clock.system());
      Duration d = Duration.ofMillis(differenceMillis);
      tumbling =
          new WindowKindsBenchmark.Kind(
              configure(TumblingWindows.builder(d, Aggregators.sumLong())).build(), input, bh);
      hopping =
          new WindowKindsBenchmark.Kind(
              configure(HoppingWindows.builder(d, d.dividedBy(12), Aggregators.sumLong())).build(),
              input,
              bh);
      sliding =
          new WindowKindsBenchmark.Kind(
              configure(SlidingWindows.builder(d, Aggregators.sumLong())).build(), input, bh);
      tumblingPanes =
          new WindowKindsBenchmark.Kind(
              panes(configure(TumblingWindows.builder(d, Aggregators.sumLong())), d).build(),
              input,
              bh);
      slidingPanes =
          new WindowKindsBenchmark.Kind(
              panes(configure(SlidingWindows.builder(d, Aggregators.sumLong())), d).build(),
              input,
              bh);
    }

    private static <B extends WindowOptions<Long, Long, B>> B panes(B builder, Duration d) {
      return builder.earlyResults(d.dividedBy(12)).grace(d);
    }

    private <B extends WindowOptions<Long, Long, B>> B configure(B builder) {
      return builder
          .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
          .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
          .clock(clock);
    }
  }

  @Benchmark
  public boolean tumbling(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return s.tumbling.add(in, k, s.clock);
  }

  @Benchmark
  public boolean hopping(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return s.hopping.add(in, k, s.clock);
  }

  @Benchmark
  public boolean sliding(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return s.sliding.add(in, k, s.clock);
  }

  @Benchmark
  public boolean tumblingPanes(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return s.tumblingPanes.add(in, k, s.clock);
  }

  @Benchmark
  public boolean slidingPanes(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return s.slidingPanes.add(in, k, s.clock);
  }
}
