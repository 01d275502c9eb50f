package io.github.lowwater.bench;

import io.github.lowwater.ManualClock;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.PartitionResultVisitor;
import io.github.lowwater.window.Aggregators;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code KafkaWindows.onPoll} per record, no broker: a poll of 500 records of one partition
 * (tumbling windows of a minute, a record every 10 ms of event time, {@code keys} keys), then the
 * allocation-free drain. The driver's per-record work (mapping, the admission, the ledger, the
 * wall-clock history's checks) on top of the windows' add. With {@code guard} on, the
 * future-timestamp guard of a day (never fires): its per-record cost. Used to compare two builds of
 * the library (issue 32: the replay of wall-clock decisions added checks per record), each
 * benchmarks jar built against one, run alternately.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar KafkaPollBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class KafkaPollBenchmark {

  static final int BATCH = 500;

  /** Batches in a lap: the records are built once and replayed with a growing time shift. */
  static final int BATCHES = 64;

  static final long STEP_MILLIS = 10;

  static final TopicPartition TP = new TopicPartition("bench", 0);

  @State(Scope.Thread)
  public static class Driver {
    @Param({"1000", "100000"})
    int keys;

    @Param({"off", "on"})
    String guard;

    final List<ConsumerRecords<String, String>> laps = new ArrayList<>();
    KafkaWindows<String, Long, Long> windows;
    ManualClock clock;
    int next;
    long shiftMillis;
    long results;

    final PartitionResultVisitor<String, Long> sink =
        new PartitionResultVisitor<>() {
          @Override
          public void visit(TopicPartition partition, long start, long end, String key, Long r) {
            results += r;
          }

          @Override
          public void visitLong(
              TopicPartition partition, long start, long end, String key, long r) {
            results += r;
          }
        };

    @Setup(Level.Trial)
    public void setUp() {
      long t0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
      clock = new ManualClock(Instant.ofEpochMilli(t0));
      String[] names = new String[keys];
      for (int k = 0; k < keys; k++) {
        names[k] = "key-" + k;
      }
      long offset = 0;
      java.util.SplittableRandom random = new java.util.SplittableRandom(42);
      for (int b = 0; b < BATCHES; b++) {
        List<ConsumerRecord<String, String>> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++, offset++) {
          batch.add(
              new ConsumerRecord<>(
                  TP.topic(),
                  TP.partition(),
                  offset,
                  t0 + offset * STEP_MILLIS,
                  TimestampType.CREATE_TIME,
                  0,
                  0,
                  names[random.nextInt(keys)],
                  "v",
                  new RecordHeaders(),
                  Optional.empty()));
        }
        laps.add(new ConsumerRecords<>(Map.of(TP, batch), Map.of()));
      }
      KafkaWindows.Builder<Long, Long> b =
          KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong())
              .allowedLateness(Duration.ofSeconds(5))
              .clock(clock)
              .consumer(new MockConsumer<>("earliest"));
      if (guard.equals("on")) {
        b.maxFutureSkew(Duration.ofDays(1));
      }
      windows = b.build();
      windows.rebalanceListener().onPartitionsAssigned(List.of(TP));
    }

    long eventTime(ConsumerRecord<String, String> r) {
      return r.timestamp() + shiftMillis;
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long onPoll(Driver d) {
    ConsumerRecords<String, String> records = d.laps.get(d.next);
    if (++d.next == BATCHES) {
      d.next = 0;
      d.shiftMillis += BATCHES * BATCH * STEP_MILLIS; // the next lap, later in event time
      d.clock.advanceMillis(BATCHES * BATCH * STEP_MILLIS);
    }
    d.windows.onPoll(records, d::eventTime, ConsumerRecord::key, r -> 1L);
    d.windows.drainFinalized(d.sink);
    return d.results;
  }
}
