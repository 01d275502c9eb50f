package io.github.lowwater.window;

import io.github.lowwater.WatermarkTracker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A naive reference of the panes of {@link SessionWindows} (issue 18, semantics rule 56), written
 * from the rules alone and sharing no code with the windows: per key, its sessions not retired,
 * each with the values it folded in fold order, its state (open or complete), its row count, what
 * its last row held and the starts its next row replaces; the newest event time {@code N}; and the
 * rows produced, in production order. Every value is recomputed from the session's values at every
 * row, and every mark is found by walking the session's marks one by one.
 *
 * <p>The rules, as this reference applies them ({@code f}, {@code l}: a session's first and last
 * event time; its end {@code e = l + gap}; G: the grace; a session is <em>live</em> until it
 * retires):
 *
 * <ul>
 *   <li>{@link #add}: the event at {@code t} joins every live session of its key with {@code f -
 *       gap < t < l + gap} (and, with a maximum span {@code M}, {@code floorDiv(t, M) ==
 *       floorDiv(f, M)}). Late iff {@code t + gap + G <= W} before the event, whether or not it
 *       would join a session (so that no session reaches back over a retired one of its key).
 *       Otherwise the sessions it joins and the event become one session: the earliest joined one
 *       (the target) keeps its opening order; its values are the target's, then the event's, then
 *       each other joined session's in ascending first; it is complete iff one of them was; its
 *       next index is the highest of theirs; its next row replaces the starts the others' rows had
 *       and those their next rows would have replaced. An event that joins none opens a session,
 *       complete at once if {@code t + gap <= W}. A complete session gives a LATE row now (never
 *       final). Then {@code N} rises and the early firings follow; then the tracker observes the
 *       event.
 *   <li>A rise of {@code N} from {@code N0} to {@code N1} fires every open session whose span has a
 *       mark {@code m = f + k * delta}, {@code k >= 1}, {@code m < e}, in {@code (N0, N1]}, in
 *       ascending (the first such mark, f, opening order): an EARLY row if it had none, or its
 *       value, start or end differs from its last row's (built-in long: the value; else: a value
 *       was folded since).
 *   <li>At each step of the watermark: every open session with {@code e <= W} gets its ON_TIME row,
 *       {@code isFinal = e + G <= W}, in ascending (e, f, opening order), and is complete; then
 *       every complete session with {@code e + G <= W} retires, with no row.
 *   <li>A row's start is the session's {@code f}, its end {@code e}; it replaces the start of the
 *       session's previous row if that differs from {@code f}, and the pending starts, ascending.
 * </ul>
 *
 * <p>Not thread-safe; for tests only.
 *
 * @param <R> the result type
 */
final class SessionPaneReference<R> implements PaneModel<R> {

  /** One live session. */
  private static final class Session {
    long first;
    long last;
    final long order;
    final List<Long> values = new ArrayList<>();
    boolean complete;
    int rows;

    /** Had a row of its own: a merge may raise {@code rows} without one. */
    boolean rowed;

    long rowFirst;
    long rowEnd;
    Object rowValue;
    boolean foldedSinceRow;
    final TreeSet<Long> replaces = new TreeSet<>();

    Session(long t, long order) {
      this.first = t;
      this.last = t;
      this.order = order;
    }
  }

  private final Function<List<Long>, R> fold;
  private final boolean builtInLong;
  private final long gap;
  private final long span;
  private final long early;
  private final long grace;
  private final WatermarkTracker tracker;

  /** The live sessions of each key, in no particular order. */
  private final Map<String, List<Session>> sessions = new HashMap<>();

  private final List<WindowResult<String, R>> rows = new ArrayList<>();
  private long opened;
  private long newest = WatermarkTracker.NO_WATERMARK;
  private long accepted;
  private long late;
  private long earlyRows;
  private long lateUpdates;
  private long retired;
  private long unchangedSkips;
  private long replacements;

