package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of recording disorder ({@link DisorderRecorder}) per event, on the same {@link Feed} as
 * {@link WatermarkBenchmark}, in the same run as its baseline, so that a ratio can be quoted. One
 * operation = one event.
 *
 * <ul>
 *   <li>{@code trackerOnly}: the baseline, {@link WatermarkBenchmark}'s {@code lowwaterHandle}:
 *       {@link WatermarkTracker#observe(WatermarkTracker.Source, long)} through a handle, the clock
 *       read once per poll ({@link CachedClock}). Recording off means no recorder: this.
 *   <li>{@code trackerAndRecorder}: the same, plus {@link DisorderRecorder#record(SourceDisorder,
 *       long, long)} through a handle with the poll's clock reading. The difference to {@code
 *       trackerOnly} is the cost of recording on.
 *   <li>{@code recorderOnly}: the recording alone (lag and gap histograms, per-source frontier).
 * </ul>
 *
 * <p>Memory: a recorder holds three histograms per source (about 95 KB with the default 7-day
 * maxima), so the 16,384-source feed is left out: run with {@code -p sources=6,1024}.
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar DisorderRecorderBenchmark \
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
public class DisorderRecorderBenchmark {

  /** A tracker and a recorder fed through handles, with a clock read once per poll. */
  @State(Scope.Thread)
  public static class Recorded {
    CachedClock clock;
    WatermarkTracker tracker;
    WatermarkTracker.Source[] handles;
    DisorderRecorder recorder;
    SourceDisorder[] recorded;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      tracker =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      recorder = DisorderRecorder.builder().clock(clock).build();
      handles = new WatermarkTracker.Source[input.sources];
      recorded = new SourceDisorder[input.sources];
      for (int p = 0; p < input.sources; p++) {
        handles[p] = tracker.source(input.sourceKeys[p]);
        recorded[p] = recorder.source(input.sourceKeys[p]);
      }
    }
  }

  /** Takes the next event of the feed, updating the clock at a poll's first record. */
  private static long next(FeedInput in, Recorded s) {
    long c = in.counter++;
    if (in.pollStart[(int) c & Feed.MASK]) {
      s.clock.update();
    }
    return c;
  }

  /** The event time of event {@code c}: the feed's, moved on by one span per lap. */
  private static long eventTime(FeedInput in, long c) {
    return in.eventTimeMillis[(int) c & Feed.MASK] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
  }

  @Benchmark
  public long trackerOnly(FeedInput in, Recorded s) {
    long c = next(in, s);
    s.tracker.observe(s.handles[in.source[(int) c & Feed.MASK]], eventTime(in, c));
    return s.tracker.watermark();
  }

  @Benchmark
  public long trackerAndRecorder(FeedInput in, Recorded s) {
    long c = next(in, s);
    long t = eventTime(in, c);
    int p = in.source[(int) c & Feed.MASK];
    s.tracker.observe(s.handles[p], t);
    s.recorder.record(s.recorded[p], t, s.clock.monotonicNanos());
    return s.tracker.watermark();
  }

  @Benchmark
  public long recorderOnly(FeedInput in, Recorded s) {
    long c = next(in, s);
    s.recorder.record(
        s.recorded[in.source[(int) c & Feed.MASK]], eventTime(in, c), s.clock.monotonicNanos());
    return c;
  }
}
