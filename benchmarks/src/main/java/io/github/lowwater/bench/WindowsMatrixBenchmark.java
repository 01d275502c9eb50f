package io.github.lowwater.bench;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.ResultVisitor;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * Keyed tumbling windows against the two things a user would otherwise write, on one input: the
 * sparse/dense &times; 1,000/100,000-keys matrix. One operation is one event.
 *
 * <h2>The workload</h2>
 *
 * <p>The 6-partition catch-up {@link Feed} (skewed partitions, drained in polls of at most 500
 * records made of chunks of one partition, one event in eight moved back), on two time axes
 * ({@code @Param density}):
 *
 * <ul>
 *   <li>{@code sparse}: {@link Feed#MATRIX_SPARSE_SPAN_MILLIS} (4 h 51 min) of event time per lap
 *       of 2^20 events, about 100 ms between two records of one partition; disorder up to 14.6 s.
 *   <li>{@code dense}: event time 64 times slower, {@link Feed#MATRIX_DENSE_SPAN_MILLIS} (273 s)
 *       per lap, about 1.6 ms between two records of one partition; disorder up to 228 ms.
 * </ul>
 *
 * <p>Both have the same layout (the same partition, poll boundaries, key and value for each event);
 * the disorder bound is the same fraction of the lap (1/1,200, about 146 records of a partition) as
 * in the one-minute feed of the other benchmarks. Keys are uniform over {@code @Param keys} (1,000
 * or 100,000 strings, created once). Values are {@code Long} 1 to 100 from the JDK cache. Windows
 * are 5 minutes, allowed lateness 2 minutes.
 *
 * <p>Measured by {@link MatrixDensity} over laps 1 to 7 (whole windows only): events per (window,
 * key) is a window's events divided by the number of keys; per open (window, key) divides by the
 * entries a window actually holds (distinct keys); open windows are counted at the start of each
 * poll, with the watermark of the minimum over the partitions ({@code windowsAdd}, {@code
 * byHandMap}) and with that of the global max ({@code byHandGlobalMax}), which also drops the share
 * of events shown as late:
 *
 * <pre>
 * density    keys  events/window  per (window,key)  per open (window,key)  open windows   global max:
 *                                                                          mean, max      open, late
 * sparse    1,000         18,000          18.0              18.0           27.8, 48       1.3, 88.2%
 * sparse  100,000         18,000           0.180             1.09          27.8, 48       1.3, 88.2%
 * dense     1,000      1,152,002       1,150             1,150              1.8, 3        1.6,  2.2%
 * dense   100,000      1,152,002          11.5              11.5            1.8, 3        1.6,  2.2%
 * </pre>
 *
 * <p>In {@code sparse} the skewed drain lets the slowest partition lag the fastest by hours of
 * event time, so the minimum over the partitions keeps about 28 windows open (about 460,000 entries
 * at 100,000 keys), while the global max closes them at once and drops most records of the lagging
 * partitions.
 *
 * <h2>The contenders</h2>
 *
 * <ul>
 *   <li>{@code windowsAdd}: {@link TumblingWindows#add(WatermarkTracker.Source, long, Object,
 *       Object)} with the handles of {@link TumblingWindows#source(Object)} kept in an array
 *       indexed by partition, {@link Aggregators#sumLong()}, a {@link CachedClock} over the system
 *       clock updated at the first record of each poll, idle timeout 120 s (never reached). At the
 *       first record of each poll {@link TumblingWindows#pollFinalized()} is drained: every
 *       result's key and value go to the {@link Blackhole}.
 *   <li>{@code byHandMap}: what a user writes without the library. A {@code TreeMap<Long,
 *       HashMap<String, long[]>>} of open windows by start, looked up only when an event is not in
 *       the window of the previous one (as {@code TumblingWindows} does; without it the boxed start
 *       and the tree lookup per event cost more than the rest), a {@code long} max event time per
 *       partition, and at the first record of each poll the watermark {@code min over partitions of
 *       (max - lateness)} and the drain: every window whose {@code end <= watermark} is iterated
 *       (key and sum to the {@link Blackhole}) and removed. An event whose window's end is {@code
 *       <= watermark} is late: counted and dropped. This has the library's semantics (a window
 *       closes when the slowest partition is past its end plus the lateness), with the watermark
 *       computed once per poll instead of once per event, and no idleness.
 *   <li>{@code byHandGlobalMax}: the same map, drained when {@code max - lateness} passes a
 *       window's end, where {@code max} is the largest event time seen on any partition: the
 *       shortcut of a hand-written loop that keeps one max. Not the same results: a record of a
 *       partition that lags by more than the lateness is dropped as late, 88% of the records in
 *       {@code sparse} and 2.2% in {@code dense} (above), which is most of why it is cheap in
 *       {@code sparse}. For reference only: the ratio targets use {@code byHandMap}.
 *   <li>{@code keyedSumFloor}: the floor: one {@code HashMap<String, long[]>} sum over the same
 *       keys and values, no source, no time, no window.
 * </ul>
 *
 * <p>{@code windowsAddDrain} is {@code windowsAdd} with the allocation-free {@code
 * drainFinalized(visitor)} instead of {@code pollFinalized()}.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package
 * flock /tmp/lowwater-build.lock java -jar benchmarks/target/benchmarks.jar WindowsMatrixBenchmark \
 *     -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc -rf json -rff benchmarks/results/matrix.json
 * </pre>
 *
 * <p>(The full run of {@code docs/benchmarks.md} includes this class.)
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class WindowsMatrixBenchmark {

  /** The number of partitions of the matrix. */
  static final int SOURCES = 6;

  static final Duration WINDOW_SIZE = Duration.ofMinutes(5);
  static final Duration ALLOWED_LATENESS = Duration.ofMinutes(2);
  static final long WINDOW_SIZE_MILLIS = WINDOW_SIZE.toMillis();
  static final long ALLOWED_LATENESS_MILLIS = ALLOWED_LATENESS.toMillis();

  /** The feed of one cell of the matrix, and the cursor that walks it. */
  @State(Scope.Thread)
  public static class Input {
    @Param({"1000", "100000"})
    int keys;

    @Param({"sparse", "dense"})
    String density;

    TopicPartitionKey[] sourceKeys;
    int[] source;
    long[] eventTimeMillis;
    boolean[] pollStart;
    long spanMillis;

    /** The key of each event (one of {@code keys} strings created once). */
    String[] key;

    Long[] values;

    /** Events consumed so far; index {@code c & MASK}, lap {@code c >>> LOG2_LENGTH}. */
    long counter;

    @Setup(Level.Trial)
    public void setUp() {
      Feed feed = feed(density);
      sourceKeys = feed.sourceKeys;
      source = feed.source;
      eventTimeMillis = feed.eventTimeMillis;
      pollStart = feed.pollStart;
      spanMillis = feed.spanMillis;
      String[] strings = Feed.keyStrings(keys);
      int[] index = Feed.keyIndexes(keys);
      key = new String[Feed.LENGTH];
      for (int i = 0; i < Feed.LENGTH; i++) {
        key[i] = strings[index[i]];
      }
      values = Feed.values();
    }

    /** The event time of the event at index {@code i} of counter {@code c}, lap shift included. */
    long eventTimeMillis(long c, int i) {
      return eventTimeMillis[i] + (c >>> Feed.LOG2_LENGTH) * spanMillis;
    }
  }

  /** The feed of a {@code density}: the disorder bound is 1/1,200 of the lap in both. */
  static Feed feed(String density) {
    long span =
        switch (density) {
          case "sparse" -> Feed.MATRIX_SPARSE_SPAN_MILLIS;
          case "dense" -> Feed.MATRIX_DENSE_SPAN_MILLIS;
          default ->
              throw new IllegalArgumentException("density must be sparse or dense: " + density);
        };
    return new Feed(SOURCES, span, span * Feed.MAX_DISORDER_MILLIS / Feed.SPAN_MILLIS);
  }

  /** Lowwater's windows, fed through source handles, with a clock read once per poll. */
  @State(Scope.Thread)
  public static class Windows {
    CachedClock clock;
    TumblingWindows<String, Long, Long> windows;
    WatermarkTracker.Source[] handles;

    @Setup(Level.Trial)
    public void setUp(Input input) {
      clock = new CachedClock(Clock.system());
      windows =
          TumblingWindows.builder(WINDOW_SIZE, Aggregators.sumLong())
              .allowedLateness(ALLOWED_LATENESS)
              .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
              .clock(clock)
              .build();
      handles = new WatermarkTracker.Source[SOURCES];
      for (int p = 0; p < SOURCES; p++) {
        handles[p] = windows.source(input.sourceKeys[p]);
      }
    }

    /** The visitor of {@code windowsAddDrain}, made once. */
    final BlackholeVisitor visitor = new BlackholeVisitor();

    /** The per-poll drain of {@code windowsAddDrain}: every result to the blackhole, no boxing. */
    void drain(Blackhole bh) {
      visitor.bh = bh;
      windows.drainFinalized(visitor);
    }

    /** The per-poll drain of {@code windowsAdd}: every finalized result to the blackhole. */
    void drainPollFinalized(Blackhole bh) {
      List<WindowResult<String, Long>> finalized = windows.pollFinalized();
      for (int r = 0, n = finalized.size(); r < n; r++) {
        WindowResult<String, Long> result = finalized.get(r);
        bh.consume(result.key());
        bh.consume(result.value());
      }
    }
  }

  /**
   * The per-window map a user writes by hand: open windows by start, a max event time per slot, the
   * watermark recomputed and the closed windows drained at the first record of each poll.
   */
  @State(Scope.Thread)
  public static class ByHand {
    final TreeMap<Long, HashMap<String, long[]>> open = new TreeMap<>();

    /** The max event time of each slot: one slot per partition, or one for all of them. */
    long[] max;

    int[] slotOfSource;
    long watermark = Long.MIN_VALUE;
    long late;

    /** The window of the previous accepted event, open: consecutive events mostly share one. */
    HashMap<String, long[]> lastWindow;

    long lastStart;

    /** One slot per partition: the watermark is the minimum over the partitions. */
    void perSource() {
      max = new long[SOURCES];
      slotOfSource = new int[SOURCES];
      for (int p = 0; p < SOURCES; p++) {
        slotOfSource[p] = p;
      }
      java.util.Arrays.fill(max, Long.MIN_VALUE);
    }

    /** One slot for every partition: the watermark follows the largest event time seen. */
    void global() {
      max = new long[] {Long.MIN_VALUE};
      slotOfSource = new int[SOURCES];
    }

    boolean add(int source, long t, String key, Long value) {
      int slot = slotOfSource[source];
      if (t > max[slot]) {
        max[slot] = t;
      }
      HashMap<String, long[]> window = lastWindow;
      if (window == null || t < lastStart || t - lastStart >= WINDOW_SIZE_MILLIS) {
        long start = t - Math.floorMod(t, WINDOW_SIZE_MILLIS);
        if (start + WINDOW_SIZE_MILLIS <= watermark) {
          late++;
          return false;
        }
        window = open.get(start);
        if (window == null) {
          window = new HashMap<>();
          open.put(start, window);
        }
        lastStart = start;
        lastWindow = window;
      }
      long[] cell = window.get(key);
      if (cell == null) {
        cell = new long[1];
        window.put(key, cell);
      }
      cell[0] += value;
      return true;
    }

    /** The watermark from the slots, then every window it closed to the blackhole, then removed. */
    void drain(Blackhole bh) {
      long min = Long.MAX_VALUE;
      for (long m : max) {
        min = Math.min(min, m);
      }
      if (min == Long.MIN_VALUE) {
        return; // a slot has no event yet
      }
      watermark = Math.max(watermark, min - ALLOWED_LATENESS_MILLIS);
      Iterator<Map.Entry<Long, HashMap<String, long[]>>> windows = open.entrySet().iterator();
      while (windows.hasNext()) {
        Map.Entry<Long, HashMap<String, long[]>> w = windows.next();
        if (w.getKey() + WINDOW_SIZE_MILLIS > watermark) {
          break; // ascending starts: the rest are open
        }
        for (Map.Entry<String, long[]> e : w.getValue().entrySet()) {
          bh.consume(e.getKey());
          bh.consume(e.getValue()[0]);
        }
        windows.remove();
        lastWindow = null; // it may be the one just removed
      }
    }
  }

  /** {@link ByHand} with the watermark of the minimum over the partitions. */
  @State(Scope.Thread)
  public static class ByHandPerSource extends ByHand {
    @Setup(Level.Trial)
    public void setUp() {
      perSource();
    }
  }

  /** {@link ByHand} with the watermark of the largest event time seen on any partition. */
  @State(Scope.Thread)
  public static class ByHandGlobal extends ByHand {
    @Setup(Level.Trial)
    public void setUp() {
      global();
    }
  }

  /** Sends each result's key and primitive value to a blackhole. */
  static final class BlackholeVisitor implements ResultVisitor<String, Long> {
    Blackhole bh;

    @Override
    public void visit(long start, long end, String key, Long value) {
      visitLong(start, end, key, value);
    }

    @Override
    public void visitLong(long start, long end, String key, long value) {
      bh.consume(key);
      bh.consume(value);
    }
  }

  /** The floor: a bare keyed sum. */
  @State(Scope.Thread)
  public static class Floor {
    final HashMap<String, long[]> sums = new HashMap<>();
  }

  @Benchmark
  public boolean windowsAdd(Input in, Windows w, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      w.drainPollFinalized(bh);
      w.clock.update();
    }
    return w.windows.add(
        w.handles[in.source[i]], in.eventTimeMillis(c, i), in.key[i], in.values[i]);
  }

  /**
   * {@code windowsAdd} with the allocation-free drain: {@code drainFinalized} hands every result to
   * a visitor kept in the state (the sum arrives as a primitive through {@code visitLong}).
   */
  @Benchmark
  public boolean windowsAddDrain(Input in, Windows w, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      w.drain(bh);
      w.clock.update();
    }
    return w.windows.add(
        w.handles[in.source[i]], in.eventTimeMillis(c, i), in.key[i], in.values[i]);
  }

  @Benchmark
  public boolean byHandMap(Input in, ByHandPerSource h, Blackhole bh) {
    return byHand(in, h, bh);
  }

  @Benchmark
  public boolean byHandGlobalMax(Input in, ByHandGlobal h, Blackhole bh) {
    return byHand(in, h, bh);
  }

  /** One event into a by-hand map, its drain first at the first record of a poll. */
  private static boolean byHand(Input in, ByHand h, Blackhole bh) {
    long c = in.counter++;
    int i = (int) c & Feed.MASK;
    if (in.pollStart[i]) {
      h.drain(bh);
    }
    return h.add(in.source[i], in.eventTimeMillis(c, i), in.key[i], in.values[i]);
  }

  @Benchmark
  public long keyedSumFloor(Input in, Floor f) {
    int i = (int) (in.counter++) & Feed.MASK;
    String key = in.key[i];
    long[] cell = f.sums.get(key);
    if (cell == null) {
      cell = new long[1];
      f.sums.put(key, cell);
    }
    cell[0] += in.values[i];
    return cell[0];
  }
}
