package io.github.lowwater.bench;

import io.github.lowwater.bench.HandOver.Kind;
import io.github.lowwater.bench.HandOver.Prepared;
import io.github.lowwater.bench.HandOver.Span;
import io.github.lowwater.bench.HandOver.Takeover;
import io.github.lowwater.bench.HandOver.Variant;
import io.github.lowwater.window.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.Suppressed.BufferConfig;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.Stores;

/**
 * The two instances of an application in {@link HandOver} on the Kafka Streams side: the job of
 * {@code EndToEnd}'s Streams loops on an in-memory store, no standby replica. The first instance
 * reads the data, committing once per {@value #COMMIT_EVERY_MILLIS} ms of event time, and closes
 * cleanly; each new instance starts with an empty state directory from a copy of that state ({@link
 * ChangelogCopy}), restores the changelogs and is timed to its rows. Not thread-safe; the main
 * thread, beside each instance's threads.
 */
final class HandOverStreams {

  /**
   * The first instance's commits: one per 30 s of the data's event time, which is what Kafka
   * Streams' default {@code commit.interval.ms} of 30 s gives an application that reads the data
   * live, at the rate it was produced. Each commit flushes the record cache into the changelogs, so
   * the changelogs hold what a live reading would have written; a catch-up at full speed would
   * commit a few times in all and leave a far smaller changelog than a live application has.
   */
  static final long COMMIT_EVERY_MILLIS = 30_000;

  /** The session store's retention: the least Kafka Streams accepts, gap plus grace. */
  static final Duration SESSION_RETENTION = HandOver.SESSION_GAP.plus(HandOver.LATENESS);

  private HandOverStreams() {}

