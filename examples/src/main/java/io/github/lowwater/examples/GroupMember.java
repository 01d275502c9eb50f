package io.github.lowwater.examples;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One instance of the group demo: a consumer in the demo's consumer group running the README loop
 * ({@code onPoll}, write {@code pollFinalized()} to the sink, {@code commitSync(committable
 * Offsets())}, plain {@code close()}) with {@link KafkaWindows} in its default per-partition scope.
 * At the end of the bounded input it calls {@code finishAll()} to close the last windows, writes
 * and commits them. The instance chosen as the victim instead stops committing mid-run, writes a
 * few more windows and then dies as a killed process would: no commit, no rebalance callback, no
 * {@code LeaveGroup}.
 *
 * <p>{@link #run()} runs on the instance's own thread, which alone touches the consumer and the
 * windows; the counters and {@link #owned()} may be read from any thread.
 */
final class GroupMember implements Runnable {

  private static final Duration POLL = Duration.ofMillis(100);

  final String name;
  private final String bootstrapServers;
  private final String topic;
  private final UpsertSink sink;
  private final GroupDemo.Control control;

  /** For the victim: records to read, once the group has formed, before it stops committing. */
  private final long killAfterRecords;

  private volatile KafkaWindows<String, Long, Long> windows;
  private volatile long recordsRead;
  private volatile long rowsWritten;
  private volatile long commits;
  private final Admin admin;
  private volatile long commitsRefused;
  private volatile Set<Integer> owned = Set.of();
  private volatile boolean caughtUp;
  private volatile boolean finished;
  private volatile long killedAtNanos;
  private volatile Throwable failure;

  /**
   * An instance; {@code killAfterRecords < 0} for one that runs to the end.
   *
   * @param killAfterRecords for the victim, how many records it reads before it stops committing
   *     (counted once every instance owns partitions); negative for the others
   * @param admin the demo's Admin client, through which the instance commits its processed
   *     positions to the progress group ({@link GroupDemo#progressGroup})
   */
  GroupMember(
      String name,
      String bootstrapServers,
      String topic,
      UpsertSink sink,
      GroupDemo.Control control,
      long killAfterRecords,
      Admin admin) {
    this.name = name;
    this.admin = admin;
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.sink = sink;
    this.control = control;
    this.killAfterRecords = killAfterRecords;
  }

  @Override
  public void run() {
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig());
    boolean closed = false;
    try {
      KafkaWindows<String, Long, Long> w =
          KafkaWindows.builder(GroupDemo.WINDOW, Aggregators.sumLong())
              .allowedLateness(GroupDemo.LATENESS)
              .groupWatermarkInterval(Duration.ofSeconds(1))
              .consumer(consumer)
              .progressGroup(admin, GroupDemo.progressGroup(topic), Duration.ofSeconds(1))
              .build();
      windows = w;
      Listener listener = new Listener(w.rebalanceListener());
      consumer.subscribe(List.of(topic), listener);
      boolean victim = killAfterRecords >= 0;
      boolean committing = true;
      Set<Long> windowsPastCommit = new TreeSet<>();
      long rowsPastCommit = 0;
      while (!control.aborted()) {
        ConsumerRecords<String, String> records = consumer.poll(POLL);
        recordsRead += records.count();
        w.onPoll(records, ConsumerRecord::key, r -> 1L);
        boolean atEnd = readToEnd(consumer);
        boolean finishing = !victim && atEnd && control.finishRequested();
        if (finishing) {
          w.finishAll(); // the bounded input is read: close the last windows
        }
        List<WindowResult<String, Long>> results = w.pollFinalized();
        for (WindowResult<String, Long> r : results) {
          TopicPartition tp = (TopicPartition) r.source();
          if (r.isComplete()) {
            sink.upsert(r.start(), tp.partition(), r.key(), r.value());
          } else { // records this reading lacks may belong to it: never over a complete row
            sink.insertIfAbsent(r.start(), tp.partition(), r.key(), r.value());
          }
          windowsPastCommit.add(r.start());
        }
        rowsWritten += results.size();
        rowsPastCommit += results.size();
        owned = partitions(consumer.assignment());
        caughtUp = atEnd;

        if (victim) {
          if (committing && control.groupFormed() && recordsRead >= killAfterRecords) {
            committing = false;
            control.log(
                "%s stops committing after %,d records (its last commit stands)",
                name, recordsRead);
          }
          if (!committing && (windowsPastCommit.size() >= 2 || atEnd)) {
            Set<Integer> had = owned;
            control.killed(had);
            listener.detach(); // a killed process runs no callback
            consumer.close(
                CloseOptions.groupMembershipOperation(GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
            closed = true;
            killedAtNanos = System.nanoTime();
            control.log(
                "KILL %s (partitions %s) after it wrote %,d rows of windows %s past its last"
                    + " commit:%nclose(REMAIN_IN_GROUP, timeout 0): no commit, no LeaveGroup, no"
                    + " callback%s; its in-memory windows are gone",
                name,
                GroupDemo.list(had),
                rowsPastCommit,
                GroupDemo.times(windowsPastCommit),
                listener.ignored.isEmpty()
                    ? ""
                    : " (close made " + String.join(", ", listener.ignored) + ": not passed on)");
            return;
          }
          if (!committing) {
            continue;
          }
        }
        if (commit(consumer, w)) {
          windowsPastCommit.clear();
          rowsPastCommit = 0;
          if (finishing) {
            break;
          }
        }
      }
      if (!control.aborted()) {
        finished = true;
        control.finishedAndAwaitOthers(); // leaving now would move partitions to those finishing
      }
    } catch (Throwable t) {
      failure = t;
    } finally {
      if (!closed) {
        consumer.close(); // plain close: the next owner starts from the last commit
      }
    }
  }

  /** Commits; a commit the group refuses during a rebalance is counted and left to the next. */
  private boolean commit(
      KafkaConsumer<String, String> consumer, KafkaWindows<String, Long, Long> w) {
    Map<TopicPartition, OffsetAndMetadata> offsets = w.committableOffsets();
    if (offsets.isEmpty()) {
      return true;
    }
    try {
      consumer.commitSync(offsets);
      commits++;
      return true;
    } catch (RebalanceInProgressException | CommitFailedException e) {
      commitsRefused++; // the rows are written; the next commit, or the next owner, covers them
      return false;
    }
  }

  /** Whether the input has ended and every owned partition is read to its end. */
  private boolean readToEnd(KafkaConsumer<String, String> consumer) {
    Map<TopicPartition, Long> ends = control.endOffsets();
    if (ends == null) {
      return false;
    }
    for (TopicPartition tp : consumer.assignment()) {
      if (consumer.position(tp, Duration.ofSeconds(5)) < ends.getOrDefault(tp, 0L)) {
        return false;
      }
    }
    return true;
  }

  private Properties consumerConfig() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, topic);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-" + name);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    // A dead member keeps its partitions for the session timeout: 6 s, the broker's minimum.
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "16384"); // small batches
    return p;
  }

  private static SortedSet<Integer> partitions(Collection<TopicPartition> tps) {
    SortedSet<Integer> s = new TreeSet<>();
    for (TopicPartition tp : tps) {
      s.add(tp.partition());
    }
    return Collections.unmodifiableSortedSet(s);
  }

  /** The partitions owned after the instance's last poll (at its death for the victim). */
  Set<Integer> owned() {
    return owned;
  }

  /** Whether the input has ended and every owned partition was read to its end. */
  boolean caughtUp() {
    return caughtUp;
  }

  boolean killed() {
    return killedAtNanos != 0;
  }

  long killedAtNanos() {
    return killedAtNanos;
  }

  boolean finished() {
    return finished;
  }

  Throwable failure() {
    return failure;
  }

  long recordsRead() {
    return recordsRead;
  }

  long redelivered() {
    KafkaWindows<?, ?, ?> w = windows;
    return w == null ? 0 : w.redeliveredRecords();
  }

  long late() {
    KafkaWindows<?, ?, ?> w = windows;
    return w == null ? 0 : w.stats().late();
  }

  long rowsWritten() {
    return rowsWritten;
  }

  long commits() {
    return commits;
  }

  long commitsRefused() {
    return commitsRefused;
  }

  /** The group watermark as this instance last read it. */
  long groupWatermark() {
    KafkaWindows<?, ?, ?> w = windows;
    return w == null || killed() ? WatermarkTracker.NO_WATERMARK : w.groupWatermark();
  }

  private static String list(Collection<TopicPartition> tps) {
    return GroupDemo.list(partitions(tps));
  }

  /**
   * Passes the rebalance callbacks to the windows' listener and logs the assignment changes, until
   * it is detached (the victim's death): a killed process runs no callback. Polling thread.
   */
  private final class Listener implements ConsumerRebalanceListener {
    private final ConsumerRebalanceListener windowsListener;
    private final Set<Integer> mine = new TreeSet<>();
    private boolean detached;

    /** The callbacks made after {@link #detach()}, which a dead process would not run. */
    private final List<String> ignored = new ArrayList<>();

    Listener(ConsumerRebalanceListener windowsListener) {
      this.windowsListener = windowsListener;
    }

    void detach() {
      detached = true;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (detached) {
        ignored.add("onPartitionsAssigned" + list(partitions));
        return;
      }
      windowsListener.onPartitionsAssigned(partitions);
      changed("assigned", partitions, true);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (detached) {
        ignored.add("onPartitionsRevoked" + list(partitions));
        return;
      }
      windowsListener.onPartitionsRevoked(partitions);
      changed("revoked", partitions, false);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      if (detached) {
        ignored.add("onPartitionsLost" + list(partitions));
        return;
      }
      windowsListener.onPartitionsLost(partitions);
      changed("lost", partitions, false);
    }

    private void changed(String what, Collection<TopicPartition> partitions, boolean added) {
      if (partitions.isEmpty()) {
        return; // the cooperative protocol calls onPartitionsAssigned on every rebalance
      }
      Set<Integer> p = partitions(partitions);
      if (added) {
        mine.addAll(p);
      } else {
        mine.removeAll(p);
      }
      control.log("%s %s %s, owns %s", name, what, GroupDemo.list(p), GroupDemo.list(mine));
    }
  }
}
