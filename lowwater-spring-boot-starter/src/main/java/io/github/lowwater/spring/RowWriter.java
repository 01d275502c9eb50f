package io.github.lowwater.spring;

import io.github.lowwater.window.WindowResult;
import java.util.List;

/**
 * Writes rows idempotently, and never a partial row over a complete one. A row whose {@link
 * WindowResult#isComplete()} is true is upserted by (window start, partition, key); a row marked
 * incomplete (records this reading lacks may belong to it: an offset reset that left no checkpoint,
 * records deleted by retention while the group was down; docs/kafka.md, "Missing records") is
 * inserted only where the table has no row yet, so that it never overwrites the complete row
 * written before (the README's loop). With panes, keep the condition on the index as well
 * (docs/kafka.md, "Sinks for early and late rows"). In SQL, one statement does both:
 *
 * <pre>{@code
 * MERGE INTO counts t
 * USING (VALUES (?, ?, ?, ?, ?)) AS r(window_start, kafka_partition, k, v, complete)
 * ON t.window_start = r.window_start AND t.kafka_partition = r.kafka_partition AND t.k = r.k
 * WHEN MATCHED AND r.complete THEN UPDATE SET v = r.v, complete = TRUE
 * WHEN NOT MATCHED THEN INSERT VALUES (r.window_start, r.kafka_partition, r.k, r.v, r.complete)
 * }</pre>
 *
 * <p>The listener commits the consumer's offsets, with their checkpoints, once it returns ({@code
 * consumer.commitSync}); if it throws, the same rows are written again, with the next ones, after
 * the back-off. Called on the consumer's thread.
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
