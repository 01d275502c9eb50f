package io.github.lowwater.test;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Client settings for group tests on a {@link LowwaterBroker}: short enough timeouts that a crash
 * hands its partitions over in seconds, and the settings Lowwater's contract needs (no auto-commit,
 * reading from the earliest offset of a new group). Each method returns a new mutable map; add the
 * deserializers or serializers and anything else before creating the client.
 */
public final class GroupClients {

  /**
   * How long a member that stops heartbeating (classic protocol) or stops polling (KIP-848, see
   * {@link TestGroup#crash}) keeps its partitions: 6 s, the smallest session timeout the broker
   * accepts by default.
   */
  public static final int SESSION_TIMEOUT_MS = 6_000;

  private GroupClients() {}

  /**
   * A consumer's settings for a member of {@code groupId}.
   *
   * <ul>
   *   <li>{@code CLASSIC}: the cooperative sticky assignor, {@code session.timeout.ms} 6000 and
   *       {@code heartbeat.interval.ms} 1000. Co-partitioned tasks and {@code KafkaJoin} need a
   *       range assignor instead, which keeps partition i of every topic on one member: put {@code
   *       RangeAssignor} (classic) or {@code group.remote.assignor=range} (KIP-848) into the
   *       returned map (docs/testing.md);
   *   <li>{@code CONSUMER} (KIP-848): the session timeout is the broker's (6 s on {@link
   *       LowwaterBroker}); {@code max.poll.interval.ms} is 6000, so that a member frozen without a
   *       leave is taken out of the group after 6 s. Such a member must poll at least that often.
   * </ul>
   *
   * <p>Both: {@code enable.auto.commit=false}, {@code auto.offset.reset=earliest}.
   *
   * @param bootstrapServers the broker's address
   * @param groupId the consumer group
   * @param protocol the group protocol
   * @return a new map of the settings
   */
  public static Map<String, Object> consumer(
      String bootstrapServers, String groupId, GroupProtocol protocol) {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(protocol, "protocol");
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    config.put(
        ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name().toLowerCase(java.util.Locale.ROOT));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    if (protocol == GroupProtocol.CLASSIC) {
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
      config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
      config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    } else {
      config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, SESSION_TIMEOUT_MS);
    }
    return config;
  }

  /**
   * An idempotent producer's settings ({@code acks=all}, one request in flight), so that a retry
   * after a leadership change neither reorders a partition's records nor duplicates them: the
   * ground truth of a test is then exactly what was sent. With five requests in flight, a batch
   * refused right after a topic's creation was retried after later ones had been written, and met
   * {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until the delivery timeout.
   *
   * @param bootstrapServers the broker's address
   * @return a new map of the settings
   */
  public static Map<String, Object> producer(String bootstrapServers) {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return config;
  }
}
