package io.github.lowwater.window;

import io.github.lowwater.internal.TimeMath;
import java.util.Arrays;

/**
 * The sessions of {@link SessionWindows} with panes (early results or a grace period, rule 56): per
 * key, its sessions not retired in start order; the open ones in a heap by end, the complete ones
 * in a heap by end plus the grace period, and the open ones with an early mark left in a heap by
 * that mark. Every row goes into one {@link PaneLog}, in the order it was produced.
 *
 * <p>A session is <em>open</em> until the watermark reaches its end, when it gets its on-time row
 * and becomes <em>complete</em>; a complete session gets a {@code LATE} row for each event that
 * joins it and retires once {@code end + grace <= watermark}, with its end at that time. A session
 * that merges with a complete one is complete, and one opened by an event whose end the watermark
 * has passed (within the grace period) is complete from the start. A row is identified by (the
 * session's first event time when it was produced, key): a session whose first moves earlier, or
 * that absorbs sessions that had rows, replaces those rows with its next one ({@link
 * PaneLog#replaces}), whose index continues from the highest of the parts.
 *
 * <p>The open and grace heaps are lazy about ends that grow, as {@link SessionTable}'s is: an
 * entry's key is a lower bound, re-keyed when it reaches the top. Allocation-free at steady state
 * with the built-in {@code long} aggregators (sessions are pooled). Not thread-safe.
 */
final class PanedSessions<K, R> {

  private final long gapMillis;
  private final long spanMillis;
  private final long earlyMillis;
  private final long graceMillis;
  private final KeyDictionary keys;
  private final WindowCounters counters;
  private final LongFold longFold;
  private final Aggregator<Object, Object, ?> aggregator;

  /** The rows produced, in order, and what each session's next row holds. */
  private final SessionRows<K, R> rows;

  /** The first session not retired of each key id, by first, or {@code null}. */
  private PanedSession[] heads = new PanedSession[16];

  private PanedSession free;
  private long opened;

  /** Before their on-time row, by end (a lower bound: re-keyed at the top). */
  private final SessionHeap open = new SessionHeap(SessionHeap.OPEN);

  /** Complete, within the grace period, by end + grace (a lower bound). */
  private final SessionHeap inGrace = new SessionHeap(SessionHeap.GRACE);

  /** Open, with an early mark left, by that mark (exact). */
  private final SessionHeap marks = new SessionHeap(SessionHeap.MARK);

  @SuppressWarnings("unchecked") // values reach the aggregator only through the kind's add
  PanedSessions(
      long gapMillis,
      long spanMillis,
      long earlyMillis,
      long graceMillis,
      KeyDictionary keys,
      WindowCounters counters,
      Aggregator<?, Object, R> aggregator) {
    this.gapMillis = gapMillis;
    this.spanMillis = spanMillis;
    this.earlyMillis = earlyMillis;
    this.graceMillis = graceMillis;
    this.keys = keys;
    this.counters = counters;
    this.aggregator = (Aggregator<Object, Object, ?>) (Aggregator<?, Object, ?>) aggregator;
    this.longFold = aggregator instanceof LongFold ? (LongFold) aggregator : null;
    this.rows = new SessionRows<>(keys, aggregator, longFold != null);
  }

  private long end(PanedSession s) {
    return TimeMath.saturatedAdd(s.last, gapMillis);
  }

  private long retireAt(PanedSession s) {
    return TimeMath.saturatedAdd(end(s), graceMillis);
  }

  /** {@code first - gap < t < last + gap}, exact, and with a maximum span {@code t} in its cell. */
  private boolean joins(PanedSession s, long t) {
    return within(s.first, t)
        && within(t, s.last)
        && (spanMillis == 0 || Math.floorDiv(t, spanMillis) == Math.floorDiv(s.first, spanMillis));
  }

  private boolean within(long later, long earlier) {
    return later <= earlier || Long.compareUnsigned(later - earlier, gapMillis) < 0;
  }

