package io.github.lowwater.docs;

import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinType;
import io.github.lowwater.join.Reconciled;
import io.github.lowwater.join.Reconciliation;
import io.github.lowwater.join.Sided;
import io.github.lowwater.kafka.KafkaJoin;
import io.github.lowwater.kafka.KafkaJoinRow;
import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.LateRecordHandler;
import io.github.lowwater.kafka.ResultScope;
import io.github.lowwater.kafka.SinkException;
import io.github.lowwater.kafka.TransactionalSink;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.CalendarPeriod;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The code blocks of docs/kafka.md; see the package comment. */
@SuppressWarnings({"unused", "ResultOfMethodCallIgnored"})
final class KafkaDocSnippets {

  private KafkaDocSnippets() {}

  /** A table of rows keyed by (window, topic, partition, key). */
  interface Sink {
    void upsert(long windowStart, String topic, int partition, String key, long value);

    void insertIfAbsent(long windowStart, String topic, int partition, String key, long value);
  }

  /** A table of reconciliation rows. */
  interface ReconciliationSink {
    void upsert(
        long windowStart,
        int partition,
        String key,
        Reconciled.Status status,
        Reconciled<Long, Long> value);

    void insertIfAbsent(
        long windowStart,
        int partition,
        String key,
        Reconciled.Status status,
        Reconciled<Long, Long> value);
  }

  /** A table of join rows keyed by their id. */
  interface JoinSink {
    void upsert(String id, Object kind, Paid value);
  }

  /** A dead-letter topic. */
  interface DeadLetters {
    void send(ConsumerRecord<?, ?> record);
  }

  /** An order, parsed from a record's value. */
  record Order(String id, long amountCents) {
    static Order parse(String value) {
      String[] f = value.split(",");
      return new Order(f[0], Long.parseLong(f[1]));
    }
  }

  /** A payment, parsed from a record's value. */
  record Payment(String orderId, long amountCents) {
    static Payment parse(String value) {
      String[] f = value.split(",");
      return new Payment(f[0], Long.parseLong(f[1]));
    }
  }

  /** A join row's value: an order and its payment, or null for none. */
  record Paid(String orderId, Order order, Payment payment) {}

  static long amount(ConsumerRecord<String, String> r) {
    return Long.parseLong(r.value());
  }

  static void theLoop(
      KafkaConsumer<String, String> consumer, DeadLetters deadLetters, Sink sink, boolean running) {
    // snippet: kafka.md the loop
    KafkaWindows<String, Long, Long> windows =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
            .allowedLateness(Duration.ofMinutes(2))
            .consumer(consumer) // required: checkpoints, rewinds, heartbeats
            .lateRecordHandler(
                (record, reason, t, end, watermark) -> {
                  if (reason == LateRecordHandler.Reason.LATE) deadLetters.send(record);
                })
            .build();
    consumer.subscribe(List.of("arrival_predictions"), windows.rebalanceListener());
    try {
      while (running) {
        windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
        for (WindowResult<String, Long> w : windows.pollFinalized()) {
          TopicPartition p = (TopicPartition) w.source();
          if (w.isComplete()) {
            sink.upsert(w.start(), p.topic(), p.partition(), w.key(), w.value());
          } else { // records this reading lacks may belong to it: never over a complete row
            sink.insertIfAbsent(w.start(), p.topic(), p.partition(), w.key(), w.value());
          }
        }
        try {
          consumer.commitSync(windows.committableOffsets()); // only what the sink has
        } catch (RebalanceInProgressException | CommitFailedException e) {
          // safe to skip (below)
        }
      }
    } finally {
      consumer.close(); // safe: nothing to flush; the next owner starts from the last commit
    }
    // end snippet
  }

  static void calendarAndSliding(KafkaConsumer<String, String> consumer) {
    // snippet: kafka.md daily windows
    KafkaWindows<String, Long, Long> daily =
        KafkaWindows.builder(CalendarPeriod.days(ZoneId.of("Europe/Berlin")), Aggregators.count())
            .earlyResults(Duration.ofHours(1))
            .allowedLateness(Duration.ofMinutes(5))
            .consumer(consumer)
            .build();
    // end snippet
    // snippet: kafka.md sliding windows
    KafkaWindows<String, Long, Long> lastTenMinutes =
        KafkaWindows.sliding(Duration.ofMinutes(10), Aggregators.count())
            .allowedLateness(Duration.ofMinutes(1))
            .consumer(consumer)
            .build();
    // end snippet
  }

