package io.github.lowwater.kafka;

import io.github.lowwater.window.WindowResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The rows of {@link KafkaWindows#emit(ResultSink)} whose commit has not succeeded yet: written
 * again, first, by the next {@code emit}, and dropped for a partition that is revoked meanwhile
 * (its next owner writes them from the last commit). Not thread-safe: the polling thread.
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
final class TwoPhaseEmit<K, R> {

  /** The rows taken since the last commit that succeeded, in order. */
  private final List<WindowResult<K, R>> uncommitted = new ArrayList<>();

  /**
   * Writes the uncommitted rows and {@code fresh}, then commits {@code offsets}; the rows stay
   * uncommitted if either throws.
   *
   * @return the number of rows written
   * @throws SinkException wrapping what the sink threw
   */
  int run(
      ResultSink<? super K, ? super R> sink,
      List<WindowResult<K, R>> fresh,
      Supplier<Map<TopicPartition, OffsetAndMetadata>> offsets) {
    uncommitted.addAll(fresh);
    List<WindowResult<K, R>> rows = Collections.unmodifiableList(uncommitted); // no copy per emit
    @SuppressWarnings("unchecked") // the sink takes supertypes of the rows' types
    ResultSink<K, R> typed = (ResultSink<K, R>) sink;
    try {
      typed.write(rows);
    } catch (Exception e) {
      throw new SinkException("the sink's write failed; the next emit writes its rows again", e);
    }
    try {
      typed.commit(offsets.get());
    } catch (Exception e) {
      throw new SinkException("the sink's commit failed; the next emit writes its rows again", e);
    }
    int written = uncommitted.size();
    uncommitted.clear();
    return written;
  }

  /** Drops the uncommitted rows of revoked partitions ({@code PER_PARTITION}). */
  void revoked(Collection<TopicPartition> partitions) {
    uncommitted.removeIf(r -> r.source() != null && partitions.contains(r.source()));
  }
}
