package io.github.lowwater.spring;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConsumerSeekAware;
import org.springframework.kafka.support.Acknowledgment;

/**
 * A member's listener: a batch listener that takes each poll whole, with the consumer, and feeds
 * the member's windows, then writes and commits ({@link Member#onPoll}); it never acknowledges, so
 * the container holds no offset to commit. Empty polls never reach a listener, so the container's
 * idle tick ({@link #onIdleContainer}, on the consumer's thread) stands in for them: an empty poll
 * for the windows, which runs the quiet-period rule, then a write and a commit. A tick that fails
 * goes to the error handler, as a failed poll does.
 */
final class MemberListener<KR, VR> implements BatchMessageListener<KR, VR>, ConsumerSeekAware {
  private final Member<KR, VR, ?, ?, ?> member;
  private final MemberErrorHandler errors;

  MemberListener(Member<KR, VR, ?, ?, ?> member, MemberErrorHandler errors) {
    this.member = member;
    this.errors = errors;
  }

  @Override
  public boolean wantsPollResult() {
    return true;
  }

  @Override
  public void onMessage(
      ConsumerRecords<KR, VR> records, Acknowledgment acknowledgment, Consumer<KR, VR> consumer) {
    member.onPoll(records); // an exception goes to the member's error handler: no seek, no ack
    errors.succeeded();
  }

  @Override
  public void onMessage(List<ConsumerRecord<KR, VR>> data) {
    throw new UnsupportedOperationException(
        "a Lowwater listener takes whole polls (wantsPollResult): this container is not set up"
            + " by the starter");
  }

  /** The container is idle: an empty poll for the windows (the quiet-period rule), then emit. */
  @Override
  public void onIdleContainer(
      Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
    try {
      member.onPoll(ConsumerRecords.empty());
      errors.succeeded();
    } catch (RuntimeException e) {
      // The windows' state stays consistent: back off and write again, as after a failed poll.
      errors.failed(e);
    }
  }

  /**
   * The container's consumer stops (its last callback, on its own thread): the member closes its
   * sink and meters there, never while the thread may still use them.
   */
  @Override
  public void unregisterSeekCallback() {
    member.close();
  }

  /** Lowwater positions the consumer itself, from the checkpoints: no seek here. */
  @Override
  public void onPartitionsAssigned(
      Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {}
}
