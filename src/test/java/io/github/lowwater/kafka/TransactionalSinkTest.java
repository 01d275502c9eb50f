package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P1;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.millis;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionalSink} over Kafka's {@link MockProducer}: the records it writes, one
 * transaction per emit with the offsets and the consumer's group metadata, and its error table
 * (abortable: abort and write the same rows again; fatal: close). The real broker, a group and a
 * killed process are in {@code TransactionalSinkGroupTest}.
 */
class TransactionalSinkTest {

  static final String OUT = "windows-out";

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));
  final MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0, P1);
  final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());

  KafkaWindows<String, Long, Long> windows(KafkaWindows.Builder<Long, Long> builder) {
    KafkaWindows<String, Long, Long> w =
        builder.allowedLateness(Duration.ZERO).clock(clock).consumer(consumer).build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0, P1));
    return w;
  }

  KafkaWindows<String, Long, Long> tumbling() {
    return windows(KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count()));
  }

  /** Feeds P0 the records that finish its window [0, 5) with a = 1: one row to emit. */
  static void finishOneWindow(KafkaWindows<String, Long, Long> w) {
    KafkaWindowsTest.feed(w, record(P0, 0, 0.5, "a"), record(P0, 1, 5.5, "b"));
  }

  static TransactionalSink.Builder<String, Long> sinkOf(KafkaWindows<String, Long, Long> w) {
    return TransactionalSink.builder(w, OUT)
        .keySerializer(new StringSerializer())
        .valueSerializer(new LongSerializer());
  }

  /** What a read_committed reader sees: the committed records, as "start end partition key=v". */
  List<String> committed() {
    List<String> rows = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : producer.history()) {
      rows.add(describe(r));
    }
    return rows;
  }

  static String describe(ProducerRecord<byte[], byte[]> r) {
    RowKey k = RowKey.parse(r.key());
    String key = new String(k.key(), StandardCharsets.UTF_8);
    String end = k.end() == RowKey.NO_END ? "-" : Long.toString((k.end() - k.start()) / 60_000);
    if (r.value() == null) {
      return (k.start() - T0.toEpochMilli()) / 60_000
          + " "
          + end
          + " p"
          + k.partition()
          + " "
          + key
          + " deleted";
    }
    long value = ByteBuffer.wrap(r.value()).getLong();
    String timing =
        new String(
            r.headers().lastHeader(RowRecords.TIMING_HEADER).value(), StandardCharsets.UTF_8);
    int index = ByteBuffer.wrap(r.headers().lastHeader(RowRecords.INDEX_HEADER).value()).getInt();
    return (k.start() - T0.toEpochMilli()) / 60_000
        + " "
        + end
        + " p"
        + k.partition()
        + " "
        + key
        + "="
        + value
        + " "
        + timing
        + "#"
        + index;
  }

  @Test
  void anEmitIsOneTransactionWithItsRowsAndItsOffsetsFencedByTheGroupMetadata() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    assertThat(producer.transactionInitialized()).isTrue();
    KafkaWindowsTest.feed(
        w, record(P0, 0, 0.5, "a"), record(P0, 1, 1, "a"), record(P0, 2, 5.5, "b"));
    KafkaWindowsTest.feed(w, record(P1, 0, 2, "c"), record(P1, 1, 6, "c"));

    assertThat(w.emit(sink)).isEqualTo(2);

    assertThat(committed()).containsExactly("0 5 p0 a=2 ON_TIME#0", "0 5 p1 c=1 ON_TIME#0");
    ProducerRecord<byte[], byte[]> first = producer.history().get(0);
    assertThat(first.topic()).isEqualTo(OUT);
    assertThat(ByteBuffer.wrap(first.headers().lastHeader(RowRecords.END_HEADER).value()).getLong())
        .isEqualTo(millis(5));
    assertThat(first.headers().lastHeader(RowRecords.FINAL_HEADER).value()).containsExactly(1);
    assertThat(RowKey.parse(first.key()).topic()).isEqualTo(P0.topic());
    assertThat(producer.commitCount()).isEqualTo(1);
    // The offsets went into the transaction, with the checkpoints, for the consumer's group.
    Map<TopicPartition, OffsetAndMetadata> sent =
        producer.consumerGroupOffsetsHistory().get(0).get(consumer.groupMetadata().groupId());
    assertThat(sent).isEqualTo(w.committableOffsets());
    assertThat(sent.get(P0).offset()).isEqualTo(2);
    assertThat(Checkpoint.parse(sent.get(P0).metadata()).writtenThroughMillis())
        .isEqualTo(millis(5.5)); // the watermark of the drain
    assertThat(sink.transactions()).isEqualTo(1);
  }

  @Test
  void anEmitThatChangesNothingCommitsNoTransactionAndOneThatMovesOnlyOffsetsCommitsThem() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    assertThat(w.emit(sink)).isZero();
    assertThat(producer.commitCount()).isZero(); // nothing read yet: no offsets
    KafkaWindowsTest.feed(w, record(P0, 0, 0.5, "a"));
    w.emit(sink); // no row, but P0 has delivered: its offsets are committed
    assertThat(producer.commitCount()).isEqualTo(1);
    w.emit(sink);
    assertThat(producer.commitCount()).isEqualTo(1); // the same offsets: no transaction
    assertThat(producer.history()).isEmpty();
  }

  @Test
  void anAbortableErrorAbortsAndTheNextEmitWritesTheSameRowsAgainThenTheNewOnes() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);
    producer.commitTransactionException = new TransactionAbortableException("abortable");
    assertThatThrownBy(() -> w.emit(sink))
        .isInstanceOf(SinkException.class)
        .hasMessageContaining("commit failed")
        .hasCauseInstanceOf(TransactionAbortableException.class);
    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.history()).isEmpty(); // a read_committed reader sees nothing
    assertThat(sink.isClosed()).isFalse();
    assertThat(sink.aborts()).isEqualTo(1);

    producer.commitTransactionException = null;
    // A stale generation (the group rebalanced) fails the offsets: abortable too.
    KafkaWindowsTest.feed(w, record(P0, 2, 10.5, "b"));
    producer.sendOffsetsToTransactionException = new CommitFailedException("stale generation");
    assertThatThrownBy(() -> w.emit(sink)).hasCauseInstanceOf(CommitFailedException.class);
    producer.sendOffsetsToTransactionException = null;
    assertThat(producer.history()).isEmpty();

    assertThat(w.emit(sink)).isEqualTo(2);
    assertThat(committed()).containsExactly("0 5 p0 a=1 ON_TIME#0", "5 5 p0 b=1 ON_TIME#0");
    assertThat(sink.aborts()).isEqualTo(2);
    assertThat(producer.commitCount()).isEqualTo(1);
  }

  /**
   * Issue 32, item 8: the class javadoc asked for {@code transaction.timeout.ms} above the longest
   * time between two emits, as if a transaction stayed open from one emit to the next, while
   * docs/kafka.md asked for it above the longest emit. The docs are right: the transaction begins
   * in {@code write} and is committed or aborted in {@code commit}, within one {@code emit}, so a
   * loop that waits between emits (a slow poll, a quiet topic) never holds one open. Guards against
   * a change that would leave one open across emits (a transaction per commit interval, say)
   * without the docs saying so.
   */
  @Test
  void noTransactionIsOpenBetweenTwoEmitsWhetherTheEmitCommittedAbortedOrHadNothingToDo() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    List<String> ended = new ArrayList<>();

    w.emit(sink); // nothing to do: none begun
    ended.add("nothing " + producer.transactionInFlight());

    finishOneWindow(w);
    w.emit(sink);
    assertThat(producer.commitCount()).isEqualTo(1); // this emit began one and committed it
    ended.add("committed " + producer.transactionInFlight());

    KafkaWindowsTest.feed(w, record(P0, 2, 10.5, "c"));
    producer.sendException = new KafkaException("the send failed");
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(SinkException.class);
    producer.sendException = null;
    ended.add("send failed " + producer.transactionInFlight());

    producer.sendOffsetsToTransactionException = new CommitFailedException("stale generation");
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(SinkException.class);
    producer.sendOffsetsToTransactionException = null;
    ended.add("offsets refused " + producer.transactionInFlight());

    producer.commitTransactionException = new TransactionAbortableException("abortable");
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(SinkException.class);
    producer.commitTransactionException = null;
    ended.add("commit refused " + producer.transactionInFlight());
    assertThat(sink.aborts()).isEqualTo(3); // each failed emit had begun one, and aborted it

    clock.advance(Duration.ofMinutes(10)); // the loop waits: nothing is open meanwhile
    w.emit(sink);
    ended.add("committed again " + producer.transactionInFlight());

    assertThat(ended)
        .containsExactly(
            "nothing false",
            "committed false",
            "send failed false",
            "offsets refused false",
            "commit refused false",
            "committed again false");
    assertThat(producer.commitCount()).isEqualTo(2);
    assertThat(committed()).containsExactly("0 5 p0 a=1 ON_TIME#0", "5 5 p0 b=1 ON_TIME#0");
  }

  @Test
  void aRowOfAPartitionRevokedAfterAnAbortIsNeverWrittenByThisInstance() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);
    KafkaWindowsTest.feed(w, record(P1, 0, 0.5, "c"), record(P1, 1, 5.5, "d"));
    producer.commitTransactionException = new KafkaException("a send failed");
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(SinkException.class);
    producer.commitTransactionException = null;
    w.rebalanceListener().onPartitionsRevoked(List.of(P0));
    assertThat(w.emit(sink)).isEqualTo(1);
    assertThat(committed()).containsExactly("0 5 p1 c=1 ON_TIME#0");
    assertThat(producer.consumerGroupOffsetsHistory().get(0).values().iterator().next())
        .containsOnlyKeys(P1);
  }

  @Test
  void aFencedProducerClosesTheSinkAndEveryLaterCallSaysWhy() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);
    producer.commitTransactionException = new ProducerFencedException("a newer producer");
    assertThatThrownBy(() -> w.emit(sink)).hasCauseInstanceOf(ProducerFencedException.class);
    assertThat(sink.isClosed()).isTrue();
    assertThat(producer.closed()).isTrue();
    assertThat(producer.transactionAborted()).isFalse(); // a fenced producer cannot abort
    assertThatThrownBy(() -> w.emit(sink))
        .isInstanceOf(SinkException.class)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed by a fatal error")
        .hasMessageContaining("ProducerFencedException")
        .hasMessageContaining("close the consumer and start again");
    assertThat(producer.history()).isEmpty();
    assertThat(sink.toString()).contains("closed by");
  }

  @Test
  void aCommitThatTimesOutHasAnUnknownOutcomeAndClosesTheSink() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);
    producer.commitTransactionException = new TimeoutException("no answer");
    assertThatThrownBy(() -> w.emit(sink)).hasCauseInstanceOf(TimeoutException.class);
    assertThat(sink.isClosed()).isTrue();
    assertThat(producer.transactionAborted()).isFalse(); // abort is not allowed after it
  }

  @Test
  void aFailedAbortIsFatal() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);
    producer.commitTransactionException = new TransactionAbortableException("abortable");
    producer.abortTransactionException = new KafkaException("the coordinator is gone");
    assertThatThrownBy(() -> w.emit(sink))
        .cause()
        .hasMessage("the coordinator is gone")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(sink.isClosed()).isTrue();
  }

  @Test
  void aCheckpointAboveTheBrokersMetadataLimitAbortsBeforeTheOffsetsAreSentAndNamesTheLimit() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).offsetMetadataMaxBytes(20).build(producer);
    finishOneWindow(w);
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> w.emit(sink));
    int length = w.committableOffsets().get(P0).metadata().length(); // as the emit found it
    assertThat(thrown)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the checkpoint of " + P0 + " is " + length + " bytes")
        .hasMessageContaining("offset.metadata.max.bytes = 20");
    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.sentOffsets()).isFalse();
    assertThat(producer.history()).isEmpty();
    assertThat(sink.isClosed()).isFalse();
  }

  @Test
  void aTransactionLeftOpenByAnErrorIsAbortedBeforeTheRowsAreWrittenAgain() {
    KafkaWindows<String, Long, Long> w = tumbling();
    DyingProducer dying = new DyingProducer(producer);
    boolean[] die = {true};
    dying.beforeCommit =
        () -> {
          if (die[0]) {
            throw new DyingProducer.Death();
          }
        };
    TransactionalSink<String, Long> sink = sinkOf(w).build(dying);
    finishOneWindow(w);
    assertThatThrownBy(() -> w.emit(sink)).isInstanceOf(DyingProducer.Death.class);
    assertThat(producer.transactionInFlight()).isTrue(); // an Error skips every handler
    die[0] = false;
    assertThat(w.emit(sink)).isEqualTo(1);
    assertThat(committed()).containsExactly("0 5 p0 a=1 ON_TIME#0"); // once, not twice
    assertThat(sink.aborts()).isEqualTo(1);
  }

  @Test
  void aFailedAbortAfterACheckpointTooLongIsFatal() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).offsetMetadataMaxBytes(20).build(producer);
    finishOneWindow(w);
    producer.abortTransactionException = new KafkaException("the coordinator is gone");
    assertThatThrownBy(() -> w.emit(sink)).cause().hasMessage("the coordinator is gone");
    assertThat(sink.isClosed()).isTrue();
  }

  @Test
  void aValueSerializerThatReturnsNullIsRefusedBeforeTheTransactionBegins() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink =
        TransactionalSink.builder(w, OUT)
            .keySerializer(new StringSerializer())
            .valueSerializer((Serializer<Long>) (topic, v) -> null)
            .build(producer);
    finishOneWindow(w);
    assertThatThrownBy(() -> w.emit(sink))
        .cause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a null value is a tombstone");
    assertThat(producer.transactionInFlight()).isFalse();
    assertThat(sink.isClosed()).isFalse();
  }

  @Test
  void aSerializerThatThrowsDoesSoBeforeTheTransactionBegins() {
    KafkaWindows<String, Long, Long> w = tumbling();
    boolean[] fail = {true};
    Serializer<Long> flaky =
        (topic, v) -> {
          if (fail[0]) {
            throw new IllegalArgumentException("cannot serialize " + v);
          }
          return new LongSerializer().serialize(topic, v);
        };
    TransactionalSink<String, Long> sink =
        TransactionalSink.builder(w, OUT)
            .keySerializer(new StringSerializer())
            .valueSerializer(flaky)
            .build(producer);
    finishOneWindow(w);
    assertThatThrownBy(() -> w.emit(sink)).hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(producer.transactionInFlight()).isFalse();
    assertThat(producer.transactionAborted()).isFalse();
    assertThat(sink.isClosed()).isFalse();
    fail[0] = false;
    assertThat(w.emit(sink)).isEqualTo(1);
    assertThat(committed()).containsExactly("0 5 p0 a=1 ON_TIME#0");
  }

  @Test
  void sessionRowsWithPanesAreKeyedByTheirStartAndAReplacedRowGetsATombstone() {
    KafkaWindows<String, Long, Long> w =
        windows(
            KafkaWindows.<Long, Long>sessions(Duration.ofMinutes(2), Aggregators.count())
                .earlyResults(Duration.ofMinutes(1))
                .grace(Duration.ofMinutes(5)));
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    KafkaWindowsTest.feed(w, record(P0, 0, 3, "a"), record(P0, 1, 4.5, "z")); // an early row of 3
    w.emit(sink);
    KafkaWindowsTest.feed(w, record(P0, 2, 1.5, "a")); // moves a's session start to 1.5
    KafkaWindowsTest.feed(w, record(P0, 3, 9, "z"));
    w.emit(sink);
    List<String> rows = committed();
    assertThat(rows).contains("3 - p0 a=1 EARLY#0", "3 - p0 a deleted");
    assertThat(rows.indexOf("3 - p0 a deleted")).isLessThan(rows.size());
    assertThat(rows.stream().filter(r -> r.startsWith("1 - p0 a=2")).count()).isPositive();
    // Sessions without panes keep their end in the key.
    KafkaWindows<String, Long, Long> plain =
        windows(KafkaWindows.<Long, Long>sessions(Duration.ofMinutes(2), Aggregators.count()));
    assertThat(plain.rowsIdentifiedByStart()).isFalse();
    assertThat(w.rowsIdentifiedByStart()).isTrue();
  }

  /**
   * Issue 32, item 12: with the window key as the record key, the session tombstones must still
   * delete the rows they replace. A reader that keeps the rows by (window key, start, partition),
   * read from the key and the headers, ends with the merged session only: were the tombstone keyed
   * or labelled otherwise than the row it deletes, the session that started at minute 3 would stay.
   */
  @Test
  void withTheWindowKeyAsRecordKeyAReplacedSessionRowIsDeletedForAReaderOfTheHeaders() {
    KafkaWindows<String, Long, Long> w =
        windows(
            KafkaWindows.<Long, Long>sessions(Duration.ofMinutes(2), Aggregators.count())
                .earlyResults(Duration.ofMinutes(1))
                .grace(Duration.ofMinutes(5)));
    TransactionalSink<String, Long> sink =
        sinkOf(w).keyFormat(RowRecords.KeyFormat.WINDOW_KEY).build(producer);
    KafkaWindowsTest.feed(w, record(P0, 0, 3, "a"), record(P0, 1, 4.5, "z")); // an early row of 3
    w.emit(sink);
    KafkaWindowsTest.feed(w, record(P0, 2, 1.5, "a")); // moves a's session start to 1.5
    KafkaWindowsTest.feed(w, record(P0, 3, 9, "z"));
    w.emit(sink);
    assertThat(producer.commitCount()).isEqualTo(2); // the same transactions as with a RowKey

    Map<String, Long> table = new java.util.TreeMap<>(); // "key start pN" -> count
    List<String> aRecords = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : producer.history()) {
      String key = new String(r.key(), StandardCharsets.UTF_8); // no RowKey.parse needed
      long start =
          ByteBuffer.wrap(r.headers().lastHeader(RowRecords.START_HEADER).value()).getLong();
      int partition =
          ByteBuffer.wrap(r.headers().lastHeader(RowRecords.PARTITION_HEADER).value()).getInt();
      String row = key + " " + (start - T0.toEpochMilli()) / 1_000 + "s p" + partition;
      if (r.value() == null) {
        table.remove(row);
      } else {
        table.put(row, ByteBuffer.wrap(r.value()).getLong());
      }
      if (key.equals("a")) {
        aRecords.add(
            row + (r.value() == null ? " deleted" : "=" + ByteBuffer.wrap(r.value()).getLong()));
      }
    }
    assertThat(aRecords).startsWith("a 180s p0=1", "a 180s p0 deleted", "a 90s p0=2");
    assertThat(table).containsKey("a 90s p0").doesNotContainKey("a 180s p0");
    assertThat(table.get("a 90s p0")).isEqualTo(2);
  }

  @Test
  void mergedRowsGoOutWithoutAPartitionAndTheOffsetsOfEveryPartition() {
    KafkaWindows<String, Long, Long> w =
        windows(
            KafkaWindows.<Long, Long>builder(Duration.ofMinutes(5), Aggregators.count())
                .resultScope(ResultScope.MERGED));
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    KafkaWindowsTest.feed(w, record(P0, 0, 0.5, "a"), record(P1, 0, 1, "a"));
    KafkaWindowsTest.feed(w, record(P0, 1, 5.5, "b"), record(P1, 1, 6, "b"));
    assertThat(w.emit(sink)).isEqualTo(1);
    assertThat(committed()).containsExactly("0 5 p-1 a=2 ON_TIME#0");
    assertThat(producer.consumerGroupOffsetsHistory().get(0).values().iterator().next())
        .containsOnlyKeys(P0, P1);
  }

  @Test
  void theBuilderRefusesSettingsThatBreakTransactionsAndNamesThem() {
    KafkaWindows<String, Long, Long> w = tumbling();
    Map<String, Object> ok = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:1"));
    assertThatThrownBy(() -> sinkOf(w, ok).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("producerConfig must set transactional.id")
        .hasMessageEndingWith(": null");
    ok.put("transactional.id", "t-1");
    for (Map.Entry<String, String> bad :
        Map.of(
                "enable.idempotence", "false",
                "acks", "1",
                "key.serializer", "org.apache.kafka.common.serialization.StringSerializer")
            .entrySet()) {
      Map<String, Object> config = new HashMap<>(ok);
      config.put(bad.getKey(), bad.getValue());
      assertThatThrownBy(() -> sinkOf(w, config).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad.getKey())
          .hasMessageEndingWith(": " + bad.getValue());
    }
    assertThatThrownBy(() -> TransactionalSink.builder(w, OUT).build(producer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("keySerializer and valueSerializer are required");
    assertThatThrownBy(() -> sinkOf(w, ok).build(producer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("build(producer) uses the producer as it is and ignores")
        .hasMessageContaining("transactional.id=t-1");
    assertThatThrownBy(() -> sinkOf(w).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("call build(producer)");
    assertThatThrownBy(() -> sinkOf(w).build(null)).hasMessage("producer");
    assertThatThrownBy(() -> TransactionalSink.builder(w, " "))
        .hasMessage("topic must not be blank: ' '");
    assertThatThrownBy(() -> TransactionalSink.builder(w, " ", ok))
        .hasMessage("topic must not be blank: ' '");
    assertThatThrownBy(() -> sinkOf(w).offsetMetadataMaxBytes(-1))
        .hasMessage("offsetMetadataMaxBytes must be >= 0: -1");
    assertThat(producer.transactionInitialized()).isFalse();
  }

  static TransactionalSink.Builder<String, Long> sinkOf(
      KafkaWindows<String, Long, Long> w, Map<String, Object> config) {
    return TransactionalSink.builder(w, OUT, config)
        .keySerializer(new StringSerializer())
        .valueSerializer(new LongSerializer());
  }

  /**
   * Issue 32, item 11: {@code build(producer)} must keep refusing a producer that {@code
   * initTransactions} refuses, and close it, now that it is public.
   */
  @Test
  void buildOverAProducerWhoseTransactionsAreInitializedAlreadyRefusesAndClosesIt() {
    KafkaWindows<String, Long, Long> w = tumbling();
    producer.initTransactions();
    assertThatThrownBy(() -> sinkOf(w).build(producer)).isInstanceOf(IllegalStateException.class);
    assertThat(producer.closed()).isTrue();
  }

  @Test
  void closeAbortsNothingWhenNoTransactionIsOpenAndIsIdempotent() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    sink.close();
    sink.close();
    assertThat(producer.closed()).isTrue();
    assertThat(producer.transactionAborted()).isFalse();
    assertThatThrownBy(() -> sink.write(List.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the transactional sink to " + OUT + " is closed");
  }

  /**
   * Issue 32, item 10: an abort after a rebalance, which every change of the group's membership can
   * cause, logged a WARN with the whole stack trace. An expected abort now logs one line, naming
   * the topic and the cause's class and message, at INFO for a rebalance and at WARN for an
   * abortable or retriable fault; an unexpected one keeps its stack trace. Reads what slf4j-simple
   * prints.
   */
  @Test
  void anExpectedAbortLogsOneLineWithoutAStackTraceAndAnUnexpectedOneKeepsIt() {
    KafkaWindows<String, Long, Long> w = tumbling();
    TransactionalSink<String, Long> sink = sinkOf(w).build(producer);
    finishOneWindow(w);

    // As KafkaProducer reports a stale generation: at commitTransaction, wrapped.
    producer.commitTransactionException =
        new KafkaException(
            "Cannot execute transactional method because we are in an error state",
            new CommitFailedException("consumer group metadata mismatch: ILLEGAL_GENERATION"));
    String rebalance = stderrOf(() -> w.emit(sink));
    assertThat(rebalance.lines())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains(" INFO ", "Transaction to " + OUT + " aborted while committing the transaction")
        .contains(
            "the group rebalanced (org.apache.kafka.clients.consumer.CommitFailedException:"
                + " consumer group metadata mismatch: ILLEGAL_GENERATION)");

    producer.commitTransactionException = new TransactionAbortableException("the broker says so");
    assertThat(stderrOf(() -> w.emit(sink)).lines())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains(" WARN ", OUT, "TransactionAbortableException: the broker says so");

    producer.commitTransactionException = new KafkaException("something nobody expected");
    String unexpected = stderrOf(() -> w.emit(sink));
    assertThat(unexpected)
        .contains(" WARN ", "aborted after an unexpected error", "something nobody expected")
        .contains("\tat "); // the stack trace
    assertThat(sink.aborts()).isEqualTo(3);
    assertThat(sink.isClosed()).isFalse();
  }

  /** Runs {@code emit}, which throws, and returns what was printed to standard error meanwhile. */
  static String stderrOf(Runnable emit) {
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertThatThrownBy(emit::run).isInstanceOf(SinkException.class);
    } finally {
      System.setErr(saved);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aRebalanceOrATransientFaultIsAnExpectedAbortAndAnythingElseIsNot() {
    CommitFailedException stale = new CommitFailedException("stale");
    assertThat(TransactionalSink.rebalanceCause(new KafkaException("wrapped", stale)))
        .isSameAs(stale);
    for (RuntimeException rebalance :
        List.of(
            new org.apache.kafka.common.errors.RebalanceInProgressException("x"),
            new org.apache.kafka.common.errors.IllegalGenerationException("x"),
            new org.apache.kafka.common.errors.UnknownMemberIdException("x"),
            new org.apache.kafka.common.errors.StaleMemberEpochException("x"))) {
      assertThat(TransactionalSink.rebalanceCause(rebalance)).isSameAs(rebalance);
    }
    TimeoutException timeout = new TimeoutException("x");
    assertThat(TransactionalSink.transientCause(new KafkaException("wrapped", timeout)))
        .isSameAs(timeout);
    assertThat(TransactionalSink.transientCause(new TransactionAbortableException("x")))
        .isInstanceOf(TransactionAbortableException.class);
    assertThat(TransactionalSink.rebalanceCause(timeout)).isNull();
    for (RuntimeException unexpected :
        List.of(
            new KafkaException("x"),
            new org.apache.kafka.common.errors.RecordTooLargeException("x"),
            new org.apache.kafka.common.errors.FencedInstanceIdException("x"))) {
      assertThat(TransactionalSink.rebalanceCause(unexpected)).isNull();
      assertThat(TransactionalSink.transientCause(unexpected)).isNull();
    }
  }

  @Test
  void theErrorTableClassifiesByTheWholeCauseChain() {
    assertThat(TransactionalSink.isFatal(new TransactionAbortableException("x"))).isFalse();
    assertThat(TransactionalSink.isFatal(new CommitFailedException("x"))).isFalse();
    assertThat(TransactionalSink.isFatal(new TimeoutException("x"))).isFalse();
    assertThat(TransactionalSink.isFatal(new KafkaException("x"))).isFalse();
    assertThat(TransactionalSink.isFatal(new ProducerFencedException("x"))).isTrue();
    assertThat(
            TransactionalSink.isFatal(
                new KafkaException("wrapped", new ProducerFencedException("x"))))
        .isTrue();
    assertThat(
            TransactionalSink.isFatal(
                new org.apache.kafka.common.errors.InvalidProducerEpochException("x")))
        .isTrue();
    assertThat(
            TransactionalSink.isFatal(
                new org.apache.kafka.common.errors.TransactionalIdAuthorizationException("x")))
        .isTrue();
    assertThat(TransactionalSink.isFatal(new IllegalStateException("x"))).isTrue();
    assertThat(TransactionalSink.isFatal(new NullPointerException("x"))).isTrue();
  }
}
