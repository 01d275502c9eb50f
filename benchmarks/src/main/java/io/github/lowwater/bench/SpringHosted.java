package io.github.lowwater.bench;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RecordMapper;
import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.spring.LowwaterContainer;
import io.github.lowwater.spring.LowwaterListener;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * The cost of hosting Lowwater in Spring for Apache Kafka's listener containers
 * (lowwater-spring-boot-starter) against the README's plain loop, on the same job and broker as
 * {@link EndToEnd}: its topic (produced by {@link EndToEnd#produce}, skewed partitions, keys,
 * disorder), its consumer settings ({@link EndToEnd#consumer}: 500 records a poll) and its windows
 * (5-minute tumbling, 2 minutes of lateness, {@code sumLong}, {@code PER_PARTITION}).
 *
 * <p>Each pass is a new consumer in a new group, subscribed, from the earliest offset, one consumer
 * either way: {@code plain} polls, feeds the windows and emits to a sink that sums the rows' values
 * and commits with {@code commitSync}; {@code spring} is a {@link LowwaterContainer} of one
 * consumer with the same mapper and the same sink. A pass is timed from the first record mapped to
 * the commit after the last record was mapped, so the group join is outside both. Passes alternate
 * in order between rounds; the summary gives each loop's median records/s and the ratio of medians.
 *
 * <pre>
 * mvn -B -q -f benchmarks package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.github.lowwater.bench.SpringHosted \
 *     --records 3000000 --warmup 1 --rounds 5 [--max-poll-records 500]
 * </pre>
 *
 * <p>{@code --max-poll-records} (default 500, EndToEnd's) sets how many records a poll returns at
 * most, for both loops: a small value makes the container's work per poll count for more.
 */
public final class SpringHosted {

  private SpringHosted() {}

  /** Counts the records mapped and sums the rows written, and notes when the last one was. */
  static final class Probe implements ResultSink<String, Long> {
    final AtomicLong mapped = new AtomicLong();
    final long total;
    final Consumer<?, ?> consumer;
    volatile long firstNanos;
    volatile long endNanos;
    long sum;

    Probe(long total, Consumer<?, ?> consumer) {
      this.total = total;
      this.consumer = consumer;
    }

    void map(
        org.apache.kafka.clients.consumer.ConsumerRecord<String, Long> record,
        RecordMapper.Output<String, Long> out) {
      if (mapped.getAndIncrement() == 0) {
        firstNanos = System.nanoTime();
      }
      out.emit(record.timestamp(), record.key(), record.value());
    }

    @Override
    public void write(List<WindowResult<String, Long>> rows) {
      for (WindowResult<String, Long> r : rows) {
        sum += r.value();
      }
    }

    @Override
    public void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
      if (!offsets.isEmpty()) {
        consumer.commitSync(offsets);
      }
      if (endNanos == 0 && mapped.get() >= total) {
        endNanos = System.nanoTime();
      }
    }
  }

  /** Records a poll returns at most: {@code --max-poll-records}, default 500 (EndToEnd's). */
  static int maxPollRecords = 500;

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    int at = rest.indexOf("--max-poll-records");
    if (at >= 0) {
      maxPollRecords = Integer.parseInt(rest.get(at + 1));
      rest.subList(at, at + 2).clear();
    }
    EndToEnd.Options o = EndToEnd.Options.parse(rest.toArray(String[]::new));
    try (InProcessBroker broker = InProcessBroker.start()) {
      broker.createTopic(EndToEnd.TOPIC, o.partitions());
      EndToEnd.Produced produced = EndToEnd.produce(broker.bootstrapServers(), o);
      System.out.printf(
          Locale.ROOT,
          "SpringHosted: %,d records, %,d keys, %d partitions, %d records a poll at most, %d warm-up"
              + " + %d rounds; %s %s%n%n",
          produced.records(),
          o.keys(),
          o.partitions(),
          maxPollRecords,
          o.warmup(),
          o.rounds(),
          System.getProperty("java.vm.name"),
          Runtime.version());
      System.out.println("| round | loop | records | seconds | records/s |");
      System.out.println("| ---: | --- | ---: | ---: | ---: |");
      Map<String, List<Double>> rates = new HashMap<>();
      for (int round = 1 - o.warmup(); round <= o.rounds(); round++) {
        List<String> order =
            Math.floorMod(round, 2) == 0 ? List.of("plain", "spring") : List.of("spring", "plain");
        for (String loop : order) {
          String group = loop + "-" + (round <= 0 ? "warmup" + (-round) : round);
          Probe p =
              loop.equals("plain")
                  ? plain(broker.bootstrapServers(), group, produced.records())
                  : spring(broker.bootstrapServers(), group, produced.records());
          double seconds = (p.endNanos - p.firstNanos) / 1e9;
          double rate = p.mapped.get() / seconds;
          if (round > 0) {
            rates.computeIfAbsent(loop, k -> new ArrayList<>()).add(rate);
          }
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %,d | %.2f | %,.0f |%n",
              round > 0 ? Integer.toString(round) : "warm-up",
              loop,
              p.mapped.get(),
              seconds,
              rate);
        }
      }
      double plain = EndToEnd.median(rates.get("plain").stream().mapToDouble(d -> d).toArray());
      double spring = EndToEnd.median(rates.get("spring").stream().mapToDouble(d -> d).toArray());
      System.out.printf(
          Locale.ROOT,
          "%nmedian records/s: plain %,.0f, spring %,.0f; spring / plain %.3f%n",
          plain,
          spring,
          spring / plain);
    }
  }

  /** The README's loop: poll, onPoll, emit (write, then commitSync). */
  static Probe plain(String bootstrap, String group, long total) {
    KafkaConsumer<String, Long> created = EndToEnd.consumer(bootstrap, group, maxPollRecords);
    try (KafkaConsumer<String, Long> consumer = created) {
      Probe probe = new Probe(total, consumer);
      KafkaWindows<String, Long, Long> windows = windows().consumer(consumer).build();
      RecordMapper<String, Long, String, Long> mapper = probe::map;
      consumer.subscribe(List.of(EndToEnd.TOPIC), windows.rebalanceListener());
      while (probe.endNanos == 0) {
        windows.onPoll(consumer.poll(EndToEnd.POLL_TIMEOUT), mapper);
        windows.emit(probe);
      }
      return probe;
    }
  }

  /** The same job in one of the starter's containers, with the same mapper and sink. */
  static Probe spring(String bootstrap, String group, long total) throws InterruptedException {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrap);
    config.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
    config.put("value.deserializer", org.apache.kafka.common.serialization.LongDeserializer.class);
    config.put("enable.auto.commit", false);
    config.put("auto.offset.reset", "earliest");
    config.put("max.poll.records", maxPollRecords);
    AtomicReference<Probe> probe = new AtomicReference<>(); // made on the consumer's thread
    LowwaterListener<String, Long, String, Long, Long> spec =
        LowwaterListener.<String, Long, String, Long, Long>builder(EndToEnd.TOPIC)
            .groupId(group)
            .windows(SpringHosted::windows)
            .mapper((record, out) -> probe.get().map(record, out))
            .sink(
                context -> {
                  probe.set(new Probe(total, context.consumer()));
                  return probe.get();
                })
            .build();
    LowwaterContainer<String, Long> container =
        new LowwaterContainer<>(
            spec, new DefaultKafkaConsumerFactory<>(config), Map.of(), (l, i, w) -> () -> {});
    container.start();
    try {
      while (probe.get() == null || probe.get().endNanos == 0) {
        Thread.sleep(5); // polling the consumer thread's progress
      }
      return probe.get();
    } finally {
      container.stop();
    }
  }

  static KafkaWindows.Builder<Long, Long> windows() {
    return KafkaWindows.builder(EndToEnd.WINDOW_SIZE, Aggregators.sumLong())
        .allowedLateness(EndToEnd.ALLOWED_LATENESS);
  }
}
