package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.KeyLookAhead;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The decision for each record of a poll, made once: into the windows, late, or redelivered (a
 * previous owner, or this instance, has it in a row already), or only a move of its partition's
 * time. Reports to the {@link LateRecordHandler} and counts; {@link KafkaWindows} feeds it the
 * records partition by partition and rewinds when it throws. Not thread-safe: the polling thread;
 * the counters are published for any thread.
 *
 * @param <K> the window key type
 * @param <V> the value type
 * @param <R> the result type
 */
final class RecordAdmission<K, V, R> {

  private final LateRecordHandler lateRecordHandler;

  /** {@code MERGED}: one set of windows for every partition. */
  private final boolean merged;

  /** The mapper's output, reused for every record. */
  private final MappedRecord<K, V> extracted = new MappedRecord<>();

  /** The records of the partition being processed, mapped ahead. */
  private final MappedBatch<K, V> batch = new MappedBatch<>();

  private final KeyLookAhead lookAhead = KeyLookAhead.get();

  /** Whether the record being processed counts as processed although an exception followed. */
  boolean recordTaken;

  /**
   * {@code MERGED}: the largest written-through time of the checkpoints this instance restored.
   * Every window ending at or before it was written, with the records of every partition: a record
   * of such a window that its own partition's checkpoint does not claim is late, never the start of
   * a second, partial row. {@code NO_WATERMARK} in {@code PER_PARTITION}.
   */
  long mergedWrittenThroughMillis = WatermarkTracker.NO_WATERMARK;

  /**
   * {@code MERGED} sessions: the watermark the restart seeded ({@code seedWatermark}), below which
   * every session ended and was written. A record with {@code t + gap} at or below it is late even
   * when it would join an open session: it may be a re-read record of a written session, and
   * joining would put it in a second row. {@code NO_WATERMARK} otherwise.
   */
  long mergedSessionFloorMillis = WatermarkTracker.NO_WATERMARK;

  volatile long redeliveredRecords;
  volatile long skippedRecords;

  RecordAdmission(LateRecordHandler lateRecordHandler, boolean merged) {
    this.lateRecordHandler = lateRecordHandler;
    this.merged = merged;
  }

  /**
   * Maps a partition's records of one poll, in order, and has the windows look their keys up ahead,
   * so that the cache misses of consecutive keys overlap; then {@link #process} decides the records
   * one by one, and {@link #end} forgets them. If the mapper throws, the records before it are
   * mapped ({@link #mapped()}), and {@link #mapperFailure()} holds the exception, to be thrown once
   * they are processed.
   */
  <KR, VR> void begin(
      PartitionState<K, V, R> p,
      List<ConsumerRecord<KR, VR>> records,
      RecordMapper<KR, VR, K, V> mapper) {
    batch.map(records, mapper, extracted);
    lookAhead.lookAhead(p.windows, batch.keys(), batch.times(), 0, batch.size());
  }

  /** Returns the number of records {@link #begin} mapped. */
  int mapped() {
    return batch.size();
  }

  /** Returns what the mapper threw at record {@link #mapped()}, or null. */
  Throwable mapperFailure() {
    return batch.failure();
  }

  /** Ends the partition's batch: the windows and this forget its keys and values. */
  void end(PartitionState<K, V, R> p) {
    lookAhead.end(p.windows);
    batch.clear();
  }

  /**
   * One record, the one at {@code index} of {@link #begin}, whole or not at all; the partition's
   * read position moves past it once it is processed. The decision, in this order (docs/kafka.md,
   * "What one poll does"):
   *
   * <ol>
   *   <li>below {@code processedBelowOffset} ({@code MERGED}, a partition given back): in this
   *       instance's windows already, redelivered;
   *   <li>{@code PER_PARTITION}: behind the partition's watermark, late. The watermark is the one
   *       the previous owner had at the same record (the seed is its watermark at the committed
   *       offset, and it moves with the same records), so a record it declared late is late again,
   *       not redelivered;
   *   <li>in the checkpoint's claim (window end {@code <= e}, offset {@code < n}): redelivered;
   *   <li>window end {@code <= e}, never read by the previous owner: late, whatever this owner's
   *       watermark (it may be lower: a clamped seed);
   *   <li>behind the watermark ({@code MERGED}): late; else into its window.
   * </ol>
   */
  <KR, VR> void process(PartitionState<K, V, R> p, ConsumerRecord<KR, VR> r, int index) {
    MappedRecord<K, V> out = extracted;
    batch.load(index, out);
    lookAhead.expect(p.windows, index, out.key);
    if (out.isEvent() || out.kind == MappedRecord.TIME || out.kind == MappedRecord.MARKER) {
      // The guard reading every owner uses for this record (semantics rule 61).
      p.wallClock.pin(r.offset(), out.eventTimeMillis, p.readThroughOffset);
    }
    try {
      decide(p, r, out);
    } finally {
      p.wallClock.unpin();
    }
  }

