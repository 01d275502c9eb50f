package io.github.lowwater.bench;

/**
 * A source key shaped like Kafka's {@code TopicPartition}: a topic name and a partition number,
 * with the hash code computed once (as {@code TopicPartition} does). The benchmarks do not depend
 * on kafka-clients; this class stands in for it so that every contender that looks a source up by
 * key pays the same {@code hashCode}/{@code equals} as it would in a real consumer.
 */
final class TopicPartitionKey {
  private final String topic;
  private final int partition;
  private final int hash;

  TopicPartitionKey(String topic, int partition) {
    this.topic = topic;
    this.partition = partition;
    this.hash = 31 * topic.hashCode() + partition;
  }

  /**
   * The order of source keys for {@link io.github.lowwater.align.EventAligner}'s release ties:
   * topic, then partition.
   */
  static final java.util.Comparator<TopicPartitionKey> ORDER =
      java.util.Comparator.<TopicPartitionKey, String>comparing(k -> k.topic)
          .thenComparingInt(k -> k.partition);

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TopicPartitionKey)) {
      return false;
    }
    TopicPartitionKey other = (TopicPartitionKey) o;
    return partition == other.partition && topic.equals(other.topic);
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
