package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.EventTimeOptions;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.ResultVisitor;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.Timing;
import io.github.lowwater.window.TumblingWindows;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The cost of panes (issue 18) on one-minute windows, tumbling, or hopping every 5 s as in {@link
 * WindowKindsBenchmark} ({@code kind=hopping}: 12 windows per event, which panes keep whole, one
 * fold per window, where {@code none} folds once into a 5 s slice), or session windows of a 2 s gap
 * ({@code kind=sessions2s}: at 100,000 keys a session opens and closes nearly per event, the hard
 * case of {@link WindowKindsBenchmark}) or a 30 s one ({@code sessions30s}: every key's session
 * stays open), the feed of {@link WindowsBenchmark} drained once per poll through a visitor that
 * takes the pane ({@code visitLongPane}):
 *
 * <ul>
 *   <li>{@code panes=none}: no early results, no grace period (today's path, the baseline);
 *   <li>{@code early10s}: early results every 10 s of event time (five firings per window);
 *   <li>{@code early1s}: every second (59 firings per window: the skeptic's case, about one row per
 *       event at 100,000 keys);
 *   <li>{@code grace30s}: a grace period of 30 s (each window's state held 30 s longer, late
 *       updates for the feed's few late events);
 *   <li>{@code early10sGrace30s}: both.
 * </ul>
 *
 * <p>The primary result is time per event; the {@code rows} counter is reported as time per emitted
 * row of the same run, so rows per event is the ratio of the two. Run: {@code java -jar
 * benchmarks/target/benchmarks.jar PanesBenchmark -p sources=1024 -prof gc}; quote each variant as
 * a ratio of medians to {@code none} of the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class PanesBenchmark {

  static final Duration SIZE = Duration.ofMinutes(1);

  /** The rows the visitor was handed, per iteration. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Rows {
    public long rows;

    @Setup(Level.Iteration)
    public void reset() {
      rows = 0;
    }
  }

  /** The windows of one variant, fed through their own handles. */
  @State(Scope.Thread)
  public static class Variant {
    @Param({"none", "early10s", "early1s", "grace30s", "early10sGrace30s"})
    String panes;

    @Param({"tumbling", "hopping", "sessions2s", "sessions30s"})
    String kind;

    CachedClock clock;
    EventTimeWindows<String, Long, Long> windows;
    WatermarkTracker.Source[] handles;
    Counting visitor;

    @Setup(Level.Trial)
    public void setUp(FeedInput input, Blackhole bh) {
      clock = new CachedClock(Clock.system());
      windows =
          switch (kind) {
            case "hopping" ->
                configure(
                        HoppingWindows.builder(SIZE, Duration.ofSeconds(5), Aggregators.sumLong()))
                    .build();
            case "sessions2s" ->
                configure(SessionWindows.builder(Duration.ofSeconds(2), Aggregators.sumLong()))
                    .build();
            case "sessions30s" ->
                configure(SessionWindows.builder(Duration.ofSeconds(30), Aggregators.sumLong()))
                    .build();
            default -> configure(TumblingWindows.builder(SIZE, Aggregators.sumLong())).build();
          };
      handles = new WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = windows.source(input.sourceKeys[p]);
      }
      visitor = new Counting(bh);
    }

    /** The variant's options on a builder of either kind. */
    private <B extends EventTimeOptions<B>> B configure(B b) {
      b.allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
          .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
          .clock(clock);
      if (panes.startsWith("early10s")) {
        b.earlyResults(Duration.ofSeconds(10));
      } else if (panes.equals("early1s")) {
        b.earlyResults(Duration.ofSeconds(1));
      }
      if (panes.endsWith("race30s")) {
        b.grace(Duration.ofSeconds(30));
      }
      return b;
    }
  }

  /** A sink that takes the pane: what a conditional upsert on the index receives. */
  static final class Counting implements ResultVisitor<String, Long> {
    final Blackhole bh;
    Rows rows;

    Counting(Blackhole bh) {
      this.bh = bh;
    }

    @Override
    public void visit(long start, long end, String key, Long value) {
      throw new AssertionError("a long aggregator's rows come through visitLongPane");
    }

    @Override
    public void visitLongPane(
        long start, long end, String key, long value, Timing timing, int index, boolean fin) {
      bh.consume(value);
      bh.consume(index);
      rows.rows++;
    }

    /** Sessions: a row that replaces another, which a sink deletes; not counted as a row. */
    @Override
    public void visitReplaced(long start, String key) {
      bh.consume(start);
    }
  }

  @Benchmark
  public boolean add(FeedInput in, WindowsBenchmark.Keys k, Variant v, Rows rows) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      v.visitor.rows = rows;
      v.windows.drainFinalized(v.visitor);
      v.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    return v.windows.add(v.handles[in.source[i]], t, k.keyStrings[k.keyIndex[i]], k.values[i]);
  }
}
