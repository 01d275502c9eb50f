package io.github.lowwater.spring;

import io.github.lowwater.window.WindowResult;
import java.util.List;

/**
 * Writes rows idempotently: an upsert by (window start, partition, key), with panes by (window
 * start, partition, key, index). The listener commits the consumer's offsets, with their
 * checkpoints, once it returns ({@code consumer.commitSync}); if it throws, the same rows are
 * written again, with the next ones, after the back-off. Called on the consumer's thread.
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
@FunctionalInterface
public interface RowWriter<K, R> {

  /**
   * Writes the rows.
   *
   * @param rows the rows, in the order they were produced; not to be kept after the call
   * @throws Exception if the write failed: nothing is committed, and the rows come again
   */
  void write(List<WindowResult<K, R>> rows) throws Exception;
}