  /**
   * Adds an admitted event of key {@code keyId} at {@code t}: into the sessions it joins, merged
   * into the earliest, or into a new session; changes nothing if the aggregator throws (an object
   * aggregator's accumulator is copied before a merge, or while a row refers to it; an {@code add}
   * into one alone that changes it and then throws leaves that change, as for every kind). A
   * complete session, or one opened past its end, gives a {@code LATE} row now; an open one gets
   * its next early mark above {@code newest}. A session that ends by {@code writtenThrough} holds
   * its rows back ({@link SessionRows}).
   */
  void accumulate(
      int keyId, long t, Object value, long watermark, long writtenThrough, long newest) {
    ensureKey(keyId);
    PanedSession target = null;
    PanedSession previous = null;
    for (PanedSession s = heads[keyId]; s != null; previous = s, s = s.next) {
      if (joins(s, t)) {
        target = s;
        break;
      }
      if (s.first > t) {
        break; // sorted by first: the rest lie further on
      }
    }
    if (target == null) {
      opened(keyId, previous, t, value, watermark, writtenThrough, newest);
      return;
    }
    int merged = 0;
    long newLast = Math.max(target.last, t);
    for (PanedSession s = target.next; s != null && joins(s, t); s = s.next) {
      merged++;
      newLast = Math.max(newLast, s.last);
    }
    combineInto(target, value, merged); // may throw: nothing changed yet
    for (int i = 0; i < merged; i++) {
      PanedSession gone = target.next;
      target.next = gone.next;
      rows.absorbed(target, gone);
      open.remove(gone);
      inGrace.remove(gone);
      marks.remove(gone);
      release(gone);
      counters.windowClosed(1); // merged away
    }
    boolean earlierFirst = t < target.first;
    if (earlierFirst) {
      target.first = t;
    }
    target.last = newLast;
    // The merged session is complete iff the target is: the sessions it absorbs start later, and a
    // complete one starts before the watermark, so the target, at least a gap before it in the same
    // cell, ended by the watermark too and had its on-time row.
    if (target.complete) {
      if (earlierFirst) {
        inGrace.firstMovedEarlier(target);
      }
      rows.row(target, end(target), Timing.LATE, false, writtenThrough);
      counters.lateUpdate();
      return;
    }
    if (earlierFirst) {
      open.firstMovedEarlier(target);
    }
    markFrom(target, newest);
  }

  /** A new session of one event; in grace already if the watermark passed its end. */
  private void opened(
      int keyId,
      PanedSession previous,
      long t,
      Object value,
      long watermark,
      long writtenThrough,
      long newest) {
    long longAcc = 0;
    Object objectAcc = null;
    if (longFold != null) {
      longAcc = longFold.fold(longFold.initial(), value); // may throw: nothing taken yet
    } else {
      objectAcc = aggregator.add(aggregator.create(), value);
    }
    PanedSession s = allocate();
    s.first = t;
    s.last = t;
    s.keyId = keyId;
    s.sequence = opened++;
    s.longAccumulator = longAcc;
    s.objectAccumulator = objectAcc;
    if (previous == null) {
      s.next = heads[keyId];
      heads[keyId] = s;
    } else {
      s.next = previous.next;
      previous.next = s;
    }
    counters.windowOpened();
    counters.entryOpened();
    long end = end(s);
    if (end <= watermark) { // within the grace period: it never had an on-time row
      s.complete = true;
      inGrace.add(s, retireAt(s));
      rows.row(s, end, Timing.LATE, false, writtenThrough);
      counters.lateUpdate();
    } else {
      open.add(s, end);
      markFrom(s, newest);
    }
  }

  /** Folds {@code value} and the next {@code merged} sessions' accumulators into the target. */
  private void combineInto(PanedSession target, Object value, int merged) {
    if (longFold != null) {
      long acc = longFold.fold(target.longAccumulator, value);
      PanedSession s = target.next;
      for (int i = 0; i < merged; i++, s = s.next) {
        acc = longFold.merge(acc, s.longAccumulator);
      }
      target.longAccumulator = acc; // committed only once every step succeeded
    } else {
      Object current = target.objectAccumulator;
      if (target.shared || merged > 0) {
        // A row refers to it, or a merge could throw after add changed it: fold into a copy.
        current = aggregator.merge(aggregator.create(), current);
      }
      Object acc = aggregator.add(current, value);
      PanedSession s = target.next;
      for (int i = 0; i < merged; i++, s = s.next) {
        acc = aggregator.merge(acc, s.objectAccumulator);
      }
      target.objectAccumulator = acc;
      target.shared = false;
    }
  }

  /** An open session's next early mark above {@code newest}, after its span changed. */
  private void markFrom(PanedSession s, long newest) {
    if (earlyMillis == 0) {
      return;
    }
    long mark = PaneMarks.firstMarkAfter(s.first, end(s), earlyMillis, newest);
    if (mark == WindowEntries.NO_MARK) {
      marks.remove(s);
    } else if (mark != s.nextMark || !marks.contains(s)) {
      marks.put(s, mark);
    } else {
      marks.firstMovedEarlier(s);
    }
    s.nextMark = mark;
  }

