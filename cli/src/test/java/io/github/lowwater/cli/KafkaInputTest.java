package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Kafka input on a {@link MockConsumer}: the range, read-only assignment, the end. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KafkaInputTest {

  private static final TopicPartition P0 = new TopicPartition("arrivals", 0);
  private static final TopicPartition P1 = new TopicPartition("arrivals", 1);

  private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");
  private final List<String> read = new ArrayList<>();

  KafkaInputTest() {
    Node node = new Node(0, "localhost", 9092);
    Node[] nodes = {node};
    consumer.updatePartitions(
        "arrivals",
        List.of(
            new PartitionInfo("arrivals", 0, node, nodes, nodes),
            new PartitionInfo("arrivals", 1, node, nodes, nodes)));
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    consumer.updateEndOffsets(Map.of(P0, 4L, P1, 2L));
  }

  /** Offers the partitions' records at the first poll: offsets 0..3 on P0, 0..1 on P1. */
  private void offerRecords() {
    consumer.schedulePollTask(
        () -> {
          for (long o = 0; o < 4; o++) {
            if (o >= consumer.position(P0)) {
              consumer.addRecord(record(0, o));
            }
          }
          for (long o = 0; o < 2; o++) {
            if (o >= consumer.position(P1)) {
              consumer.addRecord(record(1, o));
            }
          }
        });
  }

  private static ConsumerRecord<String, byte[]> record(int partition, long offset) {
    return new ConsumerRecord<>(
        "arrivals",
        partition,
        offset,
        1_000 * offset,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME,
        0,
        0,
        "k" + offset,
        new byte[0],
        new org.apache.kafka.common.header.internals.RecordHeaders(),
        java.util.Optional.empty());
  }

  private long readRange(Long fromOffset, Long toOffset, Progress progress) {
    offerRecords();
    return KafkaInput.read(
        consumer,
        "arrivals",
        new KafkaInput.Range(null, null, fromOffset, toOffset),
        (p, o, t, k) -> read.add(p + "/" + o + "/" + t + "/" + k),
        progress);
  }

  @Test
  void readsEveryPartitionUpToItsEndOffsetWithoutAGroup() {
    long n = readRange(null, null, Progress.off(System.err));
    assertThat(n).isEqualTo(6);
    assertThat(read)
        .containsExactlyInAnyOrder(
            "0/0/0/k0", "0/1/1000/k1", "0/2/2000/k2", "0/3/3000/k3", "1/0/0/k0", "1/1/1000/k1");
    assertThat(consumer.assignment()).containsExactlyInAnyOrder(P0, P1);
    assertThat(consumer.subscription()).isEmpty(); // assigned, not subscribed: no group
  }

  @Test
  void anOffsetRangeAppliesToEveryPartitionClampedToWhatItHolds() {
    long n = readRange(1L, 3L, Progress.off(System.err));
    assertThat(n).isEqualTo(3);
    assertThat(read).containsExactlyInAnyOrder("0/1/1000/k1", "0/2/2000/k2", "1/1/1000/k1");
  }

  @Test
  void anEmptyRangeReadsNothingAndEnds() {
    assertThat(readRange(7L, 9L, Progress.off(System.err))).isZero();
    assertThat(read).isEmpty();
  }

  @Test
  void theProgressBarCountsTheRecordsAgainstTheTotal() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    long[] now = {0}; // 0.4 s a reading: started at 0.4 s, not redrawn at 0.8 s, done at 1.2 s
    Progress bar =
        new Progress(
            new PrintStream(err, true, StandardCharsets.UTF_8), true, () -> now[0] += 400_000_000L);
    readRange(null, null, bar);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .endsWith("6/6 records (100%)  8 records/s  ETA 0s   " + System.lineSeparator());
    assertThat(bar.line(3, 1_000_000_000L)).isEqualTo("3/6 records (50%)  3 records/s  ETA 1s   ");
    assertThat(bar.line(0, 0)).isEqualTo("0/6 records (0%)  0 records/s  ETA ?   ");
  }

  @Test
  void aTopicThatDoesNotExistIsBadInput() {
    assertThatThrownBy(
            () ->
                KafkaInput.read(
                    consumer,
                    "nope",
                    new KafkaInput.Range(null, null, null, null),
                    (p, o, t, k) -> {},
                    Progress.off(System.err)))
        .isInstanceOf(InputException.class)
        .hasMessage("topic nope: not found or without partitions");
  }
}
