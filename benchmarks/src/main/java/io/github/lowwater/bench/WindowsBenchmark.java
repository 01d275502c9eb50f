package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
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
 * The cost of one event through {@link TumblingWindows#add} against the floor, a bare keyed {@code
 * HashMap<String, long[]>} sum with no time logic, on the same {@link Feed}.
 *
 * <ul>
 *   <li>{@code windowsAdd}: one-minute tumbling windows summing {@code Long} values ({@link
 *       Aggregators#sumLong()}), allowed lateness one second, a {@link CachedClock} updated at the
 *       first record of each poll, and, as a consumer does, {@link TumblingWindows#pollFinalized()}
 *       drained once per poll (its list goes to a {@link Blackhole}). One lap of the feed is one
 *       minute of event time, so each (window, key) receives about {@code 2^20 / keys} events:
 *       about 10 at 100,000 keys, about 1,000 at 1,000 keys. Opening and finalizing those entries
 *       is part of the measured cost.
 *   <li>{@code windowsAddHandle}: the same as {@code windowsAdd}, but through {@link
 *       TumblingWindows#add(io.github.lowwater.WatermarkTracker.Source, long, Object, Object)} with
 *       the handles of {@link TumblingWindows#source(Object)}, taken once in {@code @Setup} into an
 *       array indexed by partition: no hash lookup of the source per event.
 *   <li>{@code keyedSumFloor}: the same key and value sequence into one {@code HashMap<String,
 *       long[]>}, no source, no time, no window: what any keyed aggregation costs at least.
 * </ul>
 *
 * <p>Run (from the repository root; the whole suite, as in {@code docs/benchmarks.md}):
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc -rf json -rff benchmarks/results/full.json
 * </pre>
 *
 * <p>This class alone: append {@code WindowsBenchmark} to the {@code java -jar} line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class WindowsBenchmark {

  static final Duration WINDOW_SIZE = Duration.ofMinutes(1);

  /** The keys and values of the feed; they do not depend on the number of sources. */
  @State(Scope.Thread)
  public static class Keys {
    @Param({"1000", "100000"})
    int keys;

    String[] keyStrings;
    int[] keyIndex;
    Long[] values;

    @Setup(Level.Trial)
    public void setUp() {
      keyStrings = Feed.keyStrings(keys);
      keyIndex = Feed.keyIndexes(keys);
      values = Feed.values();
    }
  }

  /** Lowwater's windows with a clock read once per poll. */
  @State(Scope.Thread)
  public static class Windows {
    CachedClock clock;
    TumblingWindows<String, Long, Long> windows;

    @Setup(Level.Trial)
    public void setUp() {
      clock = new CachedClock(Clock.system());
      windows =
          TumblingWindows.builder(WINDOW_SIZE, Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
    }
  }

  /** Lowwater's windows with a clock read once per poll, fed through source handles. */
  @State(Scope.Thread)
  public static class WindowsHandle {
    CachedClock clock;
    TumblingWindows<String, Long, Long> windows;
    WatermarkTracker.Source[] handles;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      windows =
          TumblingWindows.builder(WINDOW_SIZE, Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      handles = new WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = windows.source(input.sourceKeys[p]);
      }
    }
  }

  /** The floor: a bare keyed sum. */
  @State(Scope.Thread)
  public static class Floor {
    HashMap<String, long[]> sums;
    long counter;

    @Setup(Level.Trial)
    public void setUp() {
      sums = new HashMap<>();
    }
  }

  @Benchmark
  public boolean windowsAdd(FeedInput in, Keys k, Windows w, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      List<WindowResult<String, Long>> finalized = w.windows.pollFinalized();
      bh.consume(finalized);
      w.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    return w.windows.add(in.sourceKeys[in.source[i]], t, k.keyStrings[k.keyIndex[i]], k.values[i]);
  }

  @Benchmark
  public boolean windowsAddHandle(FeedInput in, Keys k, WindowsHandle w, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      List<WindowResult<String, Long>> finalized = w.windows.pollFinalized();
      bh.consume(finalized);
      w.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    return w.windows.add(w.handles[in.source[i]], t, k.keyStrings[k.keyIndex[i]], k.values[i]);
  }

  @Benchmark
  public long keyedSumFloor(Keys k, Floor f) {
    int i = (int) (f.counter++) & Feed.MASK;
    String key = k.keyStrings[k.keyIndex[i]];
    long[] cell = f.sums.get(key);
    if (cell == null) {
      cell = new long[1];
      f.sums.put(key, cell);
    }
    cell[0] += k.values[i];
    return cell[0];
  }
}
