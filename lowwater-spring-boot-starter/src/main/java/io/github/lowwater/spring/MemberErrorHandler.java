package io.github.lowwater.spring;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * A member's error handler. When a poll fails (a write or a commit of the sink, or an exception
 * from the mapper, an aggregator or a late handler), the windows have already kept their state
 * consistent and rewound the consumer to the first record not processed; so this handler neither
 * retries the records in memory (they would be counted twice), nor seeks, nor acknowledges (the
 * container would commit the batch without checkpoints). It logs, waits the listener's back-off,
 * then writes and commits what the failure left pending (an empty poll for the windows, then {@code
 * emit}: the rows of a failed write or commit), so that they do not wait for the next poll with
 * records or the next idle tick; while that fails, it waits and tries again, for at most one idle
 * tick, then lets the container poll (rebalances, new records) and the idle tick goes on. A
 * transactional sink closed by a fatal error (its producer fenced or unauthorized) stops the
 * container: nothing more can be written.
 */
final class MemberErrorHandler implements CommonErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(MemberErrorHandler.class);

  private final Member<?, ?, ?, ?, ?> member;
  private final Duration backOff;
  private final Duration retryFor;
  private BooleanSupplier running = () -> true;
  private int failuresInARow;

  /**
   * @param member the member whose polls fail
   * @param backOff the wait before writing again
   * @param retryFor how long to go on writing again while it fails before letting the container
   *     poll: the listener's idle tick
   */
  MemberErrorHandler(Member<?, ?, ?, ?, ?> member, Duration backOff, Duration retryFor) {
    this.member = member;
    this.backOff = backOff;
    this.retryFor = retryFor;
  }

  /** Whether the container still runs: no retry once it is stopping. Set by the container. */
  void running(BooleanSupplier running) {
    this.running = running;
  }

  /** The handler positions nothing; the windows have rewound the consumer already. */
  @Override
  public boolean seeksAfterHandling() {
    return true;
  }

  /** Never: the container would commit the whole batch, without checkpoints. */
  @Override
  public boolean isAckAfterHandle() {
    return false;
  }

  @Override
  public void handleBatch(
      Exception thrown,
      ConsumerRecords<?, ?> data,
      Consumer<?, ?> consumer,
      MessageListenerContainer container,
      Runnable invokeListener) {
    failed(thrown);
  }

  /**
   * A poll or an idle tick failed: log, wait the back-off, and write again what is pending, on the
   * consumer's thread.
   */
  void failed(Exception thrown) {
    failuresInARow++;
    if (member.stopIfSinkClosedForGood(thrown)) {
      return;
    }
    if (failuresInARow == 1 || LOG.isDebugEnabled()) {
      LOG.warn(
          "{}: a poll failed; the windows kept their state and rewound the consumer; polling again"
              + " after {} (failure {} in a row)",
          member.name(),
          backOff,
          failuresInARow,
          thrown);
    } else {
      LOG.warn(
          "{}: a poll failed again ({} in a row): {}",
          member.name(),
          failuresInARow,
          thrown.toString());
    }
    writeAgainAfterBackOff();
  }

  /**
   * Waits the back-off, then feeds the windows an empty poll and emits, so that the rows a failed
   * write or commit left pending are written and committed now; repeats while that fails, for at
   * most {@code retryFor}, then returns and the container polls.
   */
  private void writeAgainAfterBackOff() {
    long deadline = System.nanoTime() + retryFor.toNanos();
    while (pause() && running.getAsBoolean()) {
      try {
        member.onPoll(ConsumerRecords.empty());
        succeeded();
        return;
      } catch (RuntimeException e) {
        failuresInARow++;
        if (member.stopIfSinkClosedForGood(e)) {
          return;
        }
        LOG.warn(
            "{}: writing again failed ({} in a row): {}",
            member.name(),
            failuresInARow,
            e.toString());
        if (System.nanoTime() - deadline >= 0) {
          return; // the container polls, and the next idle tick or poll tries again
        }
      }
    }
  }

  @Override
  public void handleOtherException(
      Exception thrown,
      Consumer<?, ?> consumer,
      MessageListenerContainer container,
      boolean batchListener) {
    LOG.warn("{}: the container reported an error outside a poll", member.name(), thrown);
    pause();
  }

  /** A poll went through: the next failure is logged in full again. */
  void succeeded() {
    failuresInARow = 0;
  }

  /** Waits the back-off; false if interrupted (the container is stopping). */
  private boolean pause() {
    try {
      Thread.sleep(backOff.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the container is stopping
      return false;
    }
  }
}
