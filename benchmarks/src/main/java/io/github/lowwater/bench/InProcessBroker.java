package io.github.lowwater.bench;

import io.github.lowwater.test.LowwaterBroker;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * A real single-node Kafka broker in this JVM for {@link EndToEnd}, {@link HandOver} and {@link
 * SpringHosted}: the test kit's {@link LowwaterBroker} (compiled here from its sources), with
 * Kafka's defaults for the settings the kit shortens for group tests. The benchmarks' recorded
 * figures were taken with those defaults: the KIP-848 heartbeat interval and session timeout, which
 * the hand-over times depend on, the cleanup interval of timed-out transactions, and the broker's
 * retention (the benchmarks' own topics are kept forever by their topic settings instead). Not
 * thread-safe; start and close it from one thread.
 */
final class InProcessBroker implements AutoCloseable {

  /** The kit's settings that go back to Kafka's defaults (a null value removes a setting). */
  private static final Map<String, String> KAFKA_DEFAULTS = new HashMap<>();

  static {
    for (String setting :
        List.of(
            "group.consumer.heartbeat.interval.ms",
            "group.consumer.min.heartbeat.interval.ms",
            "group.consumer.min.session.timeout.ms",
            "group.consumer.session.timeout.ms",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms",
            "log.retention.ms")) {
      KAFKA_DEFAULTS.put(setting, null);
    }
  }

  private final LowwaterBroker broker;

  private InProcessBroker(LowwaterBroker broker) {
    this.broker = broker;
  }

  /** Starts a new broker; the caller closes it. */
  static InProcessBroker start() {
    return new InProcessBroker(LowwaterBroker.start(KAFKA_DEFAULTS));
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /**
   * Creates a topic with the given number of partitions, kept forever (its record timestamps are in
   * the past, which time-based retention would delete), and waits until every partition has a
   * leader.
   */
  void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of("retention.ms", "-1", "retention.bytes", "-1"));
  }

  /**
   * Creates a topic with the given number of partitions and topic configs, and waits until every
   * partition has a leader.
   */
  void createTopic(String name, int partitions, Map<String, String> configs) {
    broker.createTopic(name, partitions, configs);
  }

  /**
   * Deletes every topic whose name starts with {@code prefix} (a Kafka Streams application's
   * changelogs after its pass), and waits until the deletion is accepted.
   */
  void deleteTopicsStartingWith(String prefix) {
    try (Admin admin = admin()) {
      List<String> names =
          admin.listTopics().names().get().stream().filter(n -> n.startsWith(prefix)).toList();
      if (!names.isEmpty()) {
        admin.deleteTopics(names).all().get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not delete the topics of " + prefix, e);
    }
  }

  Admin admin() {
    return broker.admin();
  }

  @Override
  public void close() {
    broker.close();
  }
}
