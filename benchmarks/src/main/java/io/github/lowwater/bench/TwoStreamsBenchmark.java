package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinRow;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.join.StreamJoin;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
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
 * Two streams in one event time (issue 35), per event on the {@link Feed} every benchmark walks:
 *
 * <ul>
 *   <li>{@code tumbling}, {@code perSource} false or true: {@link TumblingWindows#add} through
 *       source handles, one-minute windows, the event judged against the shared watermark (the
 *       default) or against its own source's ({@code perSourceLateness()}, semantics rule 72, what
 *       {@code CO_PARTITIONED} uses). Their ratio is the price of the rule on the hot path.
 *   <li>{@code join}: {@link StreamJoin#addLeft} or {@link StreamJoin#addRight} (even sources are
 *       the left stream, odd ones the right), an inner join over {@link JoinInterval#within} the
 *       {@code differenceMillis} parameter, its rows drained once per poll. Narrow (100 ms) keeps
 *       few records buffered per key; wide (10 s) keeps about a hundred times more, and each record
 *       meets more partners: rows per event grow with it. The cost per event includes the rows it
 *       makes. Through the sources' handles ({@link StreamJoin#source}), as a driver holds them.
 * </ul>
 *
 * <p>Run (from the repository root; the whole suite, as in {@code docs/benchmarks.md}):
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar TwoStreamsBenchmark \
 *     -p sources=6,1024 -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class TwoStreamsBenchmark {

  static final Duration WINDOW_SIZE = Duration.ofMinutes(1);

  /** Tumbling windows through handles, judged per source or not. */
  @State(Scope.Thread)
  public static class Windows {
    @Param({"false", "true"})
    boolean perSource;

    CachedClock clock;
    TumblingWindows<String, Long, Long> windows;
    WatermarkTracker.Source[] handles;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      TumblingWindows.Builder<Long, Long> b =
          TumblingWindows.builder(WINDOW_SIZE, Aggregators.sumLong())
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock);
      if (perSource) {
        b.perSourceLateness();
      }
      windows = b.build();
      handles = new WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = windows.source(input.sourceKeys[p]);
      }
    }
  }

  /** An inner join of the even sources (left) with the odd ones (right). */
  @State(Scope.Thread)
  public static class Join {
    @Param({"100", "10000"})
    long differenceMillis;

    CachedClock clock;
    StreamJoin<String, Long, Long, Long> join;
    WatermarkTracker.Source[] handles;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      join =
          StreamJoin.builder(
                  JoinInterval.within(Duration.ofMillis(differenceMillis)),
                  (String k, Long l, Long r) -> l + r)
              .type(JoinType.INNER)
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      handles = new WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = join.source(input.sourceKeys[p]);
      }
    }
  }

  @Benchmark
  public boolean tumbling(FeedInput in, WindowsBenchmark.Keys k, Windows w, Blackhole bh) {
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
  public boolean join(FeedInput in, WindowsBenchmark.Keys k, Join j, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      List<JoinRow<String, Long>> rows = j.join.pollResults();
      bh.consume(rows);
      j.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    int source = in.source[i];
    String key = k.keyStrings[k.keyIndex[i]];
    return (source & 1) == 0
        ? j.join.addLeft(j.handles[source], t, key, k.values[i])
        : j.join.addRight(j.handles[source], t, key, k.values[i]);
  }
}
