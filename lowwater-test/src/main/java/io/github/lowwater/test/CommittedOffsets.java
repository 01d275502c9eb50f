package io.github.lowwater.test;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a group has committed, read from outside it, as a lag monitor would: for asserting that
 * every commit carries a checkpoint, or that an offset never passed a record.
 */
public final class CommittedOffsets {

  private CommittedOffsets() {}

  /**
   * The group's committed offsets and their metadata, in topic-partition order.
   *
   * @param admin a client of the broker
   * @param groupId the group
   * @return each committed partition's offset and metadata; empty for an unknown group
   * @throws IllegalStateException if the broker cannot be asked (the cause says why)
   */
  public static Map<TopicPartition, OffsetAndMetadata> of(Admin admin, String groupId) {
    Objects.requireNonNull(groupId, "groupId");
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = new TreeMap<>(committedOrder());
      admin
          .listConsumerGroupOffsets(groupId)
          .partitionsToOffsetAndMetadata()
          .get()
          .forEach(
              (tp, om) -> {
                if (om != null) {
                  committed.put(tp, om);
                }
              });
      return committed;
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not read the commits of group " + groupId, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading the commits of group " + groupId, e);
    }
  }

  /**
   * The commits whose metadata does not start with {@code prefix}: for Lowwater's checkpoints,
   * {@code "lw"}; an empty map means every commit carries one.
   *
   * @param committed what {@link #of} returned
   * @param prefix the metadata's expected start
   * @return the commits that lack it
   */
  public static Map<TopicPartition, OffsetAndMetadata> withoutMetadata(
      Map<TopicPartition, OffsetAndMetadata> committed, String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    Map<TopicPartition, OffsetAndMetadata> lacking = new TreeMap<>(committedOrder());
    committed.forEach(
        (tp, om) -> {
          if (om.metadata() == null || !om.metadata().startsWith(prefix)) {
            lacking.put(tp, om);
          }
        });
    return lacking;
  }

  private static Comparator<TopicPartition> committedOrder() {
    return Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
  }
}
