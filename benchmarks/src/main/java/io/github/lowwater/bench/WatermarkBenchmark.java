package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one event on the watermark path, Lowwater against the baselines, on the same {@link
 * Feed} (a skewed catch-up over 6, 1,024 or 16,384 partitions). One operation = one event; every
 * method returns the watermark after the event, so nothing is dead code.
 *
 * <ul>
 *   <li>{@code lowwaterSystemClock}: {@link WatermarkTracker#observe} with {@link Clock#system()},
 *       one {@code System.nanoTime()} per event.
 *   <li>{@code lowwaterCachedClock}: the same with a {@link CachedClock} that the loop updates at
 *       the first record of each poll (at most {@link Feed#MAX_POLL_RECORDS} records).
 *   <li>{@code lowwaterHandle}: the same as {@code lowwaterCachedClock}, but through {@link
 *       WatermarkTracker#observe(WatermarkTracker.Source, long)} with the handles of {@link
 *       WatermarkTracker#source(Object)}, taken once in {@code @Setup} into an array indexed by
 *       partition, as a Kafka consumer would keep them: no hash lookup per event.
 *   <li>{@code straightforwardScan}: {@link StraightforwardScan}, the O(sources) loop.
 *   <li>{@code flinkImmediate}: Flink's {@link WatermarkOutputMultiplexer}, one immediate output
 *       per split, each event emitting {@code eventTime - allowedLateness} directly (eager and
 *       exact, like Lowwater); the multiplexer rescans all splits whenever a split's watermark
 *       rises above the combined one.
 *   <li>{@code flinkPeriodic}: Flink's default: one {@link BoundedOutOfOrdernessWatermarks} per
 *       split writing to a deferred output; every 200 ms of wall-clock time (Flink's default {@code
 *       pipeline.auto-watermark-interval}, signalled by a timer thread through a volatile flag, as
 *       the mailbox does) every generator's {@code onPeriodicEmit} runs and the multiplexer
 *       combines. Cheap per event, but its watermark is up to 200 ms stale.
 * </ul>
 *
 * <p>{@code keyLookupOnly} is a diagnostic, not a contender: the {@code HashMap.get} of the source
 * key alone.
 *
 * <p>Lowwater and the scan look the source up by key ({@link TopicPartitionKey}) on every event, as
 * their APIs take a key; Flink's source operator holds each split's output, so its contenders index
 * an array.
 *
 * <p>Run (from the repository root; the whole suite, as in {@code docs/benchmarks.md}):
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc -rf json -rff benchmarks/results/full.json
 * </pre>
 *
 * <p>This class alone: append {@code WatermarkBenchmark} to the {@code java -jar} line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class WatermarkBenchmark {

  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);

  /** Lowwater with the system clock. */
  @State(Scope.Thread)
  public static class LowwaterSystem {
    WatermarkTracker tracker;

    @Setup(Level.Trial)
    public void setUp() {
      tracker =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(IDLE_TIMEOUT)
              .clock(Clock.system())
              .build();
    }
  }

  /** Lowwater with a clock read once per poll. */
  @State(Scope.Thread)
  public static class LowwaterCached {
    CachedClock clock;
    WatermarkTracker tracker;

    @Setup(Level.Trial)
    public void setUp() {
      clock = new CachedClock(Clock.system());
      tracker =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(IDLE_TIMEOUT)
              .clock(clock)
              .build();
    }
  }

  /** Lowwater with a clock read once per poll, fed through source handles. */
  @State(Scope.Thread)
  public static class LowwaterHandle {
    CachedClock clock;
    WatermarkTracker tracker;
    WatermarkTracker.Source[] handles;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      tracker =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(IDLE_TIMEOUT)
              .clock(clock)
              .build();
      handles = new WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = tracker.source(input.sourceKeys[p]);
      }
    }
  }

  /** The hand-written O(sources) scan. */
  @State(Scope.Thread)
  public static class Scan {
    StraightforwardScan scan;

    @Setup(Level.Trial)
    public void setUp() {
      scan = new StraightforwardScan(Feed.ALLOWED_LATENESS_MILLIS, IDLE_TIMEOUT.toNanos());
    }
  }

  /** Flink's multiplexer with one immediate output per split. */
  @State(Scope.Thread)
  public static class FlinkImmediate {
    LastWatermark combined;
    WatermarkOutput[] outputs;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      combined = new LastWatermark();
      WatermarkOutputMultiplexer multiplexer = new WatermarkOutputMultiplexer(combined);
      outputs = new WatermarkOutput[input.sources];
      for (int p = 0; p < input.sources; p++) {
        String id = input.sourceKeys[p].toString();
        multiplexer.registerNewOutput(id);
        outputs[p] = multiplexer.getImmediateOutput(id);
      }
    }
  }

  /** Flink's periodic path: per-split generators, deferred outputs, combined every 200 ms. */
  @State(Scope.Thread)
  public static class FlinkPeriodic {
    static final long AUTO_WATERMARK_INTERVAL_MILLIS = 200;

    LastWatermark combined;
    WatermarkOutputMultiplexer multiplexer;
    BoundedOutOfOrdernessWatermarks<Object>[] generators;
    WatermarkOutput[] outputs;
    volatile boolean emitDue;
    ScheduledExecutorService timer;
    long periodicEmits;

    @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array, filled with one type only
    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      combined = new LastWatermark();
      multiplexer = new WatermarkOutputMultiplexer(combined);
      generators = new BoundedOutOfOrdernessWatermarks[input.sources];
      outputs = new WatermarkOutput[input.sources];
      Duration outOfOrderness = Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS);
      for (int p = 0; p < input.sources; p++) {
        String id = input.sourceKeys[p].toString();
        multiplexer.registerNewOutput(id);
        outputs[p] = multiplexer.getDeferredOutput(id);
        generators[p] = new BoundedOutOfOrdernessWatermarks<>(outOfOrderness);
      }
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "auto-watermark-interval");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleAtFixedRate(
          () -> emitDue = true,
          AUTO_WATERMARK_INTERVAL_MILLIS,
          AUTO_WATERMARK_INTERVAL_MILLIS,
          TimeUnit.MILLISECONDS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      timer.shutdownNow();
    }

    void periodicEmit() {
      for (int p = 0; p < generators.length; p++) {
        generators[p].onPeriodicEmit(outputs[p]);
      }
      multiplexer.onPeriodicEmit();
      periodicEmits++;
    }
  }

  /**
   * Diagnostic, not a contender: only the {@code HashMap.get} of the source key that Lowwater and
   * the scan pay on every event, to size its share of their cost.
   */
  @State(Scope.Thread)
  public static class Lookup {
    HashMap<Object, Object> bySource;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      bySource = new HashMap<>();
      for (TopicPartitionKey key : input.sourceKeys) {
        bySource.put(key, new long[1]);
      }
    }
  }

  @Benchmark
  public Object keyLookupOnly(FeedInput in, Lookup s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    return s.bySource.get(in.sourceKeys[in.source[i]]);
  }

  @Benchmark
  public long lowwaterSystemClock(FeedInput in, LowwaterSystem s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    s.tracker.observe(in.sourceKeys[in.source[i]], t);
    return s.tracker.watermark();
  }

  @Benchmark
  public long lowwaterCachedClock(FeedInput in, LowwaterCached s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      s.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    s.tracker.observe(in.sourceKeys[in.source[i]], t);
    return s.tracker.watermark();
  }

  @Benchmark
  public long lowwaterHandle(FeedInput in, LowwaterHandle s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      s.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    s.tracker.observe(s.handles[in.source[i]], t);
    return s.tracker.watermark();
  }

  @Benchmark
  public long straightforwardScan(FeedInput in, Scan s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    return s.scan.observe(in.sourceKeys[in.source[i]], t);
  }

  @Benchmark
  public long flinkImmediate(FeedInput in, FlinkImmediate s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    s.outputs[in.source[i]].emitWatermark(new Watermark(t - Feed.ALLOWED_LATENESS_MILLIS));
    return s.combined.watermark;
  }

  @Benchmark
  public long flinkPeriodic(FeedInput in, FlinkPeriodic s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    int p = in.source[i];
    s.generators[p].onEvent(null, t, s.outputs[p]);
    if (s.emitDue) {
      s.emitDue = false;
      s.periodicEmit();
    }
    return s.combined.watermark;
  }
}
