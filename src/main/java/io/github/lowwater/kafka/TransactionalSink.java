package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.WindowResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once results to a Kafka topic: a {@link ResultSink} for {@link KafkaWindows#emit} that
 * writes each emit's rows and commits its offsets, with their checkpoints, in one Kafka transaction
 * (exactly-once v2, KIP-447): {@code beginTransaction}, a record per row, {@code
 * sendOffsetsToTransaction(offsets, consumer.groupMetadata())}, {@code commitTransaction}. A {@code
 * read_committed} reader of the output topic sees every row exactly once ({@code PER_PARTITION}),
 * however the group's membership changes and whichever instance crashes when. With panes, every
 * pane once: the windows drop the rows of the records a new owner re-reads below its predecessor's
 * read position, which the predecessor committed ({@link EventTimeWindows#replaying}). Two limits:
 * a wall-clock rule (a quiet-period advance, a clamped seed) can make a new owner's pane of a (row,
 * index) differ from its predecessor's and commit it again, with the whole value (keep the latest
 * record per key, as compaction does); and {@code MERGED} is exact with one instance, and commits
 * the panes of windows still open at its last commit again after a restart. Build the sink before
 * the first poll. No transaction spans a poll, so no rebalance callback ever meets an open one.
 *
 * <h2>The records</h2>
 *
 * <p>Each row is written as {@link RowRecords} says: a {@link RowKey} (the window's start and end,
 * the input partition, the window key's bytes), the result's bytes, the pane in headers, and before
 * a session row with panes a tombstone for each row it replaces. A compacted output topic keeps one
 * record per row, its latest pane. {@link Builder#keyFormat} with {@link
 * RowRecords.KeyFormat#WINDOW_KEY} writes the window key alone as the record key instead, and the
 * rest of the row's identity in headers: readers need no Lowwater, but compaction would collapse
 * the rows of a window key.
 *
 * <h2>Errors</h2>
 *
 * <p>Whatever fails, {@link KafkaWindows#emit} throws {@link SinkException} with the cause, and no
 * row of the failed emit counts as written:
 *
 * <ul>
 *   <li><b>Abortable</b> ({@code TransactionAbortableException}, {@code CommitFailedException} from
 *       a stale group generation, a timeout of a send or of the offsets, a failed send, and any
 *       other {@code KafkaException} not listed below): the transaction is aborted, the sink stays
 *       open, and the next {@code emit} writes the same rows again in a new transaction, then the
 *       ones finalized since. Rows of a partition revoked meanwhile are dropped: its next owner
 *       writes them from the last commit.
 *   <li><b>Fatal</b> ({@code ProducerFencedException}, {@code InvalidProducerEpochException} and
 *       every other {@code ApplicationRecoverableException}, {@code InvalidConfigurationException},
 *       authorization and authentication errors, {@code UnsupportedVersionException}, {@code
 *       OutOfOrderSequenceException}, {@code InvalidTxnStateException}, {@code
 *       IllegalStateException}, a failed abort, and a timeout or interrupt of {@code
 *       commitTransaction}, whose outcome is unknown): the producer is closed and {@link
 *       #isClosed()} turns true. Close the consumer (plain {@code close()}: the listener commits
 *       nothing) and start again, with a new consumer, windows and sink: the partitions go to their
 *       next owner from the group's committed offsets, which the output topic agrees with whether
 *       or not the last transaction committed.
 *   <li><b>A checkpoint longer than {@code offset.metadata.max.bytes}</b> (a broker setting; tell
 *       the builder if it is not the default 4,096): the transaction is aborted before the offsets
 *       are sent (inside a transaction the broker's refusal would be fatal) and the exception names
 *       the partition, the length and the limit.
 *   <li><b>A serializer that throws</b>: before the transaction begins; nothing is sent.
 * </ul>
 *
 * <h2>What the application must do</h2>
 *
 * <ul>
 *   <li>One sink, with its own {@code transactional.id}, per consumer; a stable id per instance
 *       (for example the host name) lets a restarted instance fence its dead predecessor and abort
 *       its open transaction at once instead of after {@code transaction.timeout.ms}.
 *   <li>The input consumer reads with {@code isolation.level=read_committed}: its committed offsets
 *       are then fetched stable (KIP-447), so a new owner waits for a dead owner's pending
 *       transaction to end instead of starting from an offset that the transaction then moves.
 *   <li>Nothing else commits offsets for the group: no {@code commitSync}, no auto-commit.
 *   <li>{@code transaction.timeout.ms} (default one minute) above the longest {@code emit}, from
 *       its {@code write} (which begins the transaction) to its {@code commit} (which commits or
 *       aborts it): a transaction lives only inside one {@code emit}, and none is open between two,
 *       however long the loop waits in between. The poll interval ({@code max.poll.interval.ms})
 *       above the longest turn of the loop, the {@code emit} included. (The one exception: an
 *       {@code Error} thrown inside an {@code emit}, or offsets that could not be computed, skip
 *       the abort, and the next {@code emit} aborts the transaction it left; if that comes after
 *       {@code transaction.timeout.ms}, the broker has aborted it already, and the abort may find
 *       the producer fenced: fatal.)
 *   <li>Readers of the output topic use {@code isolation.level=read_committed}.
 * </ul>
 *
 * <p>Not thread-safe: the polling thread, as {@link KafkaWindows}. Logs each aborted transaction:
 * in one line without a stack trace when the cause is expected, naming the topic and the cause's
 * class and message (at INFO a rebalance, which moves the group's generation under the offsets; at
 * WARN a {@code TransactionAbortableException} or a retriable fault such as a timeout); at WARN
 * with the stack trace any other cause; and at ERROR the fatal error that closes the sink. Starts
 * no thread of its own (the producer's I/O thread is Kafka's).
 *
 * @param <K> the window key type
 * @param <R> the result type
 */
public final class TransactionalSink<K, R> implements ResultSink<K, R>, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionalSink.class);

  /** The broker's default {@code offset.metadata.max.bytes}. */
  public static final int DEFAULT_OFFSET_METADATA_MAX_BYTES = 4096;

  private final Producer<byte[], byte[]> producer;
  private final Consumer<?, ?> consumer;
  private final String topic;
  private final RowRecords<K, R> format;
  private final int offsetMetadataMaxBytes;

  /** The records of the current write, reused. */
  private final List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();

  /** Whether a transaction is open: between a write that sent and its commit or abort. */
  private boolean inTransaction;

  /** The offsets of the last transaction that committed, to skip an emit that changes nothing. */
  private Map<TopicPartition, OffsetAndMetadata> lastCommitted = Map.of();

  /** The fatal error that closed the sink, or {@code null}. */
  private RuntimeException fatal;

  private boolean closed;
  private long transactions;
  private long aborts;

  private TransactionalSink(Builder<K, R> b, Producer<byte[], byte[]> producer) {
    this.producer = producer;
    this.consumer = b.windows.consumer();
    this.topic = b.topic;
    this.format =
        RowRecords.of(b.windows, b.topic, b.keySerializer, b.valueSerializer, b.keyFormat);
    this.offsetMetadataMaxBytes = b.offsetMetadataMaxBytes;
  }

  /**
   * Returns a builder of a sink for the rows of {@code windows}, written to {@code topic} through a
   * producer it creates from {@code producerConfig}.
   *
   * @param windows the windows whose {@code emit} this sink serves; its consumer's group metadata
   *     fences the transactions
   * @param topic the output topic
   * @param producerConfig the producer's settings: at least {@code bootstrap.servers} and {@code
   *     transactional.id}; no serializers (the sink sends bytes)
   * @param <K> the window key type
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code topic} is blank
   */
  public static <K, R> Builder<K, R> builder(
      KafkaWindows<K, ?, R> windows, String topic, Map<String, ?> producerConfig) {
    return new Builder<>(windows, topic, Objects.requireNonNull(producerConfig, "producerConfig"));
  }

  /**
   * Returns a builder of a sink for the rows of {@code windows}, written to {@code topic} through a
   * producer the caller gives to {@link Builder#build(Producer)}: Kafka's {@code MockProducer} in a
   * test of the service that uses the sink, or a producer the application creates and configures
   * itself.
   *
   * @param windows the windows whose {@code emit} this sink serves; its consumer's group metadata
   *     fences the transactions
   * @param topic the output topic
   * @param <K> the window key type
   * @param <R> the result type
   * @return a new builder, whose {@link Builder#build()} refuses to run (it has no producer
   *     settings)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code topic} is blank
   */
  public static <K, R> Builder<K, R> builder(KafkaWindows<K, ?, R> windows, String topic) {
    return new Builder<>(windows, topic, null);
  }

  @Override
  public void write(List<WindowResult<K, R>> rows) {
    requireOpen();
    // A transaction still open here was left by an Error, or by an emit whose offsets could not
    // be computed: its rows are in these rows again, so it must not commit.
    abortStale();
    serialize(rows); // a serializer that throws does so before the transaction begins
    if (records.isEmpty()) {
      return;
    }
    try {
      begin();
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r); // a failed send fails commitTransaction
      }
    } catch (RuntimeException e) {
      throw failed(e, "sending " + records.size() + " rows");
    } finally {
      records.clear();
    }
  }

  @Override
  public void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    requireOpen();
    if (!inTransaction && offsets.equals(lastCommitted)) {
      return; // no row and no offset moved: nothing to commit
    }
    try {
      requireShortMetadata(offsets);
    } catch (IllegalStateException e) {
      abortStale();
      throw e;
    }
    try {
      begin();
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
    } catch (RuntimeException e) {
      throw failed(e, "sending the offsets");
    }
    try {
      producer.commitTransaction();
    } catch (org.apache.kafka.common.errors.TimeoutException
        | org.apache.kafka.common.errors.InterruptException e) {
      // The commit may be completing: abort is not allowed, and only a retry of the same commit
      // could tell. The rows would be written again by the next emit, so the outcome must not
      // matter: close, and let the next owner start from what the group committed.
      throw fatal(e, "committing the transaction (outcome unknown)");
    } catch (RuntimeException e) {
      throw failed(e, "committing the transaction");
    }
    inTransaction = false;
    transactions++;
    lastCommitted = Map.copyOf(offsets);
  }

  /** Returns whether a fatal error (or {@link #close()}) closed the sink and its producer. */
  public boolean isClosed() {
    return closed;
  }

  /** Returns the number of transactions committed. */
  public long transactions() {
    return transactions;
  }

  /** Returns the number of transactions aborted after an abortable error. */
  public long aborts() {
    return aborts;
  }

  /**
   * Aborts an open transaction, if any, and closes the producer. Idempotent. Offsets committed so
   * far stay: the partitions' next owner starts from them.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    RuntimeException abortFailed = abort(); // a fatal error closed it already: not reached
    if (abortFailed != null && isFatal(abortFailed)) { // fenced by a newer producer, or timed out
      LOG.info(
          "The open transaction to {} could not be aborted ({}); the broker aborts it",
          topic,
          abortFailed.toString());
    } else if (abortFailed != null) {
      LOG.warn("Could not abort the open transaction to {}", topic, abortFailed);
    }
    closed = true;
    producer.close();
  }

  @Override
  public String toString() {
    return "TransactionalSink{topic="
        + topic
        + ", transactions="
        + transactions
        + ", aborts="
        + aborts
        + (fatal != null ? ", closed by " + fatal : closed ? ", closed" : "")
        + "}";
  }

  // ---------------------------------------------------------------------------------------------

  private void begin() {
    if (!inTransaction) {
      producer.beginTransaction();
      inTransaction = true;
    }
  }

  private void serialize(List<WindowResult<K, R>> rows) {
    records.clear();
    try {
      for (WindowResult<K, R> r : rows) {
        format.add(r, records);
      }
    } catch (RuntimeException e) {
      records.clear();
      throw e;
    }
  }

  private void requireShortMetadata(Map<TopicPartition, OffsetAndMetadata> offsets) {
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
      String metadata = e.getValue().metadata();
      int length = metadata == null ? 0 : metadata.getBytes(StandardCharsets.UTF_8).length;
      if (length > offsetMetadataMaxBytes) {
        throw new IllegalStateException(
            "the checkpoint of "
                + e.getKey()
                + " is "
                + length
                + " bytes, above offset.metadata.max.bytes = "
                + offsetMetadataMaxBytes
                + ": inside a transaction the broker's refusal would be fatal; the transaction"
                + " was aborted. Raise the broker's offset.metadata.max.bytes (and the builder's"
                + " offsetMetadataMaxBytes)");
      }
    }
  }

  /** Aborts after an abortable error, or closes after a fatal one; returns what to throw. */
  private RuntimeException failed(RuntimeException e, String what) {
    if (isFatal(e)) {
      return fatal(e, what);
    }
    RuntimeException abortFailed = abort();
    if (abortFailed != null) {
      abortFailed.addSuppressed(e);
      return fatal(abortFailed, what + ", then aborting");
    }
    Throwable expected = rebalanceCause(e);
    if (expected != null) { // every rebalance that meets an emit: one line, no stack trace
      LOG.info(
          "Transaction to {} aborted while {}: the group rebalanced ({}); the next emit writes its"
              + " rows again",
          topic,
          what,
          expected.toString());
    } else if ((expected = transientCause(e)) != null) {
      LOG.warn(
          "Transaction to {} aborted while {} ({}); the next emit writes its rows again",
          topic,
          what,
          expected.toString());
    } else {
      LOG.warn(
          "Transaction to {} aborted after an unexpected error while {}; the next emit writes its"
              + " rows again",
          topic,
          what,
          e);
    }
    return e;
  }

  /**
   * The cause in {@code e}'s chain that says the group's generation moved under the transaction's
   * offsets: a rebalance, expected at every change of membership (the producer reports {@code
   * ILLEGAL_GENERATION}, {@code UNKNOWN_MEMBER_ID}, {@code STALE_MEMBER_EPOCH} and {@code
   * GROUP_ID_NOT_FOUND} as {@code CommitFailedException}); or {@code null}.
   */
  static Throwable rebalanceCause(Throwable e) {
    return causeOf(
        e,
        org.apache.kafka.clients.consumer.CommitFailedException.class,
        org.apache.kafka.common.errors.RebalanceInProgressException.class,
        org.apache.kafka.common.errors.IllegalGenerationException.class,
        org.apache.kafka.common.errors.UnknownMemberIdException.class,
        org.apache.kafka.common.errors.StaleMemberEpochException.class);
  }

  /**
   * The cause in {@code e}'s chain that makes an abort expected without a rebalance: the broker
   * asked for it ({@code TransactionAbortableException}) or a fault that a retry may clear (a
   * {@code RetriableException}, such as a timeout); or {@code null}. Anything else is unexpected
   * and logged with its stack trace.
   */
  static Throwable transientCause(Throwable e) {
    return causeOf(
        e,
        org.apache.kafka.common.errors.TransactionAbortableException.class,
        org.apache.kafka.common.errors.RetriableException.class);
  }

  @SafeVarargs
  private static Throwable causeOf(Throwable e, Class<? extends Throwable>... types) {
    int depth = 0; // a cause chain may loop
    for (Throwable t = e; t != null && depth++ < 32; t = t.getCause()) {
      for (Class<? extends Throwable> type : types) {
        if (type.isInstance(t)) {
          return t;
        }
      }
    }
    return null;
  }

  private RuntimeException fatal(RuntimeException e, String what) {
    fatal = e;
    closed = true;
    inTransaction = false;
    LOG.error(
        "Transactional sink to {} closed after a fatal error while {}: close the consumer and start"
            + " again; the partitions' next owner starts from the group's committed offsets",
        topic,
        what,
        e);
    try {
      producer.close(Duration.ZERO);
    } catch (RuntimeException closeFailed) {
      e.addSuppressed(closeFailed);
    }
    return e;
  }

  /** Aborts the open transaction, if any; returns what the abort threw, or {@code null}. */
  private RuntimeException abort() {
    if (!inTransaction) {
      return null;
    }
    try {
      producer.abortTransaction();
    } catch (RuntimeException e) {
      return e;
    } finally {
      inTransaction = false;
    }
    aborts++;
    return null;
  }

  /** Aborts a transaction left open; a failed abort is fatal. */
  private void abortStale() {
    RuntimeException abortFailed = abort();
    if (abortFailed != null) {
      throw fatal(abortFailed, "aborting a transaction left open");
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(
          fatal != null
              ? "the transactional sink to "
                  + topic
                  + " was closed by a fatal error ("
                  + fatal
                  + "): close the consumer and start again with a new sink"
              : "the transactional sink to " + topic + " is closed",
          fatal);
    }
  }

  /** Whether {@code e}, or a cause of it, leaves the producer unusable (see the class comment). */
  static boolean isFatal(Throwable e) {
    int depth = 0; // a cause chain may loop
    for (Throwable t = e; t != null && depth++ < 32; t = t.getCause()) {
      if (t instanceof org.apache.kafka.common.errors.ApplicationRecoverableException
          || t instanceof org.apache.kafka.common.errors.InvalidConfigurationException
          || t instanceof org.apache.kafka.common.errors.AuthorizationException
          || t instanceof org.apache.kafka.common.errors.AuthenticationException
          || t instanceof org.apache.kafka.common.errors.UnsupportedVersionException
          || t instanceof org.apache.kafka.common.errors.UnsupportedForMessageFormatException
          || t instanceof org.apache.kafka.common.errors.OutOfOrderSequenceException
          || t instanceof org.apache.kafka.common.errors.InvalidTxnStateException
          || t instanceof IllegalStateException) {
        return true;
      }
    }
    return !(e instanceof org.apache.kafka.common.KafkaException);
  }

  /**
   * Configures a {@link TransactionalSink}. The serializers are required; every other option has a
   * default. Not thread-safe.
   *
   * @param <K> the window key type
   * @param <R> the result type
   */
  public static final class Builder<K, R> {
    private final KafkaWindows<K, ?, R> windows;
    private final String topic;

    /** The settings of the producer {@link #build()} creates; null for a given producer. */
    private final Map<String, Object> producerConfig;

    private Serializer<? super K> keySerializer;
    private Serializer<? super R> valueSerializer;
    private int offsetMetadataMaxBytes = DEFAULT_OFFSET_METADATA_MAX_BYTES;
    private RowRecords.KeyFormat keyFormat = RowRecords.KeyFormat.ROW_KEY;

    private Builder(KafkaWindows<K, ?, R> windows, String topic, Map<String, ?> producerConfig) {
      this.windows = Objects.requireNonNull(windows, "windows");
      this.topic = Objects.requireNonNull(topic, "topic");
      this.producerConfig = producerConfig == null ? null : new HashMap<>(producerConfig);
      if (topic.isBlank()) {
        throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
      }
    }

    /**
     * Sets the serializer of the window key, whose bytes end the {@link RowKey} (or are the whole
     * record key, with {@link RowRecords.KeyFormat#WINDOW_KEY}).
     *
     * @param keySerializer the serializer, configured
     * @return this builder
     * @throws NullPointerException if {@code keySerializer} is null
     */
    public Builder<K, R> keySerializer(Serializer<? super K> keySerializer) {
      this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
      return this;
    }

    /**
     * Sets the serializer of the result, the record's value.
     *
     * @param valueSerializer the serializer, configured
     * @return this builder
     * @throws NullPointerException if {@code valueSerializer} is null
     */
    public Builder<K, R> valueSerializer(Serializer<? super R> valueSerializer) {
      this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
      return this;
    }

    /**
     * Sets what the output records' key is: a {@link RowKey}, the row's whole identity (the
     * default, {@link RowRecords.KeyFormat#ROW_KEY}), or the window key alone as the key serializer
     * writes it, with the window's start, the input topic and partition in headers ({@link
     * RowRecords.KeyFormat#WINDOW_KEY}: readable without Lowwater and partitioned by the window
     * key, but a compacted topic would then keep only the latest row of each window key; read its
     * javadoc). Exactly-once and the session tombstones hold either way.
     *
     * @param keyFormat what the record key is
     * @return this builder
     * @throws NullPointerException if {@code keyFormat} is null
     */
    public Builder<K, R> keyFormat(RowRecords.KeyFormat keyFormat) {
      this.keyFormat = Objects.requireNonNull(keyFormat, "keyFormat");
      return this;
    }

    /**
     * Sets the broker's {@code offset.metadata.max.bytes}, if it is not the default 4,096: a
     * checkpoint longer than that is refused before the offsets are sent.
     *
     * @param bytes the broker's limit
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public Builder<K, R> offsetMetadataMaxBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("offsetMetadataMaxBytes must be >= 0: " + bytes);
      }
      this.offsetMetadataMaxBytes = bytes;
      return this;
    }

    /**
     * Creates the producer and initializes its transactions ({@code initTransactions}, which fences
     * an earlier producer with the same {@code transactional.id} and aborts its open transaction).
     *
     * @return the sink, owning the producer
     * @throws IllegalStateException if a serializer is missing, or if the builder has no producer
     *     settings ({@link TransactionalSink#builder(KafkaWindows, String)}: use {@link
     *     #build(Producer)})
     * @throws IllegalArgumentException if the producer settings lack {@code transactional.id}, turn
     *     idempotence off, set {@code acks} other than {@code all}, or set serializers
     */
    public TransactionalSink<K, R> build() {
      if (producerConfig == null) {
        throw new IllegalStateException(
            "build() creates the producer from producerConfig, which this builder has none of:"
                + " call build(producer), or start from TransactionalSink.builder(windows, topic,"
                + " producerConfig)");
      }
      checkSettings();
      Producer<byte[], byte[]> producer =
          new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
      return initialized(producer);
    }

    /**
     * Builds the sink over a producer the caller created: for tests of a service that uses the sink
     * (Kafka's {@code MockProducer}), and for callers that manage their own producer. Start from
     * {@link TransactionalSink#builder(KafkaWindows, String)}: the producer is used as it is, so
     * the builder takes no producer settings. The producer must be transactional (a {@code
     * KafkaProducer} with a {@code transactional.id}, idempotence on and {@code acks=all}, the
     * settings {@link #build()} checks and this method cannot see), must take bytes (the sink
     * serializes with the builder's serializers), and must not have called {@code
     * initTransactions}: this method calls it, which fences an earlier producer with the same
     * {@code transactional.id}. The sink then owns the producer: {@link TransactionalSink#close()}
     * and a fatal error close it. With a {@code MockProducer}, create it with {@code autoComplete}
     * true and byte-array serializers; after an {@code emit}, its {@code history()} holds the
     * records of the committed transactions and {@code consumerGroupOffsetsHistory()} the offsets
     * they committed.
     *
     * <pre>{@code
     * MockProducer<byte[], byte[]> producer =
     *     new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
     * TransactionalSink<String, Long> sink =
     *     TransactionalSink.builder(windows, "counts-out")
     *         .keySerializer(new StringSerializer())
     *         .valueSerializer(new LongSerializer())
     *         .build(producer);
     * }</pre>
     *
     * @param producer a transactional producer of bytes, on which {@code initTransactions} has not
     *     been called
     * @return the sink, owning the producer
     * @throws NullPointerException if {@code producer} is null
     * @throws IllegalStateException if a serializer is missing, or if the builder was given
     *     producer settings (they would be ignored); the producer is then left untouched. Also if
     *     {@code initTransactions} refuses the producer (a {@code KafkaProducer} without {@code
     *     transactional.id}, or one whose transactions were initialized already); the producer is
     *     then closed
     * @throws org.apache.kafka.common.KafkaException if {@code initTransactions} fails otherwise
     *     (fenced, timed out, not authorized); the producer is then closed
     */
    public TransactionalSink<K, R> build(Producer<byte[], byte[]> producer) {
      Objects.requireNonNull(producer, "producer");
      if (producerConfig != null && !producerConfig.isEmpty()) {
        throw new IllegalStateException(
            "build(producer) uses the producer as it is and ignores producerConfig: start from"
                + " TransactionalSink.builder(windows, topic), without producer settings: "
                + producerConfig);
      }
      return initialized(producer);
    }

    private TransactionalSink<K, R> initialized(Producer<byte[], byte[]> producer) {
      requireSerializers();
      try {
        producer.initTransactions();
      } catch (RuntimeException e) {
        producer.close(Duration.ZERO);
        throw e;
      }
      windows.dropRowsOfReplayedRecords(); // committed with the predecessor's checkpoint
      return new TransactionalSink<>(this, producer);
    }

    private void requireSerializers() {
      if (keySerializer == null || valueSerializer == null) {
        throw new IllegalStateException(
            "keySerializer and valueSerializer are required: the record key is a RowKey ending"
                + " with the window key's bytes, and the value is the result's bytes");
      }
    }

    private void checkSettings() {
      requireSerializers();
      Object id = producerConfig.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
      if (id == null || id.toString().isBlank()) {
        throw new IllegalArgumentException(
            "producerConfig must set transactional.id, one per consumer instance (a stable one,"
                + " such as the host name, fences a dead predecessor at once): "
                + id);
      }
      Object idempotence = producerConfig.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
      if (idempotence != null && !Boolean.parseBoolean(idempotence.toString())) {
        throw new IllegalArgumentException(
            "producerConfig must not turn enable.idempotence off: transactions need it: "
                + idempotence);
      }
      Object acks = producerConfig.get(ProducerConfig.ACKS_CONFIG);
      if (acks != null && !acks.toString().equals("all") && !acks.toString().equals("-1")) {
        throw new IllegalArgumentException(
            "producerConfig must leave acks at all: transactions need it: " + acks);
      }
      for (String s :
          List.of(
              ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
              ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
        if (producerConfig.containsKey(s)) {
          throw new IllegalArgumentException(
              "producerConfig must not set "
                  + s
                  + ": the sink sends bytes; set keySerializer and valueSerializer on the builder: "
                  + producerConfig.get(s));
        }
      }
    }
  }
}
