package io.github.lowwater.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which {@link CoPartitionedTask}s are whole on this instance (semantics rule 73). A task is whole
 * when partition {@code i} of every input topic (the consumer's subscription, or without one the
 * topics assigned) is assigned here; a task that is not is <em>held</em>: its partitions are paused
 * and nothing of it is read, so that no row is computed from one side alone as if both were there,
 * until this instance has it whole (it then reads every member from its commit) or loses the rest.
 * The partitions of a task torn down by a sibling's revocation wait here, paused, to be read again
 * from their commits. Checks at each assignment that the input topics have equal partition counts.
 * Logs once at WARN, naming the assignor settings that keep tasks whole. Not thread-safe: the
 * polling thread; {@link #heldPartitions()} from any thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class TaskHolds<K, V, R> {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaWindows.class);

  private final Consumer<?, ?> consumer;

  /** Partitions this paused to hold their task; only these does it resume. */
  private final Set<TopicPartition> paused = new HashSet<>();

  /**
   * Members of torn-down tasks, still assigned, dropped from the windows: each with the first
   * offset its dropped state had read (-1: none), where it resumes when it has no commit.
   */
  private final Map<TopicPartition, Long> waiting = new LinkedHashMap<>();

  /** The topic set whose partition counts were last checked. */
  private Set<String> checkedTopics = Set.of();

  private boolean warned;

  private volatile int heldPartitions;

  TaskHolds(Consumer<?, ?> consumer) {
    this.consumer = consumer;
  }

  /** Notes members of a torn-down task: paused until their task is whole here again. */
  void waitForTask(TopicPartition tp, long firstReadOffset) {
    waiting.put(tp, firstReadOffset);
  }

  /**
   * Forgets revoked partitions (or rewound ones, read again from their commits): no longer waiting,
   * and resumed if this paused them and the consumer still holds them (a consumer forgets the pause
   * of a partition it loses; one given back in the same rebalance starts unpaused).
   */
  void revoked(Collection<TopicPartition> partitions) {
    List<TopicPartition> resume = new ArrayList<>();
    Set<TopicPartition> assignment = null;
    for (TopicPartition tp : partitions) {
      waiting.remove(tp);
      if (paused.remove(tp)) {
        if (assignment == null) {
          assignment = consumer.assignment();
        }
        if (assignment.contains(tp)) {
          resume.add(tp);
        }
      }
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  /**
   * Decides, after an assignment change, which tasks are whole: holds the others (pauses their
   * partitions), releases those that became whole (resumes them), and returns the waiting
   * partitions of whole tasks, to be read again from their commits (with the offset to resume from
   * when they have none). The caller registers them and calls again.
   *
   * @param tasks the tasks with a member here
   * @param assigned the partitions the windows hold
   * @throws IllegalStateException if the input topics' partition counts differ
   */
  Map<TopicPartition, Long> settle(
      Collection<CoPartitionedTask<K, V, R>> tasks, Collection<TopicPartition> assigned) {
    Set<String> topics = inputTopics(assigned);
    checkPartitionCounts(topics);
    Set<TopicPartition> owned = new HashSet<>(assigned);
    owned.addAll(waiting.keySet());
    Map<TopicPartition, Long> ready = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, Long> w : waiting.entrySet()) {
      if (whole(w.getKey().partition(), topics, owned)) {
        ready.put(w.getKey(), w.getValue());
      }
    }
    ready.keySet().forEach(waiting::remove);
    List<TopicPartition> pause = new ArrayList<>(waiting.keySet());
    List<TopicPartition> resume = new ArrayList<>();
    String firstTopic = topics.isEmpty() ? null : new TreeSet<>(topics).first();
    for (CoPartitionedTask<K, V, R> task : tasks) {
      boolean isWhole = whole(task.partition, topics, owned) && !anyReady(task, ready);
      task.held = !isWhole;
      for (PartitionState<K, V, R> m : task.members) {
        (isWhole ? resume : pause).add(m.partition);
      }
      if (isWhole) {
        task.rowSource = new TopicPartition(firstTopic, task.partition);
      } else if (!whole(task.partition, topics, owned)) {
        warnOnce(task, topics, owned);
      }
    }
    apply(pause, resume);
    int held = 0;
    for (CoPartitionedTask<K, V, R> task : tasks) {
      held += task.held ? task.members.size() : 0;
    }
    heldPartitions = held + waiting.size();
    return ready;
  }

  /** Whether a waiting partition of the task is about to be read again: it is whole only then. */
  private static boolean anyReady(CoPartitionedTask<?, ?, ?> task, Map<TopicPartition, Long> r) {
    for (TopicPartition tp : r.keySet()) {
      if (tp.partition() == task.partition) {
        return true;
      }
    }
    return false;
  }

  private static boolean whole(int partition, Set<String> topics, Set<TopicPartition> owned) {
    for (String topic : topics) {
      if (!owned.contains(new TopicPartition(topic, partition))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The subscription, or without one (partitions assigned by hand) the topics of the consumer's
   * assignment and of the partitions the windows hold.
   */
  private Set<String> inputTopics(Collection<TopicPartition> assigned) {
    Set<String> subscription = consumer.subscription();
    if (!subscription.isEmpty()) {
      return subscription;
    }
    Set<String> topics = new TreeSet<>();
    for (TopicPartition tp : consumer.assignment()) {
      topics.add(tp.topic());
    }
    for (TopicPartition tp : assigned) {
      topics.add(tp.topic());
    }
    for (TopicPartition tp : waiting.keySet()) {
      topics.add(tp.topic());
    }
    return topics;
  }

  /** Partition {@code i} of each topic is one task: the counts must be equal (known ones only). */
  private void checkPartitionCounts(Set<String> topics) {
    if (topics.equals(checkedTopics) || topics.size() < 2) {
      return;
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String topic : new TreeSet<>(topics)) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic);
      if (partitions != null && !partitions.isEmpty()) {
        counts.put(topic, partitions.size());
      }
    }
    if (counts.values().stream().distinct().count() > 1) {
      throw new IllegalStateException(
          "resultScope(CO_PARTITIONED) needs input topics with equal partition counts (partition"
              + " i of each is one task): "
              + counts);
    }
    checkedTopics = Set.copyOf(topics);
  }

  private void warnOnce(
      CoPartitionedTask<K, V, R> task, Set<String> topics, Set<TopicPartition> o) {
    if (warned) {
      return;
    }
    warned = true;
    List<TopicPartition> missing = new ArrayList<>();
    for (String topic : new TreeSet<>(topics)) {
      TopicPartition tp = new TopicPartition(topic, task.partition);
      if (!o.contains(tp)) {
        missing.add(tp);
      }
    }
    LOG.warn(
        "{} is split across instances: this instance has {} but not {}; its partitions are held"
            + " (paused, nothing computed or committed) until one instance owns the whole task"
            + " (lowwater.partitions.held). Use an assignor that keeps partition i of every input"
            + " topic together: partition.assignment.strategy="
            + "org.apache.kafka.clients.consumer.RangeAssignor (group.protocol=classic), or"
            + " group.remote.assignor=range (group.protocol=consumer), with every member"
            + " subscribed to the same topics. Logged once.",
        task,
        task.members.stream().map(m -> m.partition).toList(),
        missing);
  }

  private void apply(List<TopicPartition> pause, List<TopicPartition> resume) {
    Set<TopicPartition> assignment = consumer.assignment();
    List<TopicPartition> toPause = new ArrayList<>();
    for (TopicPartition tp : pause) {
      if (assignment.contains(tp) && paused.add(tp)) {
        toPause.add(tp);
      }
    }
    List<TopicPartition> toResume = new ArrayList<>();
    for (TopicPartition tp : resume) {
      if (paused.remove(tp) && assignment.contains(tp)) {
        toResume.add(tp);
      }
    }
    if (!toPause.isEmpty()) {
      consumer.pause(toPause);
    }
    if (!toResume.isEmpty()) {
      consumer.resume(toResume);
    }
  }

  /** Whether this paused the partition to hold its task. */
  boolean holds(TopicPartition tp) {
    return paused.contains(tp) || waiting.containsKey(tp);
  }

  /** The partitions held: of tasks not whole here, or waiting to be read again. Any thread. */
  int heldPartitions() {
    return heldPartitions;
  }
}
