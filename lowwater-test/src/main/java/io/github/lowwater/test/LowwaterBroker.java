package io.github.lowwater.test;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker in this JVM, for tests: KRaft, combined broker and controller on
 * 127.0.0.1 with free ports, its log directory formatted in a temporary directory first; ready in a
 * few seconds.
 *
 * <p>Nothing is deleted by retention, whatever the records' timestamps (a test's event times are
 * often months old; the broker's default 7-day retention would delete them within 5 minutes).
 *
 * <p>Set for group tests: the transaction state log has one partition and a transaction left open
 * by a dead producer is aborted within a second of its timeout; a member of a KIP-848 group ({@code
 * group.protocol=consumer}) that stops heartbeating loses its partitions after 6 s (the session
 * timeout is a broker setting for that protocol; its minimum is 45 s by default), and the classic
 * protocol's first rebalance does not wait. {@link GroupClients} gives the client settings that
 * match. Topics are not created automatically: {@link #createTopic}.
 *
 * <p>Either one broker per test JVM, {@link #shared()}, stopped by a shutdown hook; or {@link
 * #start()}, closed by the caller. Works with kafka_2.13 4.1.0 to 4.4.0 (this project's supported
 * range). Thread-safe.
 */
public final class LowwaterBroker implements AutoCloseable {

  private static LowwaterBroker shared;

  private final Path logDir;
  private final KafkaRaftServer server;
  private final String bootstrapServers;

  /**
   * Returns the broker of this JVM, starting it on first use; a shutdown hook stops it when the JVM
   * exits. Tests that share it use topic and group names of their own. Do not close it.
   *
   * @return the shared broker
   * @throws IllegalStateException if it cannot start
   */
  public static synchronized LowwaterBroker shared() {
    if (shared == null) {
      shared = start();
      LowwaterBroker broker = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "lowwater-broker-stop"));
    }
    return shared;
  }

  private LowwaterBroker(Path logDir, KafkaRaftServer server, String bootstrapServers) {
    this.logDir = logDir;
    this.server = server;
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * Starts a new broker, which the caller closes.
   *
   * @return the running broker
   * @throws IllegalStateException if it cannot start (the cause says why)
   */
  public static LowwaterBroker start() {
    return start(Map.of());
  }

  /**
   * Starts a new broker with some of its settings changed, which the caller closes.
   *
   * @param overrides broker settings on top of this class's; a {@code null} value removes this
   *     class's setting of that name, leaving Kafka's default (a map that allows null values, such
   *     as a {@code HashMap})
   * @return the running broker
   * @throws IllegalStateException if it cannot start (the cause says why)
   */
  public static LowwaterBroker start(Map<String, String> overrides) {
    try {
      Path logDir = Files.createTempDirectory("lowwater-kafka-");
      int brokerPort = freePort();
      int controllerPort = freePort();
      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", "1");
      props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
      props.put(
          "listeners",
          "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      props.put("log.dirs", logDir.toString());
      props.put("offsets.topic.replication.factor", "1");
      props.put("offsets.topic.num.partitions", "1");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      // Transactions (TransactionalSink): one partition of the state log is created at once, and a
      // transaction left open by a dead producer is aborted within a second of its timeout.
      props.put("transaction.state.log.num.partitions", "1");
      props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      props.put("group.consumer.heartbeat.interval.ms", "500");
      props.put("group.consumer.min.heartbeat.interval.ms", "500");
      // A crashed member of a KIP-848 group keeps its partitions for the session timeout, a broker
      // setting for that protocol (default 45 s, minimum 45 s): 6 s, as the classic tests use.
      props.put("group.consumer.min.session.timeout.ms", "6000");
      props.put("group.consumer.session.timeout.ms", "6000");
      props.put("auto.create.topics.enable", "false");
      // No deletion by retention: a test's records carry fixed event times as their timestamps,
      // often months old, and the default 7-day retention deletes such a log, active segment
      // included, at the first retention check (5 minutes after the start): a shared broker then
      // loses a test's input mid-run. Tests that want deleted records call deleteRecords.
      props.put("log.retention.ms", "-1");
      props.put("num.network.threads", "2");
      props.put("num.io.threads", "2");
      props.put("background.threads", "2");
      props.put("log.cleaner.enable", "false");
      overrides.forEach(
          (key, value) -> {
            if (value == null) {
              props.remove(key);
            } else {
              props.put(key, value);
            }
          });
      KafkaConfig config = KafkaConfig.fromProps(props, false);

      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setClusterId(Uuid.randomUuid().toString())
          .setNodeId(1)
          .addDirectory(logDir.toString())
          .setMetadataLogDirectory(logDir.toString())
          .setControllerListenerName("CONTROLLER")
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .run();

      KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
      server.startup();
      LowwaterBroker broker = new LowwaterBroker(logDir, server, "127.0.0.1:" + brokerPort);
      broker.awaitReady(Duration.ofSeconds(60));
      return broker;
    } catch (Exception e) {
      throw new IllegalStateException("could not start the in-process Kafka broker", e);
    }
  }

  /**
   * The address clients connect to.
   *
   * @return {@code 127.0.0.1:port}, for {@code bootstrap.servers}
   */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * Creates a topic and waits until every partition has a leader: producing earlier would meet
   * {@code NOT_LEADER_OR_FOLLOWER}.
   *
   * @param name the topic
   * @param partitions its partition count, at least 1
   * @throws IllegalArgumentException if {@code partitions} is below 1
   * @throws IllegalStateException if it cannot be created (for example, it exists)
   */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * Creates a topic with topic settings, such as {@code cleanup.policy}, and waits until every
   * partition has a leader.
   *
   * @param name the topic
   * @param partitions its partition count, at least 1
   * @param configs the topic's settings
   * @throws IllegalArgumentException if {@code partitions} is below 1
   * @throws IllegalStateException if it cannot be created (for example, it exists)
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
    }
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get();
      // Wait until every partition has a leader: producing earlier meets NOT_LEADER_OR_FOLLOWER,
      // and the retries of an idempotent producer can then fail on sequence numbers.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!hasLeaders(admin, name)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no leader for every partition of " + name);
        }
        Thread.sleep(50); // polling with a deadline
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not create topic " + name, e);
    }
  }

  /**
   * Whether every partition of {@code name} has a leader; false while the broker does not know the
   * topic yet (the metadata of a topic just created may lag its creation by a moment).
   */
  private static boolean hasLeaders(Admin admin, String name) throws InterruptedException {
    try {
      return admin
          .describeTopics(List.of(name))
          .allTopicNames()
          .get()
          .get(name)
          .partitions()
          .stream()
          .allMatch(p -> p.leader() != null && p.leader().id() >= 0);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false;
      }
      throw new IllegalStateException("could not describe topic " + name, e);
    }
  }

  /**
   * A new admin client of this broker, which the caller closes.
   *
   * @return the client
   */
  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return Admin.create(p);
  }

  private void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try (Admin admin = admin()) {
        if (!admin.describeCluster().nodes().get().isEmpty()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(100); // polling with a deadline
    }
    throw new IllegalStateException("broker not ready after " + timeout, last);
  }

  /** Stops the broker and deletes its log directory; the shared broker is closed by its hook. */
  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
    try (Stream<Path> paths = Files.walk(logDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }
}