  /** {@link #process} once the record is mapped and its guard reading in force. */
  private <KR, VR> void decide(
      PartitionState<K, V, R> p, ConsumerRecord<KR, VR> r, MappedRecord<K, V> out) {
    long offset = r.offset();
    if (out.kind == MappedRecord.TIME || out.kind == MappedRecord.MARKER) {
      timeOnly(p, offset, out.kind == MappedRecord.MARKER, out.eventTimeMillis);
      return;
    }
    if (!out.isEvent()) {
      if (offset >= p.processedBelowOffset) {
        skippedRecords++; // a record of a partition given back was counted the first time
      }
      p.readPast(offset);
      p.windows.heartbeat(p.source); // a skipped record still shows its partition is alive
      return;
    }
    long t = out.eventTimeMillis;
    K key = out.key;
    V value = out.value;
    out.reset(); // the mapper's objects are not kept beyond the record
    if (p.sessions()) {
      session(p, r, t, key, value);
      return;
    }
    if (!p.windows.windowable(t)) { // hopping windows within a size of the long bounds
      unwindowable(p, r, t);
      return;
    }
    long end = p.windows.lastWindowEnd(t); // every window of the record ends by it
    // Every window the record can change, by being in it or (sliding windows) by defining it.
    long affected = p.windows.lastAffectedWindowEnd(t);
    // The windows' own verdict, before they change; in CO_PARTITIONED against the partition's own
    // watermark (rule 72).
    boolean late = p.windows.isLate(p.source, t, key);
    if (offset < p.processedBelowOffset
        || (!(late && !merged)
            && (p.redelivered(affected, offset) || affected <= p.sharedWrittenThroughMillis))) {
      // Already in this instance's windows (a partition it got back), or in a written window. In
      // CO_PARTITIONED a sibling's checkpoint may say the window is written: the owner that wrote
      // it had read this partition up to where its own watermark closed the window, and the same
      // records move this owner's, so a record not late by it was in the row.
      redelivered(p, r, t, end);
      return;
    }
    long written = Math.max(p.writtenThroughMillis, mergedWrittenThroughMillis);
    if (end <= written && (affected <= written || late || offset >= p.readThroughOffset)) {
      // A record of a written window that its previous owner never read: late, whatever this
      // owner's watermark says (it may be lower: a clamped seed). In MERGED a window holds every
      // partition's records, so a window any partition's checkpoint says is written is written.
      // (A sliding window record its previous owner read, whose own window is written but not the
      // one starting just after it, is not here: its re-reading replays the verdict it had.)
      lateByClaim(p, r, t, end, written);
      return;
    }
    long watermark = p.judgedWatermark();
    if (late) {
      if (lateRecordHandler != null) {
        reportLate(r, LateRecordHandler.Reason.LATE, t, end, watermark);
      }
    } else {
      p.hold(p.holdEnd(affected), offset, watermark, t);
    }
    take(p, offset, t, key, value);
  }

  /**
   * A record already in a row, or in this instance's windows: reported and counted, and otherwise
   * only observed, so that the watermark moves as it did the first time.
   */
  private void redelivered(PartitionState<K, V, R> p, ConsumerRecord<?, ?> r, long t, long end) {
    if (lateRecordHandler != null) {
      reportLate(r, LateRecordHandler.Reason.REDELIVERED, t, end, p.writtenThroughMillis);
    }
    redeliveredRecords++;
    p.readPast(r.offset());
    p.windows.observe(p.source, t);
  }

  /**
   * A record late by what a checkpoint (or the seed) claims written, whatever the windows'
   * watermark says: reported against that claim, counted late, and otherwise only observed.
   */
  private void lateByClaim(
      PartitionState<K, V, R> p, ConsumerRecord<?, ?> r, long t, long end, long claim) {
    if (lateRecordHandler != null) {
      reportLate(r, LateRecordHandler.Reason.LATE, t, end, claim);
    }
    p.readPast(r.offset());
    p.windows.observeLate(p.source, t);
  }

  /**
   * A record whose windows do not fit in a {@code long} (hopping windows, an event time within a
   * size of the bounds: a valid CreateTime all the same): no window can ever hold it, so it goes to
   * the late path, its window end reported as {@code Long.MAX_VALUE}, and is otherwise observed
   * like any late record. Every owner decides it the same way; it never makes a poll throw.
   */
  private void unwindowable(PartitionState<K, V, R> p, ConsumerRecord<?, ?> r, long t) {
    long watermark = p.windows.watermark();
    if (lateRecordHandler != null) {
      reportLate(r, LateRecordHandler.Reason.LATE, t, Long.MAX_VALUE, watermark);
    }
    p.readPast(r.offset());
    p.windows.observeLate(p.source, t);
  }

