package io.github.lowwater.spring;

import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.window.WindowResult;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The README's loop as a sink: the application's writer, then {@code commitSync}. A commit refused
 * because the group is rebalancing, or because this member is no longer in it, is skipped, as the
 * README's loop skips it: the rows are written (idempotently), and the next commit, or the
 * partition's next owner, starts from the last commit that succeeded.
 */
final class WriteThenCommitSync<K, R> implements ResultSink<K, R> {
  private static final Logger LOG = LoggerFactory.getLogger(WriteThenCommitSync.class);

  private final RowWriter<K, R> writer;
  private final Consumer<?, ?> consumer;

  WriteThenCommitSync(RowWriter<K, R> writer, Consumer<?, ?> consumer) {
    this.writer = writer;
    this.consumer = consumer;
  }

  @Override
  public void write(List<WindowResult<K, R>> rows) throws Exception {
    writer.write(rows);
  }

  @Override
  public void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (RebalanceInProgressException | CommitFailedException e) {
      LOG.debug("commit skipped ({}): the next one, or the next owner, starts from the last", e);
    }
  }
}
