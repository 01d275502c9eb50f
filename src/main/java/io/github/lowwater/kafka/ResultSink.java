package io.github.lowwater.kafka;

import io.github.lowwater.window.WindowResult;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A sink in two phases, driven by {@link KafkaWindows#emit(ResultSink)}: write a batch of rows,
 * then commit the offsets, with their checkpoints, as the sink's last step. Results count as
 * returned only once {@link #commit} has returned: if {@link #write} or {@link #commit} throws, the
 * next {@code emit} writes the same rows again, followed by the rows finalized since, and then
 * commits. So {@link #write} must be idempotent by (window start, partition, key), with panes by
 * (window start, partition, key, index): an upsert, as the README's loop does. A row of a partition
 * revoked before it was committed is never written again by this instance; the partition's next
 * owner writes it from the last commit.
 *
 * <p>The README loop as a sink: {@code write} upserts each row into the database (in one
 * transaction, or row by row: a write that fails part-way is written again whole), and {@code
 * commit} calls {@code consumer.commitSync(offsets)}. Nothing else may commit offsets for the group
 * meanwhile. Called on the polling thread, from {@code emit}.
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
public interface ResultSink<K, R> {

  /**
   * Writes rows: the rows of the last {@code emit} whose commit did not succeed, in order, then the
   * rows finalized since. May be empty.
   *
   * @param rows the rows, in the order they were produced; not to be kept after the call
   * @throws Exception if the write failed: nothing counts as returned, and the next {@code emit}
   *     writes the same rows again
   */
  void write(List<WindowResult<K, R>> rows) throws Exception;

  /**
   * Commits the offsets of every assigned partition that has delivered, with their checkpoints in
   * the metadata, once {@link #write} has returned: {@code consumer.commitSync(offsets)}, or in a
   * transaction, {@code sendOffsetsToTransaction} and {@code commitTransaction}.
   *
   * @param offsets partition to offset and checkpoint, as {@link KafkaWindows#committableOffsets()}
   * @throws Exception if the commit failed: the rows of this {@code emit} are written again, with
   *     the next ones, by the next {@code emit}
   */
  void commit(Map<TopicPartition, OffsetAndMetadata> offsets) throws Exception;
}
