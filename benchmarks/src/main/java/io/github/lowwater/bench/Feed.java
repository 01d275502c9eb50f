package io.github.lowwater.bench;

import java.util.SplittableRandom;

/**
 * The one precomputed input of every benchmark: a Kafka consumer catching up on a backlog of {@code
 * sources} partitions, {@link #LENGTH} events long, deterministic (fixed seeds).
 *
 * <h2>How it is made</h2>
 *
 * <ol>
 *   <li><b>Skewed partitions.</b> Partition {@code p} holds {@code c(p)} events, proportional to a
 *       log-normal weight ({@code exp(0.75 * gaussian)}), at least one each, summing to {@link
 *       #LENGTH}. Every partition covers the same {@link #SPAN_MILLIS} of event time, so a hot
 *       partition has more events per millisecond than a cold one.
 *   <li><b>Mild disorder inside a source.</b> Event {@code n} of partition {@code p} is at {@code n
 *       * SPAN / c(p)}, and one event in eight is moved back by up to {@link #MAX_DISORDER_MILLIS}.
 *   <li><b>Uneven draining in batches.</b> The events are laid out in the order a consumer would
 *       see them: polls of at most {@link #MAX_POLL_RECORDS} records, each made of chunks of at
 *       most {@link #MAX_CHUNK} consecutive records of one partition, the partition picked
 *       uniformly among those with a backlog left. Cold partitions therefore finish early and hot
 *       ones lag behind in event time: the slowest partition is usually a hot one that holds the
 *       watermark until its next chunk, as in a real catch-up.
 * </ol>
 *
 * <p>A benchmark walks the feed with a {@code long} counter {@code c}: the event is at index {@code
 * c & MASK}, and its event time is shifted by {@code (c >>> LOG2_LENGTH) * SPAN_MILLIS}, so that
 * every lap continues in event time where the previous one ended and frontiers keep rising.
 *
 * <p>Keys (for the window benchmarks) are drawn uniformly from {@code keys} distinct strings with
 * their own seed, independently of the partition, so the key and value sequences are the same for
 * every source count.
 */
final class Feed {

  /** Events per lap: a power of two, so that the cursor wraps with a mask. */
  static final int LOG2_LENGTH = 20;

  static final int LENGTH = 1 << LOG2_LENGTH;
  static final int MASK = LENGTH - 1;

  /** Event time covered by one lap, by every partition: one minute. */
  static final long SPAN_MILLIS = 60_000;

  /** The first event time: 2023-11-14T22:13:20Z. */
  static final long BASE_MILLIS = 1_700_000_000_000L;

  static final long MAX_DISORDER_MILLIS = 50;
  static final int MAX_POLL_RECORDS = 500;
  static final int MAX_CHUNK = 256;

  /** Allowed lateness (Lowwater) and bounded out-of-orderness (Flink) of every contender. */
  static final long ALLOWED_LATENESS_MILLIS = 1_000;

  /**
   * Event time per lap of the windows matrix's "dense" feed: 6 partitions then hold about 1.56 ms
   * of event time between two records of one partition, 64 times less than {@link
   * #MATRIX_SPARSE_SPAN_MILLIS}.
   */
  static final long MATRIX_DENSE_SPAN_MILLIS = 273_066;

  /**
   * Event time per lap of the windows matrix's "sparse" feed, 64 times {@link
   * #MATRIX_DENSE_SPAN_MILLIS} (4 h 51 min): at 6 partitions, {@code 2^20 / 6} records of a
   * partition on average share it, about 100 ms of event time between two records of one partition.
   */
  static final long MATRIX_SPARSE_SPAN_MILLIS = 64 * MATRIX_DENSE_SPAN_MILLIS;

  final int sources;

  /** Event time covered by one lap, by every partition. */
  final long spanMillis;

  /** The source key of each partition. */
  final TopicPartitionKey[] sourceKeys;

  /** The partition of each event. */
  final int[] source;

  /** The event time of each event, in the first lap. */
  final long[] eventTimeMillis;

  /** Whether each event is the first record of a poll. */
  final boolean[] pollStart;

  /** The number of polls in one lap. */
  final int polls;

  /** The feed of every benchmark but the windows matrix: one minute per lap, 50 ms of disorder. */
  Feed(int sources) {
    this(sources, SPAN_MILLIS, MAX_DISORDER_MILLIS);
  }