  /**
   * Hands a record that goes into no window to the late handler. An unchecked exception propagates
   * as it is; a checked one (the handler may throw any, as {@code ResultSink} may) is wrapped in an
   * {@link IllegalStateException} that names the handler. Either way {@code onPoll} rewinds the
   * consumer to the record.
   */
  private void reportLate(
      ConsumerRecord<?, ?> r,
      LateRecordHandler.Reason reason,
      long eventTimeMillis,
      long windowEndMillis,
      long watermarkMillis) {
    try {
      lateRecordHandler.onLateRecord(r, reason, eventTimeMillis, windowEndMillis, watermarkMillis);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "the late record handler failed on " + r.topic() + "-" + r.partition() + "@" + r.offset(),
          e);
    }
  }

  /** Adds the record's event; the record counts as read once the windows have taken it. */
  private void take(PartitionState<K, V, R> p, long offset, long t, K key, V value) {
    long before = p.windows.events();
    try {
      p.windows.add(p.source, t, key, value);
    } catch (RuntimeException | Error e) {
      if (p.windows.events() != before) {
        recordTaken = true; // a timer threw after the event was taken: not read twice
        p.readPast(offset);
      }
      throw e;
    }
    p.readPast(offset);
  }

  /**
   * A record of session windows. A session's end depends on the records after it, so no claim can
   * decide a re-read record in advance: the windows take it again, and a session ending at or
   * before the checkpoint's written-through end is dropped when it closes ({@code markWritten}), so
   * it is neither written again nor written with part of its value. Only the windows can tell
   * whether a record is late (it may join an open session), in this order:
   *
   * <ol>
   *   <li>below {@code processedBelowOffset} ({@code MERGED}, a partition given back): in this
   *       instance's windows already, redelivered;
   *   <li>never read by the previous owner, {@code t + gap <= e} while this owner's watermark is
   *       still below {@code e} (a clamped seed), or with panes whatever the watermark: late, as
   *       for the previous owner, whose watermark had passed {@code e} (with panes, {@code e +
   *       grace}, where lateness does not depend on joining a session, rule 56). In {@code MERGED},
   *       {@code e} is the largest of the restored checkpoints', and the rule holds for every
   *       record, read before or not: no session ending by {@code e} forms again, so none is
   *       dropped as written;
   *   <li>{@code PER_PARTITION}: late by the windows' rule and below the previous owner's read
   *       position: {@code REDELIVERED}; the previous owner wrote it in a row or handed it over as
   *       late (this owner lacks the records before the committed offset, so it cannot tell which);
   *   <li>late by the windows' rule otherwise: {@code LATE}. In {@code MERGED} a re-read record is
   *       late only by the seed ({@code seedWatermark}), above the watermark the instance had when
   *       it first read it: it may be in a row or in none, and it is on the late path.
   * </ol>
   */
  private <KR, VR> void session(
      PartitionState<K, V, R> p, ConsumerRecord<KR, VR> r, long t, K key, V value) {
    long offset = r.offset();
    long end = p.windows.lastWindowEnd(t); // t + gap: the end of a session it would start
    if (offset < p.processedBelowOffset) {
      redelivered(p, r, t, end);
      return;
    }
    long watermark = p.windows.watermark();
    // MERGED: a re-read record may be late only by the seed, which is above the watermark the
    // instance had when it read it first; it may be in no row, so it is late, never redelivered.
    boolean fresh = offset >= p.readThroughOffset || merged;
    long written = Math.max(p.writtenThroughMillis, mergedWrittenThroughMillis);
    // With panes a session event is late iff t + gap + grace <= W, joining or not (rule 56), and
    // the previous owner's watermark was e + grace: a record it never read with t + gap <= e was
    // late for it, whatever this owner's watermark says.
    if ((fresh
            && end <= written
            && (watermark < written
                || p.windows.graceMillis() > 0
                || p.windows.earlyResultsMillis() > 0))
        || end <= mergedSessionFloorMillis) {
      lateByClaim(p, r, t, end, Math.max(written, mergedSessionFloorMillis));
      return;
    }
    if (p.windows.isLate(t, key)) { // the windows' own verdict: it may join an open session
      // After a change of configuration the predecessor may have put it in an open session: late.
      boolean reported = fresh || p.reconfigured;
      if (lateRecordHandler != null) {
        reportLate(
            r,
            reported ? LateRecordHandler.Reason.LATE : LateRecordHandler.Reason.REDELIVERED,
            t,
            end,
            reported ? watermark : p.writtenThroughMillis);
      }
      if (!reported) {
        redeliveredRecords++;
      }
    } else {
      p.holdSessionRecord(t, offset, watermark);
    }
    take(p, offset, t, key, value);
  }

  /**
   * A heartbeat or a marker: moves the partition's time and nothing else, whoever reads it, so a
   * re-read moves the watermark the same way. A timer that throws has seen the record taken.
   */
  private void timeOnly(PartitionState<K, V, R> p, long offset, boolean marker, long millis) {
    extracted.reset();
    try {
      if (marker) {
        p.windows.punctuate(p.source, millis);
      } else {
        p.windows.observe(p.source, millis);
      }
    } catch (RuntimeException | Error e) {
      recordTaken = true;
      p.readPast(offset);
      throw e;
    }
    p.readPast(offset);
  }
}
