package io.github.lowwater.bench;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.align.EventAligner;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.DictionaryProbe;
import io.github.lowwater.window.TumblingWindows;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;

/**
 * Measures retained heap per source and per open (window, key), without JOL: the used heap ({@code
 * Runtime.totalMemory() - freeMemory()}) after repeated {@link System#gc()} calls, before and after
 * building {@code n} instances of the state, divided by {@code n}. The keys (source keys, key
 * strings) are created before the first reading, so they are not counted: they belong to the
 * caller. Each figure is the median of {@link #ROUNDS} rounds. Run on a quiet JVM with the serial
 * collector so that the readings are exact:
 *
 * <pre>
 * java -XX:+UseSerialGC -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.MemoryFootprint
 * </pre>
 *
 * <p>The matrix rows feed the feed of {@link WindowsMatrixBenchmark} (sparse or dense, 1,000 or
 * 100,000 keys) into the windows of its {@code windowsAdd} for 1.5 laps ({@link #MATRIX_EVENTS}),
 * drop the finalized results, and divide the retained heap by the open (window, key) entries left
 * ({@code stats().openEntries()}): the whole state (the open windows' maps, the window objects, the
 * tracker) per entry, in the steady state of that benchmark. The per-source row registers {@code n}
 * sources through {@code source(key)} and adds one event of each (into one shared entry). The
 * per-key row of the key dictionary builds the windows' package-private {@code KeyDictionary}
 * alone, through {@link DictionaryProbe}; the windows' rows include it.
 *
 * <p>The figures include each structure's share of its growable arrays (hash tables, the heap
 * array), which depends on where {@code n} falls between two doublings, so several sizes are
 * printed.
 */
public final class MemoryFootprint {

  static final int ROUNDS = 5;

