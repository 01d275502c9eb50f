package io.github.lowwater.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A real producer that can die in the middle of a transaction: before {@code commitTransaction} it
 * flushes the transaction's records (so that they are in the log, as a process that dies right then
 * leaves them) and runs {@link #beforeCommit}, which may throw {@link Death} (the thread stops
 * dead, in this JVM) or block (until the process is killed). Everything else is delegated. It
 * remembers the keys sent since the transaction began: the rows a {@code read_uncommitted} reader
 * must see aborted.
 */
final class DyingProducer implements Producer<byte[], byte[]> {

  /** Thrown from {@code commitTransaction} to stop the caller's thread dead. */
  static final class Death extends Error {
    private static final long serialVersionUID = 1L;

    Death() {
      super("died between sendOffsetsToTransaction and commitTransaction", null, false, false);
    }
  }

  private final Producer<byte[], byte[]> delegate;
  private final List<ProducerRecord<byte[], byte[]>> sentInTransaction = new ArrayList<>();

  /** Runs after the flush, before the commit; the polling thread. */
  volatile Runnable beforeCommit = () -> {};

  DyingProducer(Producer<byte[], byte[]> delegate) {
    this.delegate = delegate;
  }

  /** The records sent since the transaction began. */
  synchronized List<ProducerRecord<byte[], byte[]>> sentInTransaction() {
    return List.copyOf(sentInTransaction);
  }

  @Override
  public void initTransactions() {
    delegate.initTransactions();
  }

  @Override
  public synchronized void beginTransaction() {
    sentInTransaction.clear();
    delegate.beginTransaction();
  }

  @Override
  public void sendOffsetsToTransaction(
      Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
    delegate.sendOffsetsToTransaction(offsets, groupMetadata);
  }

  @Override
  public void commitTransaction() {
    delegate.flush();
    beforeCommit.run();
    delegate.commitTransaction();
  }

  @Override
  public void abortTransaction() {
    delegate.abortTransaction();
  }

  @Override
  public void registerMetricForSubscription(KafkaMetric metric) {
    delegate.registerMetricForSubscription(metric);
  }

  @Override
  public void unregisterMetricFromSubscription(KafkaMetric metric) {
    delegate.unregisterMetricFromSubscription(metric);
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    return send(record, null);
  }

  @Override
  public synchronized Future<RecordMetadata> send(
      ProducerRecord<byte[], byte[]> record, Callback callback) {
    sentInTransaction.add(record);
    return delegate.send(record, callback);
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public List<PartitionInfo> partitionsFor(String topic) {
    return delegate.partitionsFor(topic);
  }

  @Override
  public Map<MetricName, ? extends Metric> metrics() {
    return delegate.metrics();
  }

  @Override
  public Uuid clientInstanceId(Duration timeout) {
    return delegate.clientInstanceId(timeout);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public void close(Duration timeout) {
    delegate.close(timeout);
  }
}
