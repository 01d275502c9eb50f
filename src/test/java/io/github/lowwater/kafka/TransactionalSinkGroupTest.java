package io.github.lowwater.kafka;

import io.github.lowwater.kafka.KafkaWindowsGroupTest.GroupRun;
import io.github.lowwater.kafka.KafkaWindowsGroupTest.Protocol;
import io.github.lowwater.test.LowwaterBroker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@link TransactionalSink} in a consumer group on the real in-process broker: the schedule of
 * {@link KafkaWindowsGroupTest} (scale 1 to 3, a rolling restart with plain {@code close()}, an
 * instance abandoned in the middle of a transaction while a replacement starts, scale 3 to 1, a
 * full restart of the group, a drain to the end with {@code finishAll}), each instance emitting
 * every poll through a sink of its own ({@code transactional.id} per instance, its input consumer
 * {@code read_committed}) to a four-partition output topic. The abandoned instance dies after its
 * transaction's rows are in the log and its offsets sent, before {@code commitTransaction} ({@code
 * DyingProducer}); the broker aborts that transaction after its 10 s timeout, and until then the
 * next owner's offset fetch waits (KIP-447's stable offsets). Proven, besides the group test's
 * checks on the group watermark and the partition counts:
 *
 * <ol>
 *   <li>a {@code read_committed} reader of the output topic sees every (window, partition, key) row
 *       exactly once, and their sums over partitions are the truth computed from the input;
 *   <li>no record was late at any instance;
 *   <li>a {@code read_uncommitted} reader sees the dead instance's rows twice (its aborted ones and
 *       the next owner's), which shows that it died between send and commit, and each of them is
 *       committed exactly once.
 * </ol>
 *
 * <p>The classic protocol's cooperative rebalances bump the group generation, so an emit in flight
 * across one has its offsets refused ({@code CommitFailedException}): aborted and written again,
 * counted as commit failures in the summary. The SIGKILL of a child JVM is in {@link
 * TransactionalSinkKillTest}.
 */
class TransactionalSinkGroupTest {

  @BeforeAll
  static void startBroker() {
    KafkaWindowsGroupTest.broker = LowwaterBroker.shared();
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void classicGroupCommitsEveryRowExactlyOnceToTheOutputTopicThroughScalingRestartsAndACrash()
      throws Exception {
    new GroupRun("group-tx-classic", Protocol.CLASSIC).transactional().runAndVerify();
  }

  /**
   * With early results every minute and a minute of grace (the pane settings of {@link
   * KafkaWindowsGroupTest#panesRun}): every pane, (row, index), is committed exactly once, the dead
   * instance's panes included, and the last pane of every row sums to the truth. A partition's new
   * owner re-reads from the commit, which with panes waits for a window's retirement, and produces
   * again the panes its predecessor had committed for the windows still open there: the sink's
   * windows drop them (semantics rule 59).
   */
  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848GroupCommitsEveryPaneExactlyOnceToTheOutputTopicThroughScalingRestartsAndACrash()
      throws Exception {
    new GroupRun("group-tx-panes-kip848", Protocol.KIP848)
        .panes(
            KafkaWindowsGroupTest.EARLY_RESULTS,
            KafkaWindowsGroupTest.GRACE,
            KafkaWindowsGroupTest.PANE_LATENESS)
        .transactional()
        .runAndVerify();
  }

  @Test
  @Execution(ExecutionMode.CONCURRENT)
  void kip848GroupCommitsEveryRowExactlyOnceToTheOutputTopicThroughScalingRestartsAndACrash()
      throws Exception {
    new GroupRun("group-tx-kip848", Protocol.KIP848).transactional().runAndVerify();
  }
}