  /**
   * Rule 50 for sessions: every open session with an early mark at or below {@code newest} fires
   * once, in ascending (mark, first, opening order); an {@code EARLY} row if it changed since its
   * last row (value, start or end). A session that fired then equals its last row, so no later mark
   * could give it a row until an event changes it: it leaves the mark heap, and the change gives it
   * its next mark above the newest event time then ({@link #markFrom}), the mark it would have
   * reached unchanged.
   */
  void newestRose(long newest, long writtenThrough) {
    while (marks.size() > 0 && marks.peekKey() <= newest) {
      PanedSession s = marks.poll();
      long end = end(s);
      if (rows.changed(s, end)) {
        rows.row(s, end, Timing.EARLY, false, writtenThrough);
        counters.earlyRow();
      }
      s.nextMark = WindowEntries.NO_MARK;
    }
  }

  /**
   * Each open session the watermark reaches gets its on-time row (final iff it retires at once), in
   * ascending (end, first, opening order); then the complete sessions whose grace period the
   * watermark passed retire (dropping the rows they held back, {@link SessionRows}).
   */
  void close(long watermark, long writtenThrough) {
    while (open.size() > 0 && open.peekKey() <= watermark) {
      PanedSession s = open.peek();
      long end = end(s);
      if (end != open.peekKey()) {
        open.rekeyTop(end); // stale: the session grew since it was placed
        continue;
      }
      open.poll();
      marks.remove(s);
      s.nextMark = WindowEntries.NO_MARK;
      s.complete = true;
      counters.windowFinalized();
      boolean retires = TimeMath.saturatedAdd(end, graceMillis) <= watermark;
      rows.row(s, end, Timing.ON_TIME, retires, writtenThrough);
      if (retires) {
        retire(s);
      } else {
        inGrace.add(s, retireAt(s));
      }
    }
    while (inGrace.size() > 0 && inGrace.peekKey() <= watermark) {
      PanedSession s = inGrace.peek();
      long at = retireAt(s);
      if (at != inGrace.peekKey()) {
        inGrace.rekeyTop(at);
        continue;
      }
      inGrace.poll();
      retire(s);
    }
  }

  /** A complete session's state goes for good: off its key's list, back to the pool. */
  private void retire(PanedSession s) {
    PanedSession at = heads[s.keyId];
    if (at == s) {
      heads[s.keyId] = s.next;
    } else {
      while (at.next != s) {
        at = at.next;
      }
      at.next = s.next;
    }
    counters.windowClosed(1);
    counters.windowRetired();
    keys.emitted();
    release(s);
  }

  private PanedSession allocate() {
    PanedSession s = free;
    if (s == null) {
      return new PanedSession();
    }
    free = s.next;
    s.next = null;
    return s;
  }

  private void release(PanedSession s) {
    s.clear();
    s.next = free;
    free = s;
  }

  private void ensureKey(int keyId) {
    if (keyId >= heads.length) {
      heads = Arrays.copyOf(heads, Math.max(keyId + 1, heads.length * 2));
    }
  }

  /**
   * The earliest start of the sessions not retired and of the rows waiting for a drain, or {@code
   * Long.MAX_VALUE}. O(sessions + rows).
   */
  long oldestPendingStart() {
    long oldest = rows.oldestWaitingStart();
    for (int i = 0; i < open.size(); i++) {
      oldest = Math.min(oldest, open.at(i).first);
    }
    for (int i = 0; i < inGrace.size(); i++) {
      oldest = Math.min(oldest, inGrace.at(i).first);
    }
    return oldest;
  }

  /** The sessions not retired, and the rows waiting for a drain. */
  int pending() {
    return open.size() + inGrace.size() + rows.waiting();
  }

  /** Sets the bit of the key id of every session not retired. */
  void markIds(long[] live) {
    for (int i = 0; i < open.size(); i++) {
      int id = open.at(i).keyId;
      live[id >>> 6] |= 1L << id;
    }
    for (int i = 0; i < inGrace.size(); i++) {
      int id = inGrace.at(i).keyId;
      live[id >>> 6] |= 1L << id;
    }
  }

  boolean noneReady() {
    return rows.waiting() == 0;
  }

  int readyResults() {
    return rows.waiting();
  }

  void visitReady(ResultVisitor<? super K, ? super R> visitor) {
    rows.visitAll(visitor);
  }

  void takeReady() {
    rows.takeAll();
  }

  int drainReady(ResultVisitor<? super K, ? super R> visitor) {
    return rows.drain(visitor);
  }

  /** Drops the rows produced from now on, while {@code on} (a replay). */
  void replaying(boolean on) {
    rows.replaying(on);
  }
}
