package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.ResultVisitor;
import io.github.lowwater.window.SessionWindows;
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
 * The three window kinds in one run, on the same {@link Feed} and the same keys as {@link
 * WindowsBenchmark}, each drained once per poll through the allocation-free visitor:
 *
 * <ul>
 *   <li>{@code tumbling}: one-minute tumbling windows (the baseline).
 *   <li>{@code hopping}: one-minute windows every five seconds ({@code size / advance = 12}): one
 *       pane update per event, twelve panes combined per window at the drain.
 *   <li>{@code sessions}: session windows; {@code gapMillis} 2,000 ends most keys' sessions between
 *       two of their events at 100,000 keys (a session opens and closes nearly per event, the hard
 *       case), 30,000 keeps every key's session open (the cheap case).
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar WindowKindsBenchmark -prof gc}; quote
 * each kind as a ratio of medians to {@code tumbling} of the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class WindowKindsBenchmark {

  static final Duration SIZE = Duration.ofMinutes(1);

  /** One set of windows of each kind, fed through its own handles. */
  @State(Scope.Thread)
  public static class Kinds {
    @Param({"2000", "30000"})
    long gapMillis;

    CachedClock clock;
    Kind tumbling;
    Kind hopping;
    Kind sessions;

    @Setup(Level.Trial)
    public void setUp(FeedInput input, Blackhole bh) {
      clock = new CachedClock(Clock.system());
      tumbling =
          new Kind(
              configure(TumblingWindows.builder(SIZE, Aggregators.sumLong())).build(), input, bh);
      hopping =
          new Kind(
              configure(HoppingWindows.builder(SIZE, Duration.ofSeconds(5), Aggregators.sumLong()))
                  .build(),
              input,
              bh);
      sessions =
          new Kind(
              configure(SessionWindows.builder(Duration.ofMillis(gapMillis), Aggregators.sumLong()))
                  .build(),
              input,
              bh);
    }

    private <B extends WindowOptions<Long, Long, B>> B configure(B builder) {
      return builder
          .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
          .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
          .clock(clock);
    }
  }

  /** One kind: its windows, its source handles and a visitor into the Blackhole. */
  static final class Kind {
    final EventTimeWindows<String, Long, Long> windows;
    final io.github.lowwater.WatermarkTracker.Source[] handles;
    final ResultVisitor<String, Long> visitor;

    Kind(EventTimeWindows<String, Long, Long> windows, FeedInput input, Blackhole bh) {
      this.windows = windows;
      handles = new io.github.lowwater.WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = windows.source(input.sourceKeys[p]);
      }
      visitor =
          new ResultVisitor<>() {
            @Override
            public void visit(long start, long end, String key, Long value) {
              bh.consume(value);
            }

            @Override
            public void visitLong(long start, long end, String key, long value) {
              bh.consume(value);
            }
          };
    }

    boolean add(FeedInput in, WindowsBenchmark.Keys k, CachedClock clock) {
      long c = in.counter++;
      int i = (int) c & Feed.MASK;
      if (in.pollStart[i]) {
        windows.drainFinalized(visitor);
        clock.update();
      }
      long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
      return windows.add(handles[in.source[i]], t, k.keyStrings[k.keyIndex[i]], k.values[i]);
    }
  }

  @Benchmark
  public boolean tumbling(FeedInput in, WindowsBenchmark.Keys k, Kinds kinds) {
    return kinds.tumbling.add(in, k, kinds.clock);
  }

  @Benchmark
  public boolean hopping(FeedInput in, WindowsBenchmark.Keys k, Kinds kinds) {
    return kinds.hopping.add(in, k, kinds.clock);
  }

  @Benchmark
  public boolean sessions(FeedInput in, WindowsBenchmark.Keys k, Kinds kinds) {
    return kinds.sessions.add(in, k, kinds.clock);
  }
}
