package io.github.lowwater.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a bounded range of every partition of one topic, read-only: {@code assign} (no group, no
 * commits), from a start offset to an end offset per partition fixed before the first poll, so that
 * the replay ends even while producers keep writing.
 *
 * <p>The range is a time range ({@code from}/{@code to}: the first offsets whose timestamps are at
 * or after each instant, by {@code offsetsForTimes}) or an offset range applied to every partition,
 * clamped to what the partition holds; by default, everything up to the end offsets at the start.
 * Records are handed to the sink in the order the consumer returns them. Not thread-safe; uses the
 * caller's thread only.
 */
final class KafkaInput {

  /** The range to read; a null bound means the partition's beginning or its end at the start. */
  record Range(Instant from, Instant to, Long fromOffset, Long toOffset) {}

  private static final Duration POLL = Duration.ofMillis(500);

  private KafkaInput() {}

  /**
   * Reads the range of {@code topic} into {@code sink}.
   *
   * @param consumer a consumer with no group, not yet assigned; closed by the caller
   * @param progress told the records read against the total
   * @return the number of records read
   * @throws InputException if the topic does not exist
   */
  static long read(
      Consumer<String, ?> consumer, String topic, Range range, RecordSink sink, Progress progress) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic);
    if (infos == null || infos.isEmpty()) {
      throw new InputException("topic " + topic + ": not found or without partitions");
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo i : infos) {
      partitions.add(new TopicPartition(i.topic(), i.partition()));
    }
    consumer.assign(partitions);
    Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    Map<TopicPartition, Long> start =
        bounds(consumer, partitions, begin, end, range.from(), range.fromOffset(), begin);
    Map<TopicPartition, Long> stop =
        bounds(consumer, partitions, begin, end, range.to(), range.toOffset(), end);
    long total = 0;
    Map<TopicPartition, Long> remaining = new HashMap<>();
    for (TopicPartition tp : partitions) {
      long s = start.get(tp);
      long e = Math.max(s, stop.get(tp));
      consumer.seek(tp, s);
      if (e > s) {
        remaining.put(tp, e);
        total += e - s;
      }
    }
    consumer.pause(partitionsWithout(partitions, remaining));
    long read = 0;
    progress.start(total);
    while (!remaining.isEmpty()) {
      ConsumerRecords<String, ?> records = consumer.poll(POLL);
      for (ConsumerRecord<String, ?> r : records) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        Long e = remaining.get(tp);
        if (e == null || r.offset() >= e) {
          continue;
        }
        sink.accept(r.partition(), r.offset(), r.timestamp(), r.key() == null ? "" : r.key());
        read++;
      }
      for (TopicPartition tp : new ArrayList<>(remaining.keySet())) {
        if (consumer.position(tp) >= remaining.get(tp)) {
          remaining.remove(tp);
          consumer.pause(List.of(tp));
        }
      }
      progress.update(read);
    }
    progress.done(read);
    return read;
  }

  private static List<TopicPartition> partitionsWithout(
      List<TopicPartition> all, Map<TopicPartition, Long> remaining) {
    List<TopicPartition> done = new ArrayList<>();
    for (TopicPartition tp : all) {
      if (!remaining.containsKey(tp)) {
        done.add(tp);
      }
    }
    return done;
  }

  /**
   * Per partition: the offset of an instant, or an offset clamped to the partition, or a default.
   */
  private static Map<TopicPartition, Long> bounds(
      Consumer<String, ?> consumer,
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> begin,
      Map<TopicPartition, Long> end,
      Instant instant,
      Long offset,
      Map<TopicPartition, Long> otherwise) {
    Map<TopicPartition, Long> result = new HashMap<>();
    if (instant != null) {
      Map<TopicPartition, Long> query = new HashMap<>();
      for (TopicPartition tp : partitions) {
        query.put(tp, instant.toEpochMilli());
      }
      Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
      for (TopicPartition tp : partitions) {
        OffsetAndTimestamp o = found.get(tp);
        result.put(tp, o == null ? end.get(tp) : o.offset()); // none at or after: the end
      }
      return result;
    }
    for (TopicPartition tp : partitions) {
      long o = offset == null ? otherwise.get(tp) : offset;
      result.put(tp, Math.min(Math.max(o, begin.get(tp)), end.get(tp)));
    }
    return result;
  }
}
