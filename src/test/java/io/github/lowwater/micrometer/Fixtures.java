package io.github.lowwater.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * What the binder tests share: hand-built Kafka records (no broker; copied from the package-private
 * helpers of {@code io.github.lowwater.kafka}) and readings of a registry's meters.
 */
final class Fixtures {

  static final long MINUTE = 60_000;
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final long T = NOW.toEpochMilli(); // a multiple of five minutes
  static final TopicPartition P0 = new TopicPartition("arrivals", 0);
  static final TopicPartition P1 = new TopicPartition("arrivals", 1);
  static final TopicPartition P2 = new TopicPartition("arrivals", 2);

  private Fixtures() {}

  /** A record with key {@code "k"} and the given value, stamped {@code timestamp}. */
  static ConsumerRecord<String, String> record(
      TopicPartition tp, long offset, long timestamp, String value) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        timestamp,
        TimestampType.CREATE_TIME,
        0,
        0,
        "k",
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  /** A record with key {@code "k"} and value {@code "v"}. */
  static ConsumerRecord<String, String> record(TopicPartition tp, long offset, long timestamp) {
    return record(tp, offset, timestamp, "v");
  }

  /** One poll's records, grouped by partition in the given order. */
  @SafeVarargs
  static ConsumerRecords<String, String> records(ConsumerRecord<String, String>... rs) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition = new LinkedHashMap<>();
    for (ConsumerRecord<String, String> r : rs) {
      byPartition
          .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
          .add(r);
    }
    return new ConsumerRecords<>(byPartition, Map.of());
  }

  /** The one meter called {@code name} with exactly {@code tags}. */
  static Meter meter(MeterRegistry registry, String name, Tags tags) {
    List<Meter> found =
        registry.find(name).meters().stream()
            .filter(m -> Tags.of(m.getId().getTags()).equals(tags))
            .toList();
    assertThat(found).as("%s%s in %s", name, tags, describe(registry)).hasSize(1);
    return found.get(0);
  }

  /** The value of that meter: a gauge's value or a counter's count. */
  static double value(MeterRegistry registry, String name, Tags tags) {
    return meter(registry, name, tags).measure().iterator().next().getValue();
  }

  /**
   * Every meter of {@code registry} as {@code "name TYPE baseUnit [tags]"}, after checking that
   * each has a description.
   */
  static List<String> describe(MeterRegistry registry) {
    for (Meter m : registry.getMeters()) {
      assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank();
    }
    return registry.getMeters().stream()
        .map(
            m ->
                m.getId().getName()
                    + " "
                    + m.getId().getType()
                    + " "
                    + m.getId().getBaseUnit()
                    + " "
                    + m.getId().getTags().stream()
                        .map(t -> t.getKey() + "=" + t.getValue())
                        .collect(Collectors.joining(",", "[", "]")))
        .sorted()
        .toList();
  }
}
