package io.github.lowwater.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks of a {@link KafkaJoin} on this instance: which are whole, which partitions are held,
 * and the forming of a task from its partitions' commits.
 *
 * <p>A task is formed when this instance owns both of its partitions, always from their committed
 * offsets and checkpoints (the consumer is positioned there), and dropped as soon as it loses one
 * of them. A partition whose task is not whole here is <em>held</em>: paused, nothing read,
 * computed or committed. A rewind drops every task and forms them again, which is also how a task
 * comes back after an exception. Writer thread only, except {@link #heldPartitions()} and {@link
 * #formedTasks()}.
 */
final class JoinTasks<K, L, R, O> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaJoin.class);

  private final Consumer<?, ?> consumer;
  private final String leftTopic;
  private final String rightTopic;
  private final JoinTask.Spec<K, L, R, O> spec;
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final Map<Integer, JoinTask<K, L, R, O>> tasks = new TreeMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();

  /**
   * Where a partition without a commit was first read on this instance: a rewind goes back there.
   */
  private final Map<TopicPartition, Long> bases = new HashMap<>();

  private boolean unsettled;
  private boolean countsChecked;
  private boolean warned;
  private volatile int heldPartitions;
  private volatile int formedTasks;

  JoinTasks(
      Consumer<?, ?> consumer,
      String leftTopic,
      String rightTopic,
      JoinTask.Spec<K, L, R, O> spec) {
    this.consumer = consumer;
    this.leftTopic = leftTopic;
    this.rightTopic = rightTopic;
    this.spec = spec;
  }

  void assigned(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      if (tp.topic().equals(leftTopic) || tp.topic().equals(rightTopic)) {
        assigned.add(tp);
      }
    }
    settle();
  }

  void revoked(Collection<TopicPartition> partitions) {
    assigned.removeAll(partitions);
    paused.removeAll(partitions);
    bases.keySet().removeAll(partitions);
    settle();
  }

  /** Drops every task; each is formed again from its commits. */
  void rewind() {
    tasks.clear();
    formedTasks = 0;
    settle();
  }

  /** Forms the tasks a failed forming left out (the committed offsets could not be read). */
  void settleIfNeeded() {
    if (unsettled) {
      settle();
    }
  }

  /** Whether a forming failed and is still to be done. */
  boolean unsettled() {
    return unsettled;
  }

  /** The whole task {@code tp} belongs to, or {@code null} if it is held or not formed. */
  JoinTask<K, L, R, O> task(TopicPartition tp) {
    JoinTask<K, L, R, O> task = tasks.get(tp.partition());
    return task != null && (task.left.equals(tp) || task.right.equals(tp)) ? task : null;
  }

  /** A record of a partition without a formed task was returned: read it again once formed. */
  void ignored(TopicPartition tp, long offset) {
    bases.merge(tp, offset, Math::min);
  }

  Collection<JoinTask<K, L, R, O>> all() {
    return tasks.values();
  }

  int heldPartitions() {
    return heldPartitions;
  }

  /** The tasks formed here, as of the last change; any thread. */
  int formedTasks() {
    return formedTasks;
  }

  private void settle() {
    unsettled = true;
    // A task that lost a partition goes first, whatever follows throws: nothing of it is committed.
    tasks.values().removeIf(t -> !assigned.contains(t.left) || !assigned.contains(t.right));
    formedTasks = tasks.size();
    checkPartitionCounts();
    List<Integer> toForm = new ArrayList<>();
    Set<TopicPartition> hold = new HashSet<>();
    for (TopicPartition tp : assigned) {
      TopicPartition left = new TopicPartition(leftTopic, tp.partition());
      TopicPartition right = new TopicPartition(rightTopic, tp.partition());
      if (!assigned.contains(left) || !assigned.contains(right)) {
        hold.add(tp);
      } else if (!tasks.containsKey(tp.partition()) && !toForm.contains(tp.partition())) {
        toForm.add(tp.partition());
      }
    }
    pauseAndResume(hold);
    heldPartitions = hold.size();
    if (!hold.isEmpty()) {
      warnOnce(hold);
    }
    try {
      if (!toForm.isEmpty()) {
        form(toForm); // may throw: the next poll tries again
      }
    } finally {
      formedTasks = tasks.size();
    }
    unsettled = false;
  }

  private void form(List<Integer> partitions) {
    Set<TopicPartition> parts = new HashSet<>();
    for (int i : partitions) {
      parts.add(new TopicPartition(leftTopic, i));
      parts.add(new TopicPartition(rightTopic, i));
    }
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(parts);
    for (int i : partitions) {
      TopicPartition left = new TopicPartition(leftTopic, i);
      TopicPartition right = new TopicPartition(rightTopic, i);
      OffsetAndMetadata l = committed.get(left);
      OffsetAndMetadata r = committed.get(right);
      JoinTask<K, L, R, O> task =
          new JoinTask<>(
              spec,
              left,
              start(left, l),
              checkpoint(left, l),
              right,
              start(right, r),
              checkpoint(right, r));
      tasks.put(i, task);
      LOG.debug("{} formed from commits {} and {}", task, l, r);
    }
  }

  /** Positions the consumer at the partition's commit, or where it was first read here. */
  private long start(TopicPartition tp, OffsetAndMetadata commit) {
    long offset;
    if (commit != null) {
      offset = commit.offset();
    } else {
      Long base = bases.get(tp);
      offset = base != null ? base : consumer.position(tp);
      bases.put(tp, offset);
    }
    consumer.seek(tp, offset);
    return offset;
  }

  private static JoinCheckpoint checkpoint(TopicPartition tp, OffsetAndMetadata commit) {
    if (commit == null) {
      return JoinCheckpoint.NONE;
    }
    JoinCheckpoint c = JoinCheckpoint.decode(commit.metadata());
    if (c == null) {
      LOG.warn(
          "{}: the metadata committed with offset {} is not a join checkpoint this version reads"
              + " (\"{}\"); the partition starts without one: rows of records near its start may"
              + " pair with fewer records than one reading's, or be emitted again",
          tp,
          commit.offset(),
          commit.metadata());
      return JoinCheckpoint.NONE;
    }
    return c;
  }

  private void pauseAndResume(Set<TopicPartition> hold) {
    List<TopicPartition> pause = new ArrayList<>();
    for (TopicPartition tp : hold) {
      if (paused.add(tp)) {
        pause.add(tp);
      }
    }
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition tp : new ArrayList<>(paused)) {
      if (!hold.contains(tp)) {
        paused.remove(tp);
        resume.add(tp);
      }
    }
    if (!pause.isEmpty()) {
      consumer.pause(pause);
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  private void checkPartitionCounts() {
    if (countsChecked || assigned.isEmpty()) {
      return;
    }
    List<PartitionInfo> l = consumer.partitionsFor(leftTopic);
    List<PartitionInfo> r = consumer.partitionsFor(rightTopic);
    if (l == null || r == null || l.isEmpty() || r.isEmpty()) {
      return; // not known yet: checked at the next assignment
    }
    if (l.size() != r.size()) {
      throw new IllegalStateException(
          "KafkaJoin needs topics with equal partition counts (partition i of each is one task): "
              + leftTopic
              + " has "
              + l.size()
              + ", "
              + rightTopic
              + " has "
              + r.size());
    }
    countsChecked = true;
  }

  private void warnOnce(Set<TopicPartition> hold) {
    if (warned) {
      return;
    }
    warned = true;
    LOG.warn(
        "join tasks are split across instances: this instance holds {} (paused, nothing computed"
            + " or committed) until it owns both partitions of their tasks (lowwater.partitions"
            + ".held). Use an assignor that keeps partition i of both topics together:"
            + " partition.assignment.strategy=org.apache.kafka.clients.consumer.RangeAssignor"
            + " (group.protocol=classic), or group.remote.assignor=range (group.protocol=consumer),"
            + " with every member subscribed to both topics. Logged once.",
        new TreeSet<>(hold.stream().map(TopicPartition::toString).toList()));
  }
}