  static void reconciliation(
      KafkaConsumer<String, String> consumer, Duration timeout, ReconciliationSink sink) {
    // snippet: kafka.md reconciliation
    KafkaWindows<String, Sided<Long, Long>, Reconciled<Long, Long>> windows =
        KafkaWindows.builder(
                Duration.ofMinutes(1),
                Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals))
            .allowedLateness(Duration.ofMinutes(2))
            .resultScope(ResultScope.CO_PARTITIONED)
            .consumer(consumer) // partition.assignment.strategy=RangeAssignor (classic)
            .build(); // or group.remote.assignor=range (group.protocol=consumer)
    consumer.subscribe(List.of("ledger-source", "ledger-target"), windows.rebalanceListener());
    // in the loop of the README:
    windows.onPoll(
        consumer.poll(timeout),
        ConsumerRecord::key,
        r -> r.topic().equals("ledger-source") ? Sided.left(amount(r)) : Sided.right(amount(r)));
    for (WindowResult<String, Reconciled<Long, Long>> w : windows.pollFinalized()) {
      TopicPartition task = (TopicPartition) w.source(); // partition i of "ledger-source"
      if (w.isComplete()) {
        sink.upsert(w.start(), task.partition(), w.key(), w.value().status(), w.value());
      } else { // never over a complete row ("Missing records")
        sink.insertIfAbsent(w.start(), task.partition(), w.key(), w.value().status(), w.value());
      }
    }
    // end snippet
  }

  static void join(KafkaConsumer<String, String> consumer, Duration timeout, JoinSink sink) {
    // snippet: kafka.md a join
    KafkaJoin<String, Order, Payment, Paid> join =
        KafkaJoin.builder(JoinInterval.between(Duration.ZERO, Duration.ofMinutes(10)), Paid::new)
            .type(JoinType.LEFT) // unpaid orders too, once no payment can come
            .allowedLateness(Duration.ofMinutes(2))
            .topics("orders", "payments") // left, right
            .consumer(consumer) // enable.auto.commit=false; a range assignor
            .build();
    consumer.subscribe(List.of("orders", "payments"), join.rebalanceListener());
    // in the loop of the README:
    join.onPoll(
        consumer.poll(timeout),
        ConsumerRecord::key,
        r -> Order.parse(r.value()),
        r -> Payment.parse(r.value())); // the mappers take the record
    for (KafkaJoinRow<String, Paid> row : join.pollResults()) {
      sink.upsert(row.id(), row.kind(), row.value()); // id: task/leftOffset/rightOffset
    }
    consumer.commitSync(join.committableOffsets()); // catching CommitFailed, as the README does
    // end snippet
  }

  static KafkaWindows<String, Long, Long> readCommitted(KafkaConsumer<String, String> consumer) {
    return KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
        .consumer(consumer)
        .build();
  }

  static void transactionalSink(
      KafkaConsumer<String, String> consumer, String bootstrap, String hostName, boolean running) {
    // snippet: kafka.md a transactional sink
    KafkaWindows<String, Long, Long> windows =
        readCommitted(consumer); // consumer with isolation.level=read_committed
    TransactionalSink<String, Long> sink =
        TransactionalSink.builder(
                windows,
                "counts-out",
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "transactional.id",
                    "counts-" + hostName)) // one per instance, stable
            .keySerializer(new StringSerializer())
            .valueSerializer(new LongSerializer())
            .build(); // creates the producer, initTransactions()
    consumer.subscribe(List.of("arrivals"), windows.rebalanceListener());
    try {
      while (running) {
        windows.onPoll(consumer.poll(Duration.ofMillis(500)), ConsumerRecord::key, r -> 1L);
        try {
          windows.emit(sink); // begin, send the rows, sendOffsetsToTransaction, commit
        } catch (SinkException e) {
          if (sink.isClosed()) {
            throw e; // fatal: close the consumer and start again (below)
          } // abortable: aborted; the next emit writes the same rows again
        }
      }
    } finally {
      sink.close();
      consumer.close(); // the listener commits nothing: the next owner starts from the last commit
    }
    // end snippet
  }

  static void aMockProducer(KafkaWindows<String, Long, Long> windows) {
    // snippet: kafka.md a mock producer
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    TransactionalSink<String, Long> sink =
        TransactionalSink.builder(windows, "counts-out")
            .keySerializer(new StringSerializer())
            .valueSerializer(new LongSerializer())
            .build(producer);
    // ... windows.emit(sink) ...
    producer.history(); // the records of the committed transactions
    producer.consumerGroupOffsetsHistory(); // the offsets they committed, with the checkpoints
    producer.commitTransactionException = new TransactionAbortableException("x"); // an abort
    // end snippet
  }
}
