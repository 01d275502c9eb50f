package io.github.lowwater.kafka;

import io.github.lowwater.CachedClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.WindowResult;
import io.github.lowwater.window.WindowStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link ResultScope#CO_PARTITIONED}: partition {@code i} of every input topic is one {@link
 * CoPartitionedTask} with windows of its own, each partition a source of them, each record judged
 * against its own partition's watermark (semantics rule 72) and the windows closed on the task's,
 * the minimum over its partitions. Each partition keeps its own ledger, checkpoint and wall-clock
 * history as in {@code PER_PARTITION}; a checkpoint's watermark is the partition's own, restored as
 * a punctuation of its source, and a quiet-period advance of the task lifts each partition's own
 * watermark and is recorded in each one's history, so a new owner judges every re-read record as
 * the first reading did. Which tasks are whole here, and what is held, is {@link TaskHolds}'s. See
 * {@link WindowScope}.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class TaskScope<K, V, R> extends WindowScope<K, V, R> {

  private final KafkaSettings<? super V, R> settings;
  private final CachedClock clock;

  /** The tasks with a member here, by partition number, in creation order. */
  private final Map<Integer, CoPartitionedTask<K, V, R>> tasks = new LinkedHashMap<>();

  /** Each member's task. */
  private final Map<TopicPartition, CoPartitionedTask<K, V, R>> byPartition = new HashMap<>();

  /** Members of tasks torn down by a sibling's revocation: to be dropped and read again. */
  private final List<TopicPartition> orphans = new ArrayList<>();

  /** Takes each task's rows out, with the task's partition of the first topic as their source. */
  private final ResultDrain<K, V, R> drain = new ResultDrain<>();

  final TaskHolds<K, V, R> holds;

  TaskScope(KafkaSettings<? super V, R> settings, CachedClock clock) {
    this.settings = settings;
    this.clock = clock;
    this.holds = new TaskHolds<>(settings.consumer());
  }

  /** The task of an assigned member, or {@code null}. */
  CoPartitionedTask<K, V, R> taskOf(TopicPartition tp) {
    return byPartition.get(tp);
  }

  /** The tasks with a member here. */
  Collection<CoPartitionedTask<K, V, R>> tasks() {
    return tasks.values();
  }

  @Override
  PartitionState<K, V, R> newPartition(TopicPartition tp, long nowNanos) {
    CoPartitionedTask<K, V, R> task = tasks.computeIfAbsent(tp.partition(), this::newTask);
    PartitionState<K, V, R> p =
        new PartitionState<>(
            tp,
            task.windows,
            new QuietAdvance(
                settings.quietAdvanceAfterNanos(),
                settings.quietAdvanceMaxLagMillis(),
                tp,
                nowNanos),
            nowNanos);
    p.ownWatermark = true;
    task.members.add(p);
    task.held = true; // until TaskHolds finds every input topic's partition here
    if (task.rowSource == null || tp.topic().compareTo(task.rowSource.topic()) < 0) {
      task.rowSource = tp;
    }
    p.sharedWrittenThroughMillis = task.writtenThroughMillis;
    byPartition.put(tp, task);
    return p;
  }

  /**
   * A task with every input topic's partition registered as a source of its windows from the start:
   * a member restored first must not lift the task's watermark (which never moves back) past a
   * sibling registered after it, whose re-read records would then be judged against it (issue 45,
   * item 7: the order in which one rebalance restored a task's members decided which of their
   * records were late).
   */
  private CoPartitionedTask<K, V, R> newTask(int partition) {
    CoPartitionedTask<K, V, R> task =
        new CoPartitionedTask<>(partition, settings.<K, V>newWindows(clock));
    Set<String> topics = new java.util.TreeSet<>(settings.consumer().subscription());
    if (topics.isEmpty()) {
      for (TopicPartition tp : settings.consumer().assignment()) {
        topics.add(tp.topic());
      }
    }
    for (String topic : topics) {
      task.windows.register(new TopicPartition(topic, partition));
    }
    return task;
  }

  @Override
  void restored(PartitionState<K, V, R> p, Checkpoint checkpoint) {
    CoPartitionedTask<K, V, R> task = byPartition.get(p.partition);
    if (checkpoint.writtenThroughMillis() > task.writtenThroughMillis) {
      task.writtenThroughMillis = checkpoint.writtenThroughMillis();
      task.windows.markWritten(task.writtenThroughMillis);
      for (PartitionState<K, V, R> m : task.members) {
        m.sharedWrittenThroughMillis = task.writtenThroughMillis;
      }
    }
    long watermark = checkpoint.watermarkMillis();
    if (watermark != WatermarkTracker.NO_WATERMARK) {
      // Its own watermark as the previous owner had it at the committed offset, clamped as the
      // seed of PER_PARTITION is: a watermark from the future never makes live records late.
      long bound =
          TimeMath.saturatedSubtract(clock.wallMillis(), task.windows.allowedLatenessMillis());
      task.windows.punctuate(p.source, Math.min(watermark, bound));
    }
    p.windows.restoreNewestEventTime(checkpoint.frontierMillis());
    p.wallClock.restore(checkpoint.history());
  }

  @Override
  WindowStats revoked(PartitionState<K, V, R> p) {
    CoPartitionedTask<K, V, R> task = byPartition.remove(p.partition);
    if (task == null || tasks.get(task.partition) != task) {
      return PartitionTable.NO_STATS; // its task was torn down already, counters and all
    }
    task.members.remove(p);
    tasks.remove(
        task.partition); // its windows hold the sibling's records too: rebuilt from commits
    drain.dropUnreturned(task.rowSource);
    for (PartitionState<K, V, R> m : task.members) {
      byPartition.remove(m.partition);
      orphans.add(m.partition);
      holds.waitForTask(m.partition, m.firstReadOffset);
    }
    return task.windows.stats();
  }

  @Override
  List<TopicPartition> orphaned(Collection<TopicPartition> gone) {
    holds.revoked(gone);
    List<TopicPartition> taken = new ArrayList<>();
    for (TopicPartition tp : orphans) {
      if (!gone.contains(tp)) {
        taken.add(tp);
      }
    }
    orphans.clear();
    return taken;
  }

  @Override
  Map<TopicPartition, Long> settle(PartitionTable<K, V, R> table) {
    return holds.settle(tasks.values(), table.byPartition().keySet());
  }

  @Override
  boolean held(TopicPartition tp) {
    CoPartitionedTask<K, V, R> task = byPartition.get(tp);
    return holds.holds(tp) || (task != null && task.held);
  }

  @Override
  int heldPartitions() {
    return holds.heldPartitions();
  }

  /** A rewind reads whole tasks again: the members of every task a partition belongs to. */
  @Override
  Collection<TopicPartition> rewindSet(Collection<TopicPartition> partitions) {
    Set<TopicPartition> all = new java.util.LinkedHashSet<>(partitions);
    for (TopicPartition tp : partitions) {
      CoPartitionedTask<K, V, R> task = byPartition.get(tp);
      if (task != null) {
        for (PartitionState<K, V, R> m : task.members) {
          all.add(m.partition);
        }
      }
    }
    return all;
  }

  @Override
  void finishPartition(PartitionState<K, V, R> p) {
    p.windows.finish(); // the task's windows; idempotent
  }

  @Override
  void activity(PartitionState<K, V, R> p, long nowNanos) {
    p.quiet.activity(nowNanos);
  }

  /**
   * Each member's quiet-period rule, as in {@code PER_PARTITION}: a member silent for the quiet
   * period has its own watermark raised to {@code wall - allowedLateness}, recorded in its history
   * at its read position, so that its next owner replays the raise there, whatever its siblings
   * have re-read by then. A member with no record yet counts as having its task's newest watermark,
   * so that a side that never sends does not hold its task forever. The windows' idle timeout is
   * off in this scope: idleness would let the task's watermark pass a silent member by a decision
   * no checkpoint carries.
   */
  @Override
  void afterPoll(
      PartitionTable<K, V, R> table, Set<TopicPartition> paused, long nowNanos, long wall) {
    for (CoPartitionedTask<K, V, R> task : tasks.values()) {
      task.windows.refresh();
      if (task.held) {
        continue;
      }
      long newest = WatermarkTracker.NO_WATERMARK;
      for (PartitionState<K, V, R> m : task.members) {
        newest = Math.max(newest, m.judgedWatermark());
      }
      long raised = TimeMath.saturatedSubtract(wall, task.windows.allowedLatenessMillis());
      for (PartitionState<K, V, R> m : task.members) {
        long own = m.judgedWatermark();
        if (!paused.contains(m.partition)
            && m.nextOffset >= 0 // an offset to record the raise at (PollTick starts a silent one)
            && !m.behindPreviousOwner() // records it has not received yet exist: not quiet
            && own < raised
            && m.quiet.due(nowNanos, own == WatermarkTracker.NO_WATERMARK ? newest : own, wall)) {
          task.windows.punctuate(m.source, raised);
          m.wallClock.raised(m.nextOffset, raised);
          quietAdvanced(); // its own watermark moved: its next records are judged against it
        }
      }
    }
  }

  @Override
  List<WindowResult<K, R>> take(Collection<PartitionState<K, V, R>> partitions) {
    return drain.take(tasks.values());
  }

  @Override
  int drain(
      Collection<PartitionState<K, V, R>> partitions,
      PartitionResultVisitor<? super K, ? super R> visitor) {
    return drain.drain(tasks.values(), visitor);
  }

  @Override
  boolean isComplete(PartitionTable<K, V, R> table, TopicPartition tp, long startMillis) {
    CoPartitionedTask<K, V, R> task = byPartition.get(tp);
    if (task == null) {
      throw new IllegalArgumentException(
          "partition is not assigned to these windows, so no row of it is being handed out: " + tp);
    }
    return startMillis >= task.incompleteBeforeMillis();
  }

  @Override
  long incompleteRows() {
    return drain.incompleteRows();
  }

  @Override
  long seedWatermark(long newestWrittenWindowEndMillis) {
    throw new IllegalStateException(
        "seedWatermark is for resultScope(MERGED): co-partitioned tasks seed each partition"
            + " from the checkpoint committed with its offset");
  }

  @Override
  EventTimeWindows<K, V, R> windows() {
    throw new IllegalStateException(
        "windows() is for resultScope(MERGED): in CO_PARTITIONED each task has its own");
  }

  /** The minimum of the windows' watermarks; none while one has none, or none is assigned. */
  @Override
  long watermark(PartitionTable.View view) {
    return view.minWatermark();
  }

  @Override
  WindowStats stats(PartitionTable.View view) {
    return view.stats();
  }

  @Override
  int activePartitionCount(PartitionTable.View view) {
    return view.activeSources(); // one source per partition
  }
}
