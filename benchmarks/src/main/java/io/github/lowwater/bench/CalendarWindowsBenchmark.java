package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.ResultVisitor;
import io.github.lowwater.window.TumblingWindows;
import java.time.Duration;
import java.time.ZoneId;
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
 * Issue 36's target: calendar days in a zone (Europe/Berlin) against fixed one-day windows, per
 * {@code add}, on {@link Feed}'s events with their times stretched so that a lap of the feed covers
 * {@code stretch / 1440} days: {@code 1440}, a day per lap (the disorder and the lateness stretched
 * with it, so that a day window sees what a one-minute window sees on the plain feed), and {@code
 * 86400}, 60 days per lap (a window every 17,476 events, each day's turn met again by the disorder:
 * the skeptic's case for the period cache). Both kinds get the same events, keys and lateness; the
 * days of the second workload cross both of Berlin's clock changes. Ratios of medians in one run:
 * docs/benchmarks.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CalendarWindowsBenchmark {

  /** The two kinds, fed the same stretched times. */
  @State(Scope.Thread)
  public static class Shapes {
    @Param({"1440", "86400"})
    long stretch;

    CachedClock clock;
    TumblingWindows<String, Long, Long> fixed;
    TumblingWindows<String, Long, Long> calendar;
    io.github.lowwater.WatermarkTracker.Source[] fixedHandles;
    io.github.lowwater.WatermarkTracker.Source[] calendarHandles;
    ResultVisitor<String, Long> visitor;
    long[] times;

    @Setup(Level.Trial)
    public void setUp(FeedInput input, Blackhole bh) {
      clock = new CachedClock(Clock.system());
      Duration lateness = Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS * stretch);
      fixed =
          TumblingWindows.builder(Duration.ofDays(1), Aggregators.sumLong())
              .allowedLateness(lateness)
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      calendar =
          TumblingWindows.builder(
                  CalendarPeriod.days(ZoneId.of("Europe/Berlin")), Aggregators.sumLong())
              .allowedLateness(lateness)
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      fixedHandles = new io.github.lowwater.WatermarkTracker.Source[input.sources];
      calendarHandles = new io.github.lowwater.WatermarkTracker.Source[input.sources];
      for (int p = 0; p < input.sources; p++) {
        fixedHandles[p] = fixed.source(input.sourceKeys[p]);
        calendarHandles[p] = calendar.source(input.sourceKeys[p]);
      }
      times = new long[input.eventTimeMillis.length];
      for (int i = 0; i < times.length; i++) {
        // 2026-01-01T00:00Z onwards: the second workload's 60-day laps cross March and October.
        times[i] = 1_767_225_600_000L + (input.eventTimeMillis[i] - Feed.BASE_MILLIS) * stretch;
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
  }

  private static boolean add(
      TumblingWindows<String, Long, Long> windows,
      io.github.lowwater.WatermarkTracker.Source[] handles,
      FeedInput in,
      WindowsBenchmark.Keys k,
      Shapes s) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      windows.drainFinalized(s.visitor);
      s.clock.update();
    }
    long t = s.times[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS * s.stretch;
    return windows.add(handles[in.source[i]], t, k.keyStrings[k.keyIndex[i]], k.values[i]);
  }

  @Benchmark
  public boolean fixedDays(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return add(s.fixed, s.fixedHandles, in, k, s);
  }

  @Benchmark
  public boolean calendarDays(FeedInput in, WindowsBenchmark.Keys k, Shapes s) {
    return add(s.calendar, s.calendarHandles, in, k, s);
  }
}
