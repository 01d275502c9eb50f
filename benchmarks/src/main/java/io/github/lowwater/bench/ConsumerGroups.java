package io.github.lowwater.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@link HandOver} asks the broker about a consumer group, outside its timers, through one
 * {@link Admin}: the committed offsets (to prove that a measured owner committed nothing), whether
 * the group has no member left (so that a new owner's clock starts when the partition is free), the
 * end offsets of an application's changelog topics (what a Kafka Streams restore reads). Not
 * thread-safe; one thread.
 */
final class ConsumerGroups implements AutoCloseable {

  private final Admin admin;

  ConsumerGroups(InProcessBroker broker) {
    this.admin = broker.admin();
  }

  /** The committed offsets of {@code group}, with their metadata. */
  Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
    return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
  }

  /**
   * Waits until {@code group} has no member (empty, or unknown to the coordinator), polling with a
   * deadline.
   *
   * @throws IllegalStateException if it still has members after {@code timeout}
   */
  void awaitEmpty(String group, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
      GroupState state = d.groupState();
      if (d.members().isEmpty() && state != GroupState.PREPARING_REBALANCE) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            group + " still has " + d.members().size() + " members (" + state + ")");
      }
      Thread.sleep(20); // polling with a deadline
    }
  }

  /**
   * The end offsets of the changelog topics of a Kafka Streams application (every partition of the
   * topics named {@code <applicationId>-...-changelog}), by topic: the records a restore from
   * scratch reads, as no compaction runs on this broker.
   */
  Map<String, Long> changelogEnds(String applicationId) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (String topic : admin.listTopics().names().get()) {
      if (topic.startsWith(applicationId + "-") && topic.endsWith("-changelog")) {
        int partitions =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .size();
        for (int p = 0; p < partitions; p++) {
          latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
      }
    }
    Map<String, Long> ends = new HashMap<>();
    admin
        .listOffsets(latest)
        .all()
        .get()
        .forEach((tp, info) -> ends.merge(tp.topic(), info.offset(), Long::sum));
    return ends;
  }

  @Override
  public void close() {
    admin.close();
  }
}
