package io.github.lowwater.bench;

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
 * A real single-node Kafka broker in this JVM for {@link EndToEnd} and {@link HandOver}: KRaft,
 * combined broker and controller on 127.0.0.1 with free ports, its log directory (a temporary
 * directory, deleted on {@link #close()}) formatted first. A copy of the test kit's {@code
 * io.github.lowwater.test.LowwaterBroker}, kept because the benchmarks' recorded figures were taken
 * on it: it has none of the kit's consumer-group timeouts (the KIP-848 heartbeat interval among
 * them, which the hand-over times depend on): {@code EndToEnd}'s consumers have no group to time
 * out, and {@code HandOver}'s leave theirs on close, so a new member never waits for an old one.
 * Ready in a few seconds. Not thread-safe; start and close it from one thread.
 */
final class InProcessBroker implements AutoCloseable {

  private final Path logDir;
  private final KafkaRaftServer server;
  private final String bootstrapServers;

  private InProcessBroker(Path logDir, KafkaRaftServer server, String bootstrapServers) {
    this.logDir = logDir;
    this.server = server;
    this.bootstrapServers = bootstrapServers;
  }

  /** Starts a new broker; the caller closes it. */
  static InProcessBroker start() {
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
      props.put("transaction.state.log.num.partitions", "1");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      props.put("auto.create.topics.enable", "false");
      props.put("num.network.threads", "2");
      props.put("num.io.threads", "2");
      props.put("background.threads", "2");
      props.put("log.cleaner.enable", "false");
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
      InProcessBroker broker = new InProcessBroker(logDir, server, "127.0.0.1:" + brokerPort);
      broker.awaitReady(Duration.ofSeconds(60));
      return broker;
    } catch (Exception e) {
      throw new IllegalStateException("could not start the in-process Kafka broker", e);
    }
  }

  String bootstrapServers() {
    return bootstrapServers;
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
    try (Admin admin = admin()) {
      NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
      admin.createTopics(List.of(topic)).all().get();
      // Wait until every partition has a leader: producing earlier meets NOT_LEADER_OR_FOLLOWER,
      // and the retries of an idempotent producer can then fail on sequence numbers.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      // Describing it can also meet UNKNOWN_TOPIC_OR_PARTITION until its metadata has spread.
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

  /** Whether every partition of {@code name} has a leader; false while the topic is unknown. */
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

  Admin admin() {
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
