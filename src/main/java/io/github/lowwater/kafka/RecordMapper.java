package io.github.lowwater.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Maps one record to its event time, window key and value in one call, so that a payload is parsed
 * once. Allocation-free: the mapper hands the three to a reused {@link Output} instead of returning
 * an object.
 *
 * <pre>{@code
 * windows.onPoll(records, (record, out) -> {
 *   Arrival a = Arrival.parse(record.value());   // parsed once
 *   out.emit(a.predictedAtMillis(), a.stopId(), 1L);
 * });
 * }</pre>
 *
 * @param <KR> the record key type
 * @param <VR> the record value type
 * @param <K> the window key type
 * @param <V> the value type folded by the aggregator
 */
@FunctionalInterface
public interface RecordMapper<KR, VR, K, V> {

  /**
   * Maps a record: call one of {@code out.emit(...)}, {@code out.observe(...)} or {@code
   * out.punctuate(...)} once (if several, the last one counts). Not calling any, or emitting a
   * {@code null} key or value, skips the record (counted in {@link KafkaWindows#skippedRecords()};
   * its partition still counts as active). An exception skips nothing: the record counts as not
   * processed and the consumer is rewound to it (see {@link KafkaWindows#onPoll}).
   *
   * <p>{@code onPoll} maps every record of a partition's batch, in offset order, before the windows
   * see the first of them (so that the windows look their keys up together): what a mapper does
   * must not depend on the windows' state at its record. After an exception (the mapper's or
   * another's) the records from the first one not processed on are polled, and mapped, again.
   *
   * @param record the record
   * @param out where the event time, key and value go
   */
  void map(ConsumerRecord<KR, VR> record, Output<K, V> out);

  /**
   * Receives what a {@link RecordMapper} extracted from one record.
   *
   * @param <K> the window key type
   * @param <V> the value type
   */
  interface Output<K, V> {
    /**
     * Emits the record's event.
     *
     * @param eventTimeMillis the event time in epoch milliseconds
     * @param key the window key; {@code null} skips the record
     * @param value the value; {@code null} skips the record
     */
    void emit(long eventTimeMillis, K key, V value);

    /**
     * Declares the record time-only, such as a heartbeat: its event time moves its partition's
     * frontier, and so the watermark, exactly as an event at that time would, but it goes into no
     * window and is counted neither as late, redelivered nor skipped. A new owner that reads it
     * again moves the watermark the same way. Under {@link
     * io.github.lowwater.WatermarkStrategy#PUNCTUATED} an event time does not move the watermark:
     * use {@link #punctuate}.
     *
     * @param eventTimeMillis the record's event time in epoch milliseconds
     */
    void observe(long eventTimeMillis);

    /**
     * Declares the record a watermark marker of its partition (the producer vouches that none of
     * the partition's later records is older): the partition's contribution to the watermark rises
     * to {@code watermarkMillis}, with no lateness subtracted, as {@link
     * io.github.lowwater.window.TumblingWindows#punctuate} does. For {@link
     * io.github.lowwater.WatermarkStrategy#PUNCTUATED}, where only markers move the watermark; the
     * record goes into no window.
     *
     * @param watermarkMillis the partition's watermark as of this record, epoch milliseconds
     */
    void punctuate(long watermarkMillis);
  }
}
