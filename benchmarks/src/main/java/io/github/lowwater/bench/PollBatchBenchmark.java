package io.github.lowwater.bench;

import io.github.lowwater.bench.WindowsMatrixBenchmark.ByHandPerSource;
import io.github.lowwater.bench.WindowsMatrixBenchmark.Floor;
import io.github.lowwater.bench.WindowsMatrixBenchmark.Input;
import io.github.lowwater.bench.WindowsMatrixBenchmark.Windows;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The batch path ({@code EventTimeWindows.addAll}) against the per-event path and the two
 * references of {@link WindowsMatrixBenchmark}, on its input (the sparse/dense &times;
 * 1,000/100,000-keys matrix of the 6-partition catch-up feed), one invocation being the next 500
 * events, so that a batch has the length of a poll. The score is per event ({@code
 * OperationsPerInvocation(500)}). Every contender does the same per-poll work at each poll start:
 * the drain (allocation-free, through a visitor, for the windows) and, for the windows, the clock
 * update.
 *
 * <ul>
 *   <li>{@code pollAdd}: {@code add(handle, t, key, value)} for each event.
 *   <li>{@code pollAddAll}: what a consumer loop does with a poll: each run of consecutive events
 *       of one partition (a chunk of the poll) copied into arrays (time, key, value), then one
 *       {@code addAll} per run. The copy is part of the cost.
 *   <li>{@code pollByHandMap}: {@link WindowsMatrixBenchmark}'s careful by-hand per-window map.
 *   <li>{@code pollFloor}: its floor, one {@code HashMap<String, long[]>} sum, no windows.
 * </ul>
 *
 * <p>Polls of the feed are 500 events but the last of a lap (76): an invocation that crosses it
 * holds two poll starts. Every contender walks the same counters, so the ratios are unaffected.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class PollBatchBenchmark {

  /** The events of one invocation: one poll's worth. */
  static final int BATCH = Feed.MAX_POLL_RECORDS;

  /** The arrays a consumer loop fills from a poll, reused. */
  @State(Scope.Thread)
  public static class Arrays {
    final long[] times = new long[BATCH];
    final String[] keys = new String[BATCH];
    final Long[] values = new Long[BATCH];
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int pollAdd(Input in, Windows w, Blackhole bh) {
    int accepted = 0;
    for (int n = 0; n < BATCH; n++) {
      long c = in.counter++;
      int i = (int) c & Feed.MASK;
      if (in.pollStart[i]) {
        w.drain(bh);
        w.clock.update();
      }
      if (w.windows.add(
          w.handles[in.source[i]], in.eventTimeMillis(c, i), in.key[i], in.values[i])) {
        accepted++;
      }
    }
    return accepted;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int pollAddAll(Input in, Windows w, Arrays a, Blackhole bh) {
    int accepted = 0;
    long c = in.counter;
    long end = c + BATCH;
    while (c < end) {
      int i = (int) c & Feed.MASK;
      if (in.pollStart[i]) {
        w.drain(bh);
        w.clock.update();
      }
      int source = in.source[i];
      int n = 0;
      do { // one run: consecutive events of one partition, within one poll
        a.times[n] = in.eventTimeMillis(c, i);
        a.keys[n] = in.key[i];
        a.values[n] = in.values[i];
        n++;
        c++;
        i = (int) c & Feed.MASK;
      } while (c < end && in.source[i] == source && !in.pollStart[i]);
      accepted += w.windows.addAll(w.handles[source], a.times, a.keys, a.values, 0, n);
    }
    in.counter = c;
    return accepted;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int pollByHandMap(Input in, ByHandPerSource h, Blackhole bh) {
    int accepted = 0;
    for (int n = 0; n < BATCH; n++) {
      long c = in.counter++;
      int i = (int) c & Feed.MASK;
      if (in.pollStart[i]) {
        h.drain(bh);
      }
      if (h.add(in.source[i], in.eventTimeMillis(c, i), in.key[i], in.values[i])) {
        accepted++;
      }
    }
    return accepted;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long pollFloor(Input in, Floor f) {
    long sum = 0;
    for (int n = 0; n < BATCH; n++) {
      int i = (int) (in.counter++) & Feed.MASK;
      String key = in.key[i];
      long[] cell = f.sums.get(key);
      if (cell == null) {
        cell = new long[1];
        f.sums.put(key, cell);
      }
      cell[0] += in.values[i];
      sum += cell[0];
    }
    return sum;
  }
}
