package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.align.AlignedEventHandler;
import io.github.lowwater.align.EventAligner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Ordered release (issue 5): the cost of one event pushed into a buffer that releases events in
 * (event time, source, offset) order once the watermark has passed them, {@link EventAligner}
 * against a naive sorted list, on the same {@link Feed} (a skewed catch-up over 6, 1,024 or 16,384
 * partitions). One operation = one event pushed; at the first record of each poll (at most {@link
 * Feed#MAX_POLL_RECORDS} records) the loop first releases everything below the watermark, so one
 * release per poll is part of the cost, spread over its events.
 *
 * <ul>
 *   <li>{@code alignerPushRelease}: {@link EventAligner#push(Object, long, long, Object)} per event
 *       (source key, the partition's running offset, event time, the feed's {@code Long} value as
 *       payload) and {@link EventAligner#release} once per poll, into a handler that sums the
 *       released offsets into a field. Per-source buffers merged through a heap of their heads.
 *   <li>{@code naiveSortedList}: the simplest honest alternative. The watermark comes from the same
 *       {@link WatermarkTracker} (same lateness, idle timeout and cached clock), observed with the
 *       source key as {@code EventAligner} does, so only the buffer differs: events behind the
 *       watermark are counted as late, the others are appended to one {@code ArrayList}; at each
 *       release the list is sorted by (event time, source, offset) ({@code ArrayList.sort}, a
 *       TimSort that finds the already sorted prefix as one run and merges the poll's appended
 *       run(s) into it) and the prefix below the watermark is handed over and cut off. Append +
 *       sort at release is the cheaper of the two naive designs: a binary-search insert shifts half
 *       the list on every event.
 * </ul>
 *
 * <p>Both allocate one small object per buffered event, and both buffer the same events: on this
 * catch-up feed the watermark is held by the slowest partition, so the buffer holds the events of
 * every partition that ran ahead of it, up to a large part of a lap (2^20 events) at 16,384
 * partitions, where most partitions are drained in one chunk. The mean number of events buffered at
 * a release is printed at the end of each trial ({@code mean buffered at release}), in the console
 * output of the run.
 *
 * <p>Run (from the repository root; this class alone, as in {@code docs/benchmarks.md}):
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar AlignerBenchmark \
 *     -f 1 -wi 3 -w 2s -i 4 -r 2s -prof gc -rf json -rff benchmarks/results/aligner.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class AlignerBenchmark {

  /** The values of the feed, as the payloads pushed. */
  @State(Scope.Thread)
  public static class Payloads {
    Long[] values;

    @Setup(Level.Trial)
    public void setUp() {
      values = Feed.values();
    }
  }

  /** Receives released events: sums their offsets, so that the hand-over is not dead code. */
  static final class Sink implements AlignedEventHandler<TopicPartitionKey, Long> {
    long offsets;
    long released;

    @Override
    public void onEvent(TopicPartitionKey source, long offset, long eventTimeMillis, Long payload) {
      offsets += offset;
      released++;
    }
  }

  /** Counts the buffered events at each release, for the printed mean. */
  static final class BufferStats {
    long releases;
    long bufferedSum;

    void record(int buffered) {
      releases++;
      bufferedSum += buffered;
    }

    void print(String contender, int sources) {
      System.out.printf(
          "%n%s, %d sources: mean buffered at release %.0f events over %d releases%n",
          contender, sources, releases == 0 ? 0.0 : (double) bufferedSum / releases, releases);
    }
  }

  /** {@link EventAligner} with a clock read once per poll. */
  @State(Scope.Thread)
  public static class Aligner {
    CachedClock clock;
    EventAligner<TopicPartitionKey, Long> aligner;
    long[] nextOffset;
    final Sink sink = new Sink();
    final BufferStats stats = new BufferStats();
    int sources;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      aligner =
          EventAligner.<TopicPartitionKey, Long>builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .sourceOrder(TopicPartitionKey.ORDER)
              .build();
      nextOffset = new long[input.sources];
      sources = input.sources;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      stats.print("alignerPushRelease", sources);
    }
  }

  /** One buffered event of the naive buffer. */
  static final class Pending {
    final long eventTimeMillis;
    final TopicPartitionKey source;
    final long offset;
    final Long payload;

    Pending(long eventTimeMillis, TopicPartitionKey source, long offset, Long payload) {
      this.eventTimeMillis = eventTimeMillis;
      this.source = source;
      this.offset = offset;
      this.payload = payload;
    }
  }

  /** The naive buffer: the same watermark, one list sorted at each release. */
  @State(Scope.Thread)
  public static class Naive {
    static final Comparator<Pending> ORDER =
        Comparator.<Pending>comparingLong(p -> p.eventTimeMillis)
            .thenComparing(p -> p.source, TopicPartitionKey.ORDER)
            .thenComparingLong(p -> p.offset);

    CachedClock clock;
    WatermarkTracker tracker;
    ArrayList<Pending> buffer;
    long[] nextOffset;
    long late;
    final Sink sink = new Sink();
    final BufferStats stats = new BufferStats();
    int sources;

    @Setup(Level.Trial)
    public void setUp(FeedInput input) {
      clock = new CachedClock(Clock.system());
      tracker =
          WatermarkTracker.builder()
              .allowedLateness(Duration.ofMillis(Feed.ALLOWED_LATENESS_MILLIS))
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      buffer = new ArrayList<>();
      nextOffset = new long[input.sources];
      sources = input.sources;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      stats.print("naiveSortedList", sources);
    }

    boolean push(TopicPartitionKey source, long offset, long eventTimeMillis, Long payload) {
      boolean buffered = eventTimeMillis >= tracker.watermark();
      if (buffered) {
        buffer.add(new Pending(eventTimeMillis, source, offset, payload));
      } else {
        late++;
      }
      tracker.observe(source, eventTimeMillis);
      return buffered;
    }

    int release(Sink handler) {
      long watermark = tracker.watermark();
      buffer.sort(ORDER);
      int n = 0;
      int size = buffer.size();
      while (n < size && buffer.get(n).eventTimeMillis < watermark) {
        Pending p = buffer.get(n);
        handler.onEvent(p.source, p.offset, p.eventTimeMillis, p.payload);
        n++;
      }
      buffer.subList(0, n).clear();
      return n;
    }
  }

  @Benchmark
  public boolean alignerPushRelease(FeedInput in, Aligner s, Payloads payloads, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      bh.consume(s.aligner.release(s.sink));
      s.stats.record(s.aligner.buffered());
      s.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    int p = in.source[i];
    return s.aligner.push(in.sourceKeys[p], s.nextOffset[p]++, t, payloads.values[i]);
  }

  @Benchmark
  public boolean naiveSortedList(FeedInput in, Naive s, Payloads payloads, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      bh.consume(s.release(s.sink));
      s.stats.record(s.buffer.size());
      s.clock.update();
    }
    long t = in.eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * Feed.SPAN_MILLIS;
    int p = in.source[i];
    return s.push(in.sourceKeys[p], s.nextOffset[p]++, t, payloads.values[i]);
  }
}
