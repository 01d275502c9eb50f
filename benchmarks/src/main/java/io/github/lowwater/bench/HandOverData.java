package io.github.lowwater.bench;

import io.github.lowwater.bench.HandOver.Options;
import io.github.lowwater.bench.HandOver.Span;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The data of {@link HandOver}: a topic of one partition per span, written once, and its trigger
 * record, written once the first owners have closed. Deterministic (a fixed seed per span).
 */
final class HandOverData {

  private HandOverData() {}

  /** Writes a span's data: evenly spaced in event time, keys uniform, values 1 to 100. */
  static Span produce(InProcessBroker broker, int minutes, Options o) throws Exception {
    String topic = "hand-over-" + minutes + "m";
    broker.createTopic(topic, 1);
    long records = o.rate() * minutes * 60;
    String[] keys = Feed.keyStrings(o.keys());
    long[] last = new long[o.keys()];
    Arrays.fill(last, Long.MIN_VALUE);
    SplittableRandom random = new SplittableRandom(0x4A4D0 + minutes);
    long sum = 0;
    long distinct = 0;
    long sessions = 0;
    long start = System.nanoTime();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, Long> producer = EndToEnd.producer(broker.bootstrapServers())) {
      for (long n = 0; n < records; n++) {
        long t = HandOver.T0_MILLIS + n * 1000 / o.rate();
        int k = random.nextInt(o.keys());
        long value = 1 + random.nextInt(100);
        if (last[k] == Long.MIN_VALUE) {
          distinct++;
        }
        // Kafka Streams' inclusive gap: a record within the gap of the key's last joins it.
        if (last[k] == Long.MIN_VALUE || t - last[k] > HandOver.SESSION_GAP.toMillis()) {
          sessions++;
        }
        last[k] = t;
        sum += value;
        producer.send(
            new ProducerRecord<>(topic, 0, t, keys[k], value),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("production failed", failure.get());
    }
    System.out.printf(
        Locale.ROOT,
        "Produced %s: %,d records (%d min at %,d/s), %,d keys, %,d sessions, values summing to %,d,"
            + " in %.1f s%n",
        topic,
        records,
        minutes,
        o.rate(),
        distinct,
        sessions,
        sum,
        (System.nanoTime() - start) / 1e9);
    return new Span(minutes, topic, records, sum, distinct, sessions);
  }

  /** Writes the trigger record after the data of {@code span}. */
  static void trigger(InProcessBroker broker, Span span) throws Exception {
    try (KafkaProducer<String, Long> producer = EndToEnd.producer(broker.bootstrapServers())) {
      long t = HandOver.T0_MILLIS + HandOver.TRIGGER_AFTER_MILLIS;
      RecordMetadata m =
          producer.send(new ProducerRecord<>(span.topic(), 0, t, HandOver.TRIGGER_KEY, 0L)).get();
      if (m.offset() != span.records()) {
        throw new IllegalStateException("the trigger of " + span.topic() + " is at " + m.offset());
      }
    }
  }
}