  /**
   * @param fold recomputes a value from its values, in fold order
   * @param builtInLong whether "changed" compares values (a built-in long aggregator)
   * @param early the early delta, or {@link PaneReference#EARLY_OFF}
   * @param span the maximum session span, or 0
   */
  SessionPaneReference(
      Function<List<Long>, R> fold,
      boolean builtInLong,
      long gap,
      long span,
      long early,
      long grace,
      WatermarkTracker tracker) {
    this.fold = fold;
    this.builtInLong = builtInLong;
    this.gap = gap;
    this.span = span;
    this.early = early;
    this.grace = grace;
    this.tracker = Objects.requireNonNull(tracker, "tracker");
  }

  private long end(Session s) {
    return saturatedAdd(s.last, gap);
  }

  private boolean joins(Session s, long t) {
    boolean near = (t >= s.first || s.first - t < gap) && (t <= s.last || t - s.last < gap);
    return near && (span == 0 || Math.floorDiv(t, span) == Math.floorDiv(s.first, span));
  }

  @Override
  public boolean add(Object source, long t, String key, long value) {
    long watermark = tracker.watermark();
    List<Session> live = sessions.computeIfAbsent(key, k -> new ArrayList<>());
    List<Session> joined = new ArrayList<>();
    for (Session s : live) {
      if (joins(s, t)) {
        joined.add(s);
      }
    }
    joined.sort(Comparator.comparingLong(s -> s.first));
    boolean isLate = saturatedAdd(saturatedAdd(t, gap), grace) <= watermark; // joined or not
    if (isLate) {
      late++;
    } else if (joined.isEmpty()) {
      fold.apply(List.of(value)); // may throw: nothing changed
      Session s = new Session(t, opened++);
      s.values.add(value);
      s.foldedSinceRow = true;
      live.add(s);
      if (end(s) <= watermark) {
        s.complete = true;
        row(key, s, Timing.LATE, false);
        lateUpdates++;
      }
      accepted++;
    } else {
      Session target = joined.get(0);
      List<Long> values = new ArrayList<>(target.values);
      values.add(value);
      for (Session s : joined.subList(1, joined.size())) {
        values.addAll(s.values);
      }
      fold.apply(values); // may throw: nothing changed
      target.values.clear();
      target.values.addAll(values);
      target.foldedSinceRow = true;
      target.first = Math.min(target.first, t);
      target.last = Math.max(target.last, t);
      for (Session s : joined.subList(1, joined.size())) {
        target.last = Math.max(target.last, s.last);
        target.complete |= s.complete;
        target.rows = Math.max(target.rows, s.rows);
        if (s.rowed) {
          target.replaces.add(s.rowFirst);
        }
        target.replaces.addAll(s.replaces);
        live.remove(s);
      }
      if (target.complete) {
        row(key, target, Timing.LATE, false);
        lateUpdates++;
      }
      accepted++;
    }
    raiseNewest(t);
    tracker.observe(source, t);
    closeAt(tracker.watermark());
    return !isLate;
  }

  @Override
  public void observe(Object source, long eventTimeMillis) {
    raiseNewest(eventTimeMillis);
    tracker.observe(source, eventTimeMillis);
    closeAt(tracker.watermark());
  }

  @Override
  public void advanceTo(long wallMillis) {
    tracker.advanceTo(wallMillis);
    closeAt(tracker.watermark());
  }

  @Override
  public void refresh() {
    tracker.refresh();
    closeAt(tracker.watermark());
  }

  @Override
  public void finish() {
    tracker.finish();
    closeAt(tracker.watermark());
  }

  /** A live session with its key, for ordering the sessions of every key together. */
  private record Keyed(String key, Session session, long by) {}