  /**
   * {@code EndToEnd}'s settings (one stream thread, Kafka Streams' defaults otherwise), no standby
   * replica; a new instance ({@code first} false) without a record cache, so that the trigger
   * record reaches the suppression at once: with the default cache it waits for the next commit,
   * {@code commit.interval.ms} (30 s) after the start, and so does the first row. The cache has no
   * part in a restore.
   */
  static Properties config(String bootstrap, String applicationId, Path stateDir, boolean first) {
    Properties props = EndToEnd.streamsConfig(bootstrap, applicationId, stateDir);
    props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0);
    if (!first) {
      props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
    }
    return props;
  }

  /** The settings that decide a restore, read back from {@link StreamsConfig}, for the output. */
  static String settings() {
    StreamsConfig config =
        new StreamsConfig(config("127.0.0.1:9092", "settings", Path.of("state"), true));
    Map<String, Object> restore = config.getRestoreConsumerConfigs("settings-restore");
    return String.format(
        Locale.ROOT,
        "Kafka Streams: %s=%s, %s=%d (and a commit requested per %d s of event time by the first"
            + " instance), %s=%d (0 for the new instances), %s=%d, %s=%d, restore consumer %s=%s;"
            + " in-memory stores;"
            + " suppress(untilWindowCloses(unbounded()))",
        StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
        config.getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG),
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
        config.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG),
        COMMIT_EVERY_MILLIS / 1000,
        StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG,
        config.getLong(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG),
        StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
        config.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG),
        StreamsConfig.NUM_STREAM_THREADS_CONFIG,
        config.getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG),
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        restore.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
  }

  /**
   * {@code EndToEnd}'s job: grouped by key, windowed, {@code reduce(Long::sum)} into an in-memory
   * store, final results only ({@code suppress(untilWindowCloses(unbounded()))}), each into {@code
   * rows}. Every node and store is named, so that both instances have the same stores and
   * changelogs. The first instance ({@code first}) requests the commits.
   */
  static Topology topology(Kind kind, String topic, Probe probe, boolean first, LongConsumer rows) {
    StreamsBuilder builder = new StreamsBuilder();
    KGroupedStream<String, Long> grouped =
        builder.stream(topic, Consumed.with(Serdes.String(), Serdes.Long()))
            .processValues(() -> new Counted(probe, first), Named.as("counted"))
            .groupByKey(Grouped.with(Serdes.String(), Serdes.Long()));
    KTable<Windowed<String>, Long> sums =
        switch (kind) {
          case TUMBLING, HOPPING -> {
            Duration size = kind == Kind.TUMBLING ? HandOver.TUMBLING_SIZE : HandOver.HOP_SIZE;
            TimeWindows windows = TimeWindows.ofSizeAndGrace(size, HandOver.LATENESS);
            yield grouped
                .windowedBy(
                    kind == Kind.HOPPING ? windows.advanceBy(HandOver.HOP_ADVANCE) : windows)
                .reduce(
                    Long::sum,
                    Materialized.<String, Long>as(
                            Stores.inMemoryWindowStore(
                                "sums", size.plus(HandOver.LATENESS), size, false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
          }
          case SESSIONS ->
              grouped
                  .windowedBy(
                      SessionWindows.ofInactivityGapAndGrace(
                          HandOver.SESSION_GAP, HandOver.LATENESS))
                  .reduce(
                      Long::sum,
                      Materialized.<String, Long>as(
                              Stores.inMemorySessionStore("sums", SESSION_RETENTION))
                          .withKeySerde(Serdes.String())
                          .withValueSerde(Serdes.Long()));
        };
    sums.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("final"))
        .toStream(Named.as("rows"))
        .foreach(
            (window, sum) -> {
              if (sum != null) {
                rows.accept(sum);
              }
            },
            Named.as("sink"));
    return builder.build();
  }

  /**
   * The first instance: reads every data record (the trigger is not written yet), committing once
   * per {@link #COMMIT_EVERY_MILLIS} of event time, then closes cleanly (which flushes its cache
   * into the changelogs and commits) and leaves the group.
   */
  static Prepared first(InProcessBroker broker, Span span, Variant v) throws Exception {
    String id = span.group(v);
    Path stateDir = Files.createTempDirectory("lowwater-handover-");
    Probe probe = new Probe(span.records());
    AtomicLong rows = new AtomicLong();
    long start = System.nanoTime();
    KafkaStreams streams =
        new KafkaStreams(
            topology(v.kind(), span.topic(), probe, true, sum -> rows.incrementAndGet()),
            config(broker.bootstrapServers(), id, stateDir, true));
    stopOnFailure(streams, probe);
    try {
      streams.start();
      await(probe.all, probe, streams, "the data's last record");
    } finally {
      close(streams);
      EndToEnd.deleteRecursively(stateDir);
    }
    if (probe.failure.get() != null) {
      throw new IllegalStateException(id + " failed", probe.failure.get());
    }
    if (rows.get() != 0) {
      throw new IllegalStateException(id + ": " + rows.get() + " rows before the trigger");
    }
    return new Prepared(span, v, probe.seen, probe.lastNanos - start, -1, probe.commits.get());
  }

  /**
   * A new instance with an empty state directory: the first instance's changelogs and commit are
   * copied under a new application id for this round ({@link ChangelogCopy}, untimed); then the
   * clock starts before the instance is created; it joins its group, is assigned the partition,
   * restores both changelogs (the window or session store and the suppression buffer), processes
   * the trigger record and gives its rows; the clock stops at its last row. Then it is closed and
   * its copy deleted.
   */
  static Takeover takeover(InProcessBroker broker, Span span, Variant v, int round, long changelog)
      throws Exception {
    String id = span.group(v) + "-" + (round > 0 ? "r" + round : "w" + (1 - round));
    long copied = ChangelogCopy.copy(broker, span.group(v), id);
    Path stateDir = Files.createTempDirectory("lowwater-handover-");
    FirstRows rows = new FirstRows(span.expectedRows(v.kind()));
    Probe probe = new Probe(1); // the trigger
    System.gc();
    long start = System.nanoTime();
    KafkaStreams streams =
        new KafkaStreams(
            topology(v.kind(), span.topic(), probe, false, sum -> rows.row(Timing.ON_TIME, sum)),
            config(broker.bootstrapServers(), id, stateDir, false));
    streams.setGlobalStateRestoreListener(probe);
    stopOnFailure(streams, probe);
    try {
      streams.start();
      await(rows.complete, probe, streams, "the rows");
    } finally {
      close(streams);
      EndToEnd.deleteRecursively(stateDir);
      broker.deleteTopicsStartingWith(id + "-");
    }
    if (probe.failure.get() != null) {
      throw new IllegalStateException(id + " failed", probe.failure.get());
    }
    String check = rows.check(span.expectedSum(v.kind()));
    // Kafka Streams may restore fewer records than the changelogs hold: it starts a session
    // store's restore at its retention (gap plus grace) behind the newest record, skipping the
    // updates of sessions that have expired since. The rows check that the state is whole.
    if (copied != changelog || probe.restored.get() < 1 || probe.restored.get() > changelog) {
      check =
          (check.equals("ok") ? "" : check + "; ")
              + String.format(
                  Locale.ROOT,
                  "MISMATCH (restored %d of %d changelog records, %d copied)",
                  probe.restored.get(),
                  changelog,
                  copied);
    }
    return new Takeover(
        round,
        span,
        v,
        probe.restored.get(),
        probe.restoreStartNanos - start,
        probe.restoreEndNanos - probe.restoreStartNanos,
        rows.firstRowNanos - start,
        rows.firstOnTimeNanos - start,
        rows.completeNanos - start,
        0,
        check);
  }

  private static void stopOnFailure(KafkaStreams streams, Probe probe) {
    streams.setUncaughtExceptionHandler(
        e -> {
          probe.failure.compareAndSet(null, e);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
  }

  /** Closes an instance and leaves its group, so that the next instance does not wait for it. */
  private static void close(KafkaStreams streams) {
    if (!streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofMinutes(2)))) {
      throw new IllegalStateException("Kafka Streams did not close within 2 minutes");
    }
  }

  /** Waits for {@code latch}, failing on the application's failure or after the pass timeout. */
  private static void await(CountDownLatch latch, Probe probe, KafkaStreams streams, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + HandOver.PASS_TIMEOUT.toNanos();
    while (!latch.await(10, TimeUnit.MILLISECONDS)) { // polling with a deadline
      KafkaStreams.State state = streams.state();
      if (probe.failure.get() != null || state.hasStartedOrFinishedShuttingDown()) {
        throw new IllegalStateException(
            "Kafka Streams stopped (" + state + ") before " + what, probe.failure.get());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " not seen within " + HandOver.PASS_TIMEOUT);
      }
    }
  }

  /**
   * What an instance's threads tell the main thread: the records seen (by the stream thread), the
   * commits requested, the restore (from the thread that restores), a failure. Written by those
   * threads, read by the main thread after a latch or after the close.
   */
  static final class Probe implements StateRestoreListener {
    final long records;
    final CountDownLatch all = new CountDownLatch(1);
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final AtomicLong commits = new AtomicLong();
    final AtomicLong restored = new AtomicLong();
    volatile long seen;
    volatile long lastNanos = FirstRows.NEVER;
    volatile long restoreStartNanos = FirstRows.NEVER;
    volatile long restoreEndNanos = FirstRows.NEVER;

    Probe(long records) {
      this.records = records;
    }

    void seen() {
      long n = seen + 1; // one writer
      seen = n;
      if (n == records) {
        lastNanos = System.nanoTime();
        all.countDown();
      }
    }

    @Override
    public synchronized void onRestoreStart(
        TopicPartition partition, String store, long startOffset, long endOffset) {
      if (restoreStartNanos == FirstRows.NEVER) {
        restoreStartNanos = System.nanoTime();
      }
    }

    @Override
    public void onBatchRestored(
        TopicPartition partition, String store, long batchEndOffset, long restored) {}

    @Override
    public synchronized void onRestoreEnd(TopicPartition partition, String store, long total) {
      restored.addAndGet(total);
      restoreEndNanos = System.nanoTime();
    }
  }

  /**
   * Passes every record on; counts it once it has gone through the aggregation; requests a commit
   * when the event time enters a new {@link #COMMIT_EVERY_MILLIS} interval, if asked to.
   */
  static final class Counted implements FixedKeyProcessor<String, Long, Long> {
    private final Probe probe;
    private final boolean requestCommits;
    private FixedKeyProcessorContext<String, Long> context;
    private long interval = Long.MIN_VALUE;

    Counted(Probe probe, boolean requestCommits) {
      this.probe = probe;
      this.requestCommits = requestCommits;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Long> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Long> record) {
      context.forward(record);
      long at = Math.floorDiv(record.timestamp(), COMMIT_EVERY_MILLIS);
      if (requestCommits && at != interval) {
        if (interval != Long.MIN_VALUE) {
          context.commit();
          probe.commits.incrementAndGet();
        }
        interval = at;
      }
      probe.seen();
    }
  }
}
