package io.github.lowwater.spring;

import java.time.Duration;
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
 * and the container polls again. A transactional sink closed by a fatal error (its producer fenced
 * or unauthorized) stops the container: nothing more can be written.
 */
final class MemberErrorHandler implements CommonErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(MemberErrorHandler.class);

  private final Member<?, ?, ?, ?, ?> member;
  private final Duration backOff;
  private int failuresInARow;

  MemberErrorHandler(Member<?, ?, ?, ?, ?> member, Duration backOff) {
    this.member = member;
    this.backOff = backOff;
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
    pause();
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

  private void pause() {
    try {
      Thread.sleep(backOff.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the container is stopping
    }
  }
}