  private void raiseNewest(long t) {
    if (t <= newest) {
      return;
    }
    long before = newest;
    newest = t;
    if (early == PaneReference.EARLY_OFF) {
      return;
    }
    List<Keyed> due = new ArrayList<>();
    for (Map.Entry<String, List<Session>> e : sessions.entrySet()) {
      for (Session s : e.getValue()) {
        long mark = markIn(s, before, newest);
        if (!s.complete && mark != Long.MAX_VALUE) {
          due.add(new Keyed(e.getKey(), s, mark));
        }
      }
    }
    due.sort(order());
    for (Keyed k : due) {
      Session s = k.session();
      boolean changed =
          !s.rowed
              || s.rowFirst != s.first
              || s.rowEnd != end(s)
              || (builtInLong ? !fold.apply(s.values).equals(s.rowValue) : s.foldedSinceRow);
      if (changed) {
        row(k.key(), s, Timing.EARLY, false);
        earlyRows++;
      } else {
        unchangedSkips++;
      }
    }
  }

  /** The first mark {@code f + k * delta < e}, {@code k >= 1}, in {@code (n0, n1]}, or MAX. */
  private long markIn(Session s, long n0, long n1) {
    long end = end(s);
    for (long m = saturatedAdd(s.first, early); m < end; m = saturatedAdd(m, early)) {
      if (m > n1) {
        return Long.MAX_VALUE;
      }
      if (m > n0) {
        return m;
      }
    }
    return Long.MAX_VALUE;
  }

  private static Comparator<Keyed> order() {
    return Comparator.comparingLong(Keyed::by)
        .thenComparingLong(k -> k.session().first)
        .thenComparingLong(k -> k.session().order);
  }

  @Override
  public void closeAt(long watermark) {
    List<Keyed> onTime = new ArrayList<>();
    for (Map.Entry<String, List<Session>> e : sessions.entrySet()) {
      for (Session s : e.getValue()) {
        if (!s.complete && end(s) <= watermark) {
          onTime.add(new Keyed(e.getKey(), s, end(s)));
        }
      }
    }
    onTime.sort(order());
    for (Keyed k : onTime) {
      k.session().complete = true;
      row(k.key(), k.session(), Timing.ON_TIME, saturatedAdd(k.by(), grace) <= watermark);
    }
    for (List<Session> live : sessions.values()) {
      int before = live.size();
      live.removeIf(s -> s.complete && saturatedAdd(end(s), grace) <= watermark);
      retired += before - live.size();
    }
  }

  private void row(String key, Session s, Timing timing, boolean isFinal) {
    if (s.rowed && s.rowFirst != s.first) {
      s.replaces.add(s.rowFirst);
    }
    R value = fold.apply(s.values);
    replacements += s.replaces.size();
    rows.add(
        new WindowResult<>(
            s.first,
            end(s),
            key,
            value,
            null,
            timing,
            s.rows,
            isFinal,
            new ArrayList<>(s.replaces)));
    s.replaces.clear();
    s.rows++;
    s.rowed = true;
    s.rowFirst = s.first;
    s.rowEnd = end(s);
    s.rowValue = value;
    s.foldedSinceRow = false;
  }

  @Override
  public List<WindowResult<String, R>> rows() {
    return Collections.unmodifiableList(rows);
  }

  @Override
  public long watermark() {
    return tracker.watermark();
  }

  @Override
  public long accepted() {
    return accepted;
  }

  @Override
  public long late() {
    return late;
  }

  @Override
  public long partiallyLate() {
    return 0;
  }

  @Override
  public long earlyRows() {
    return earlyRows;
  }

  @Override
  public long lateUpdates() {
    return lateUpdates;
  }

  @Override
  public long retiredWindows() {
    return retired;
  }

  @Override
  public long unchangedSkips() {
    return unchangedSkips;
  }

  /** Rows that replaced an earlier one, summed over their replaced starts (for coverage). */
  long replacements() {
    return replacements;
  }

  @Override
  public int heldWindows() {
    int held = 0;
    for (List<Session> live : sessions.values()) {
      held += live.size();
    }
    return held;
  }

  private static long saturatedAdd(long a, long b) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException overflow) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