  /**
   * A feed with the same layout (partitions, chunks, polls, and which events are moved back: the
   * random draws do not depend on the span) on another time axis: {@code spanMillis} of event time
   * per lap, one event in eight moved back by up to {@code maxDisorderMillis}.
   */
  Feed(int sources, long spanMillis, long maxDisorderMillis) {
    if (sources < 1 || sources > LENGTH) {
      throw new IllegalArgumentException("sources must be in [1, " + LENGTH + "]: " + sources);
    }
    if (spanMillis < 1 || maxDisorderMillis < 1) {
      throw new IllegalArgumentException(
          "spanMillis and maxDisorderMillis must be >= 1: "
              + spanMillis
              + ", "
              + maxDisorderMillis);
    }
    this.sources = sources;
    this.spanMillis = spanMillis;
    this.sourceKeys = new TopicPartitionKey[sources];
    for (int p = 0; p < sources; p++) {
      sourceKeys[p] = new TopicPartitionKey("orders", p);
    }
    SplittableRandom random = new SplittableRandom(0x10_3A7E5L + sources);

    // 1. Skewed partition sizes.
    double[] weight = new double[sources];
    double total = 0;
    for (int p = 0; p < sources; p++) {
      weight[p] = Math.exp(0.75 * gaussian(random));
      total += weight[p];
    }
    int[] count = new int[sources];
    int assigned = 0;
    for (int p = 0; p < sources; p++) {
      count[p] = 1 + (int) ((LENGTH - sources) * (weight[p] / total));
      assigned += count[p];
    }
    while (assigned < LENGTH) {
      count[random.nextInt(sources)]++;
      assigned++;
    }

    // 2 and 3. Drain in polls of chunks, writing event times as partitions are consumed.
    source = new int[LENGTH];
    eventTimeMillis = new long[LENGTH];
    pollStart = new boolean[LENGTH];
    int[] position = new int[sources];
    int[] backlog = new int[sources]; // partitions with events left, swap-removed when drained
    for (int p = 0; p < sources; p++) {
      backlog[p] = p;
    }
    int withBacklog = sources;
    int i = 0;
    int pollCount = 0;
    while (i < LENGTH) {
      pollStart[i] = true;
      pollCount++;
      int budget = MAX_POLL_RECORDS;
      while (budget > 0 && i < LENGTH) {
        int slot = random.nextInt(withBacklog);
        int p = backlog[slot];
        int left = count[p] - position[p];
        int chunk = 1 + random.nextInt(Math.min(Math.min(left, budget), MAX_CHUNK));
        for (int k = 0; k < chunk; k++, i++) {
          int n = position[p]++;
          long t = n * spanMillis / count[p];
          if (random.nextInt(8) == 0) {
            t = Math.max(0, t - 1 - random.nextLong(maxDisorderMillis));
          }
          source[i] = p;
          eventTimeMillis[i] = BASE_MILLIS + t;
        }
        budget -= chunk;
        if (position[p] == count[p]) {
          backlog[slot] = backlog[--withBacklog];
        }
      }
    }
    this.polls = pollCount;
  }

  /** The event time of the event at counter {@code c}, lap shift included. */
  long eventTimeMillis(long c) {
    return eventTimeMillis[(int) c & MASK] + (c >>> LOG2_LENGTH) * spanMillis;
  }

  /** The key index of each event, uniform in {@code [0, keys)}, independent of the sources. */
  static int[] keyIndexes(int keys) {
    SplittableRandom random = new SplittableRandom(0x4B_E75L);
    int[] index = new int[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      index[i] = random.nextInt(keys);
    }
    return index;
  }

  /** The key strings {@code "customer-0000042"}, created once. */
  static String[] keyStrings(int keys) {
    String[] strings = new String[keys];
    for (int k = 0; k < keys; k++) {
      strings[k] = String.format("customer-%07d", k);
    }
    return strings;
  }

  /**
   * The value of each event, 1 to 100 as {@link Long} from the JDK's small-value cache: a consumer
   * receives values already deserialized, so no benchmark pays for boxing them.
   */
  static Long[] values() {
    SplittableRandom random = new SplittableRandom(0x7A1_0E5L);
    Long[] values = new Long[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      values[i] = Long.valueOf(1 + random.nextInt(100));
    }
    return values;
  }

  /** A standard normal draw. */
  static double gaussian(SplittableRandom random) {
    // Box-Muller; SplittableRandom has no nextGaussian on Java 17.
    double u = 1.0 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
  }
}
