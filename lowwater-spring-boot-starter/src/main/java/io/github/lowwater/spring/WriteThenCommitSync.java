package io.github.lowwater.spring;

import io.github.lowwater.kafka.ResultSink;
import io.github.lowwater.window.WindowResult;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** The README's loop as a sink: the application's writer, then {@code commitSync}. */
final class WriteThenCommitSync<K, R> implements ResultSink<K, R> {
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
    if (!offsets.isEmpty()) {
      consumer.commitSync(offsets);
    }
  }
}