  private MemoryFootprint() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println(
        "Retained heap, median of "
            + ROUNDS
            + " rounds ("
            + Runtime.version()
            + ", "
            + System.getProperty("java.vm.name")
            + ", "
            + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
            + ")");
    System.out.println();
    System.out.println("| Structure | n | bytes per unit |");
    System.out.println("| --- | ---: | ---: |");
    for (int n : new int[] {1_024, 16_384, 100_000}) {
      TopicPartitionKey[] keys = sourceKeys(n);
      report(
          "Lowwater `WatermarkTracker`, per observed source",
          n,
          i -> {
            WatermarkTracker tracker = WatermarkTracker.builder().clock(new ManualClock()).build();
            for (int k = 0; k < i; k++) {
              tracker.observe(keys[k], Feed.BASE_MILLIS + k);
            }
            return tracker;
          });
    }
    for (int n : new int[] {1_024, 16_384, 100_000}) {
      TopicPartitionKey[] keys = sourceKeys(n);
      report(
          "Straightforward scan (HashMap + list), per source",
          n,
          i -> {
            StraightforwardScan scan = new StraightforwardScan(1_000, Long.MAX_VALUE);
            for (int k = 0; k < i; k++) {
              scan.observe(keys[k], Feed.BASE_MILLIS + k);
            }
            return scan;
          });
    }
    for (int n : new int[] {1_024, 16_384}) {
      String[] ids = new String[n];
      for (int k = 0; k < n; k++) {
        ids[k] = "orders-" + k;
      }
      report(
          "Flink `WatermarkOutputMultiplexer`, per registered split",
          n,
          i -> {
            WatermarkOutputMultiplexer multiplexer =
                new WatermarkOutputMultiplexer(new LastWatermark());
            for (int k = 0; k < i; k++) {
              multiplexer.registerNewOutput(ids[k]);
            }
            return multiplexer;
          });
    }
    TopicPartitionKey source = new TopicPartitionKey("orders", 0);
    Long one = 1L;
    for (int n : new int[] {1_000, 100_000}) {
      String[] keys = Feed.keyStrings(n);
      report(
          "Lowwater `TumblingWindows`, per open (window, key), 1 window of n keys",
          n,
          i -> {
            TumblingWindows<String, Long, Long> windows = windows();
            for (int k = 0; k < i; k++) {
              windows.add(source, Feed.BASE_MILLIS, keys[k], one);
            }
            return windows;
          });
    }
    {
      int perWindow = 10_000;
      String[] keys = Feed.keyStrings(perWindow);
      report(
          "Lowwater `TumblingWindows`, per open (window, key), 10 windows of 10,000 keys",
          10 * perWindow,
          i -> {
            TumblingWindows<String, Long, Long> windows = windows();
            for (int w = 0; w < 10; w++) {
              long t = Feed.BASE_MILLIS + w * 60_000L;
              for (int k = 0; k < perWindow; k++) {
                windows.add(source, t, keys[k], one);
              }
            }
            return windows;
          });
    }
    Long[] values = Feed.values();
    for (String density : new String[] {"sparse", "dense"}) {
      Feed feed = WindowsMatrixBenchmark.feed(density);
      for (int keyCount : new int[] {1_000, 100_000}) {
        String[] key = matrixKeys(keyCount);
        reportPerUnit(
            "Lowwater `TumblingWindows`, per open (window, key), matrix feed "
                + density
                + ", "
                + String.format("%,d", keyCount)
                + " keys, after 1.5 laps",
            () -> matrixWindows(feed, key, values),
            state -> ((TumblingWindows<?, ?, ?>) state).stats().openEntries(),
            state -> ((TumblingWindows<?, ?, ?>) state).stats().openWindows() + " open windows");
      }
    }
    for (int n : new int[] {1_000, 100_000}) {
      String[] keys = Feed.keyStrings(n);
      report(
          "Lowwater key dictionary of `TumblingWindows`, per key",
          n,
          i -> DictionaryProbe.dictionaryOf(keys, i));
    }
    for (int n : new int[] {6, 1_024, 16_384}) {
      TopicPartitionKey[] keys = sourceKeys(n);
      report(
          "Lowwater `TumblingWindows`, per source (`source(key)`, one event each)",
          n,
          i -> {
            TumblingWindows<String, Long, Long> windows = windows();
            for (int k = 0; k < i; k++) {
              windows.add(windows.source(keys[k]), Feed.BASE_MILLIS, "k", one);
            }
            return windows;
          });
    }
    TopicPartitionKey[] alignerSources = sourceKeys(16);
    for (int n : new int[] {10_000, 100_000}) {
      report(
          "Lowwater `EventAligner`, per buffered event, 16 sources",
          n,
          i -> {
            EventAligner<TopicPartitionKey, Long> aligner =
                EventAligner.<TopicPartitionKey, Long>builder()
                    .allowedLateness(Duration.ofHours(1)) // nothing is released while measuring
                    .idleTimeout(Duration.ofHours(1))
                    .clock(new ManualClock())
                    .sourceOrder(TopicPartitionKey.ORDER)
                    .build();
            for (int k = 0; k < i; k++) {
              aligner.push(alignerSources[k & 15], k >>> 4, Feed.BASE_MILLIS + k, one);
            }
            return aligner;
          });
    }
    for (int n : new int[] {10_000, 100_000}) {
      report(
          "Naive sorted `ArrayList` buffer, per buffered event",
          n,
          i -> {
            java.util.ArrayList<AlignerBenchmark.Pending> list = new java.util.ArrayList<>();
            for (int k = 0; k < i; k++) {
              list.add(
                  new AlignerBenchmark.Pending(
                      Feed.BASE_MILLIS + k, alignerSources[k & 15], k >>> 4, one));
            }
            return list;
          });
    }
    for (int n : new int[] {1_000, 100_000}) {
      String[] keys = Feed.keyStrings(n);
      report(
          "Floor `HashMap<String, long[]>`, per key",
          n,
          i -> {
            HashMap<String, long[]> sums = new HashMap<>();
            for (int k = 0; k < i; k++) {
              sums.put(keys[k], new long[] {1});
            }
            return sums;
          });
    }
  }

  /**
   * Events of the matrix feed fed before measuring: one lap and a half. Not a whole number of laps:
   * at the end of a lap every partition has reached the lap's last event time, so the partitions'
   * spread, and with it the number of open windows, is at its smallest; in the middle of a lap it
   * is typical (in {@code sparse} about 30 windows are open then, see {@link MatrixDensity}).
   */
  static final long MATRIX_EVENTS = 3L << (Feed.LOG2_LENGTH - 1);

  /** The key of each event of the matrix feed, uniform over {@code keys}. */
  private static String[] matrixKeys(int keys) {
    String[] strings = Feed.keyStrings(keys);
    int[] index = Feed.keyIndexes(keys);
    String[] key = new String[Feed.LENGTH];
    for (int i = 0; i < Feed.LENGTH; i++) {
      key[i] = strings[index[i]];
    }
    return key;
  }

  /**
   * The windows of {@code WindowsMatrixBenchmark.windowsAdd} (5 minutes, 2 minutes of lateness,
   * source handles) after {@link #MATRIX_EVENTS} events (1.5 laps) of the matrix feed, the
   * finalized windows polled and dropped: what stays is the open windows of the steady state (their
   * number and size depend on the density; see {@link MatrixDensity}). A manual clock that never
   * moves: nothing idles.
   */
  private static TumblingWindows<String, Long, Long> matrixWindows(
      Feed feed, String[] key, Long[] values) {
    TumblingWindows<String, Long, Long> windows =
        TumblingWindows.builder(WindowsMatrixBenchmark.WINDOW_SIZE, Aggregators.sumLong())
            .allowedLateness(WindowsMatrixBenchmark.ALLOWED_LATENESS)
            .idleTimeout(WatermarkBenchmark.IDLE_TIMEOUT)
            .clock(new ManualClock())
            .build();
    WatermarkTracker.Source[] handles = new WatermarkTracker.Source[feed.sources];
    for (int p = 0; p < feed.sources; p++) {
      handles[p] = windows.source(feed.sourceKeys[p]);
    }
    for (long c = 0; c < MATRIX_EVENTS; c++) {
      int i = (int) c & Feed.MASK;
      if (feed.pollStart[i]) {
        windows.pollFinalized();
      }
      windows.add(handles[feed.source[i]], feed.eventTimeMillis(c), key[i], values[i]);
    }
    windows.pollFinalized();
    return windows;
  }

  private static TumblingWindows<String, Long, Long> windows() {
    // Allowed lateness and idle timeout long enough that no window closes while measuring.
    return TumblingWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
        .allowedLateness(Duration.ofHours(1))
        .idleTimeout(Duration.ofHours(1))
        .clock(new ManualClock())
        .build();
  }

  private static TopicPartitionKey[] sourceKeys(int n) {
    TopicPartitionKey[] keys = new TopicPartitionKey[n];
    for (int k = 0; k < n; k++) {
      keys[k] = new TopicPartitionKey("orders", k);
    }
    return keys;
  }

  private static void report(String what, int n, IntFunction<Object> build)
      throws InterruptedException {
    build.apply(Math.min(n, 1_000)); // load and initialise the classes outside the measurement
    double[] perUnit = new double[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      long before = usedAfterGc();
      Object state = build.apply(n);
      long after = usedAfterGc();
      Reference.reachabilityFence(state);
      perUnit[r] = (after - before) / (double) n;
    }
    Arrays.sort(perUnit);
    System.out.printf("| %s | %,d | %.1f |%n", what, n, perUnit[ROUNDS / 2]);
  }

  /**
   * Like {@link #report}, for a state whose unit count is known only once it is built: retained
   * bytes divided by {@code units.applyAsLong(state)}; the count shown, and the note after the
   * label, are those of the last round.
   */
  private static void reportPerUnit(
      String what,
      Supplier<Object> build,
      ToLongFunction<Object> units,
      Function<Object, String> note)
      throws InterruptedException {
    build.get(); // load and initialise the classes outside the measurement
    double[] perUnit = new double[ROUNDS];
    long n = 0;
    String last = "";
    for (int r = 0; r < ROUNDS; r++) {
      long before = usedAfterGc();
      Object state = build.get();
      long after = usedAfterGc();
      n = units.applyAsLong(state);
      last = note.apply(state);
      Reference.reachabilityFence(state);
      perUnit[r] = (after - before) / (double) n;
    }
    Arrays.sort(perUnit);
    System.out.printf("| %s (%s) | %,d | %.1f |%n", what, last, n, perUnit[ROUNDS / 2]);
  }

  private static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(20);
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }
}
