package io.github.lowwater.window;

import java.util.Arrays;

/**
 * Produces the rows of {@link PanedSessions} into their {@link PaneLog}: a session's row holds its
 * whole value, its span and its next index, after the starts of the earlier rows it replaces (its
 * own previous start, if its first moved earlier, and those of the sessions it absorbed, rule 56).
 * While a session ends by the written-through end ({@code markWritten}) its rows are held back in
 * the session; they go into the log, in order, before its first row that ends later, and a session
 * that retires with rows held back drops them ({@link PanedSession#clear}). What {@link
 * PanedSessions} decides is when; this class decides what a row holds. Not thread-safe;
 * allocation-free with the built-in {@code long} aggregators once the logs are large enough (a
 * session's held-back log is made the first time it holds a row back, on a partition's new owner).
 */
final class SessionRows<K, R> {

  private final KeyDictionary keys;
  private final Aggregator<?, Object, R> aggregator;
  private final boolean primitive;

  /** The rows produced, in order, until a drain. */
  private final PaneLog<K, R> log;

  SessionRows(KeyDictionary keys, Aggregator<?, Object, R> aggregator, boolean primitive) {
    this.keys = keys;
    this.aggregator = aggregator;
    this.primitive = primitive;
    this.log = new PaneLog<>(aggregator, primitive);
  }

  /**
   * Returns whether an early firing gives {@code s} a row: it had none of its own yet, or its
   * start, end or value changed since its last (for an accumulator object, a value was folded in
   * since).
   */
  boolean changed(PanedSession s, long end) {
    if (!s.rowed || s.rowFirst != s.first || s.rowEnd != end) {
      return true;
    }
    return primitive ? s.rowLong != s.longAccumulator : !s.shared;
  }

  /**
   * {@code gone} merged into {@code target}: the target's next index is the higher of the two, and
   * its next row replaces {@code gone}'s rows; rows {@code gone} held back go with the target's.
   */
  void absorbed(PanedSession target, PanedSession gone) {
    target.rows = Math.max(target.rows, gone.rows);
    target.replaceRowsOf(gone);
    if (gone.heldBack != null && !gone.heldBack.isEmpty()) {
      heldBack(target).takeFrom(gone.heldBack);
    }
  }

  /**
   * A row of the session's whole value and its span {@code [first, end)}, replacing its rows under
   * other starts; held back while {@code end <= writtenThrough} (see the class comment).
   */
  void row(PanedSession s, long end, Timing timing, boolean isFinal, long writtenThrough) {
    PaneLog<K, R> to = log;
    if (log.replaying) {
      // dropped by the log: a replay's rows were handed out by the earlier reading
    } else if (end <= writtenThrough) {
      to = heldBack(s);
    } else if (s.heldBack != null && !s.heldBack.isEmpty()) {
      log.takeFrom(s.heldBack);
    }
    if (s.rowed && s.rowFirst != s.first) {
      s.replace(s.rowFirst);
    }
    if (s.replacedCount > 0) {
      Arrays.sort(s.replaced, 0, s.replacedCount);
      for (int i = 0; i < s.replacedCount; i++) {
        to.replaces(s.replaced[i]);
      }
      s.replacedCount = 0;
    }
    Object key = keys.key(s.keyId);
    int index = s.rows++;
    if (primitive) {
      to.addLong(s.first, end, key, s.longAccumulator, timing, index, isFinal);
      s.rowLong = s.longAccumulator;
    } else {
      to.addObject(s.first, end, key, s.objectAccumulator, timing, index, isFinal);
      s.shared = true;
    }
    s.rowed = true;
    s.rowFirst = s.first;
    s.rowEnd = end;
  }

  /** The rows the session holds back while it ends by the written-through end. */
  @SuppressWarnings("unchecked") // every session's log holds this store's rows
  private PaneLog<K, R> heldBack(PanedSession s) {
    if (s.heldBack == null) {
      s.heldBack = new PaneLog<K, R>(aggregator, primitive);
    }
    return (PaneLog<K, R>) s.heldBack;
  }

  /** Drops the rows produced from now on, while {@code on} (a replay). */
  void replaying(boolean on) {
    log.replaying = on;
  }

  /** The rows waiting for a drain. */
  int waiting() {
    return log.size();
  }

  /** The earliest start of the rows waiting for a drain, or {@code Long.MAX_VALUE}. */
  long oldestWaitingStart() {
    return log.oldestStart();
  }

  void visitAll(ResultVisitor<? super K, ? super R> visitor) {
    log.visitAll(visitor);
  }

  void takeAll() {
    log.takeAll();
  }

  int drain(ResultVisitor<? super K, ? super R> visitor) {
    return log.drain(visitor);
  }
}
