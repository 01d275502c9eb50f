package io.github.lowwater.window;

import io.github.lowwater.WatermarkTracker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A naive reference of the panes of {@link TumblingWindows} and {@link HoppingWindows} (issue 18:
 * early results and a grace period), written from the rules alone and sharing no code with the
 * windows: a map from window start to the keys of the window in first-event order, each with every
 * value it was given, its row count and its last row's value; the newest event time {@code N}; and
 * the rows produced, in production order. Every value is recomputed from the key's values at every
 * row.
 *
 * <p>The watermark {@code W} comes from the reference's own {@link WatermarkTracker}, which the
 * caller builds with the same options as the windows under test (allowed lateness, idle timeout,
 * the same {@code ManualClock}) and uses for nothing else: the tracker is tested on its own, and
 * the two trackers see the same calls, so they hold the same watermark. {@code W} is read before an
 * event for its verdict and after each call to close and retire windows.
 *
 * <p>The rules, as this reference applies them (s, e: the window's start and end; G: the grace):
 *
 * <ul>
 *   <li>{@link #add}: the windows of {@code t} are those with a start {@code s = k * advance +
 *       offset} in {@code (t - size, t]} (one, {@code floorDiv(t, size) * size}, for tumbling
 *       windows). Late iff {@code e + G <= W} (saturating) for every one of them, against {@code W}
 *       before the event. If not late, the value is folded into each window with {@code e + G > W},
 *       in ascending start (partially late if another one had retired), every fold computed before
 *       any is kept; each window with {@code e <= W} (in grace) gives the key a LATE row, never
 *       final. Then {@code N} rises (a late event raises it too) and the early firings follow; then
 *       the tracker observes the event; then windows close by the new {@code W}.
 *   <li>A rise of {@code N} from {@code N0} to {@code N1} fires, once, every window not yet on time
 *       with a mark {@code m = s + k * delta}, {@code k >= 1}, {@code m < e}, {@code N0 < m <= N1};
 *       windows in ascending start, keys in first-event order, a key only if it has no row yet or
 *       its value may have changed (built-in long: differs from its last row's; else: a value was
 *       folded since its last row).
 *   <li>Closing: every window not yet on time with {@code e <= W} gets an ON_TIME row per key,
 *       {@code isFinal = e + G <= W}, windows in ascending end; then every window with {@code e + G
 *       <= W} retires, with no row.
 * </ul>
 *
 * <p>A first event of a window, or of a key, that arrives in grace (the window's on-time moment
 * passed while it held nothing of that key) gets a LATE row with index 0 and no ON_TIME row.
 *
 * <p>Not thread-safe; for tests only. Quadratic in the values of a key; the marks of a window are
 * walked one by one, so keep {@code size / delta} small.
 *
 * @param <R> the result type
 */
final class PaneReference<R> implements PaneModel<R> {

  /** The early delta of a reference without early results. */
  static final long EARLY_OFF = 0;

  /**
   * The window shape and the pane options.
   *
   * @param sizeMillis the window size, {@code >= 1}
   * @param advanceMillis how far apart windows start, {@code 1 <= advance <= size}; {@code size}
   *     for tumbling windows
   * @param offsetMillis hopping windows start at {@code k * advance + offset}; 0 for tumbling
   * @param earlyDeltaMillis the early delta, {@code >= 1}, or {@link #EARLY_OFF}
   * @param graceMillis the grace period, {@code >= 0}
   */
  record Shape(
      long sizeMillis,
      long advanceMillis,
      long offsetMillis,
      long earlyDeltaMillis,
      long graceMillis) {
    Shape {
      if (sizeMillis < 1
          || advanceMillis < 1
          || advanceMillis > sizeMillis
          || (advanceMillis == sizeMillis && offsetMillis != 0)
          || earlyDeltaMillis < 0
          || graceMillis < 0) {
        throw new IllegalArgumentException(
            "size "
                + sizeMillis
                + ", advance "
                + advanceMillis
                + ", offset "
                + offsetMillis
                + ", early "
                + earlyDeltaMillis
                + ", grace "
                + graceMillis);
      }
    }

    /** Tumbling windows: the advance is the size. */
    Shape(long sizeMillis, long earlyDeltaMillis, long graceMillis) {
      this(sizeMillis, sizeMillis, 0, earlyDeltaMillis, graceMillis);
    }
  }

  /** One key of one window. */
  private static final class Cell<R> {
    final List<Long> values = new ArrayList<>();
    int rows;
    R lastRowValue;
    boolean foldedSinceRow;
  }

  /** One window not yet retired. */
  private static final class Window<R> {
    final long start;
    final long end;

    /** Whether the window had its on-time moment ({@code W >= e}), with or without rows. */
    boolean onTime;

    final LinkedHashMap<String, Cell<R>> keys = new LinkedHashMap<>();

    Window(long start, long end) {
      this.start = start;
      this.end = end;
    }
  }

  private final Function<List<Long>, R> fold;
  private final boolean builtInLong;
  private final Shape shape;
  private final WatermarkTracker tracker;

  /** The windows not retired, by start: ascending start is ascending end for tumbling windows. */
  private final TreeMap<Long, Window<R>> windows = new TreeMap<>();

  private final List<WindowResult<String, R>> rows = new ArrayList<>();

  private long newest = WatermarkTracker.NO_WATERMARK;
  private long accepted;
  private long partiallyLate;
  private long late;
  private long earlyRows;
  private long lateUpdates;
  private long retiredWindows;
  private long unchangedSkips;

  private PaneReference(
      Function<List<Long>, R> fold, boolean builtInLong, Shape shape, WatermarkTracker tracker) {
    this.fold = fold;
    this.builtInLong = builtInLong;
    this.shape = Objects.requireNonNull(shape, "shape");
    this.tracker = Objects.requireNonNull(tracker, "tracker");
  }

  /** {@link Aggregators#sumLong()}: the values added with {@link Math#addExact}. */
  static PaneReference<Long> sum(Shape shape, WatermarkTracker tracker) {
    return new PaneReference<>(
        values -> {
          long sum = 0;
          for (long v : values) {
            sum = Math.addExact(sum, v);
          }
          return sum;
        },
        true,
        shape,
        tracker);
  }

  /** {@link Aggregators#count()}: the number of values. */
  static PaneReference<Long> count(Shape shape, WatermarkTracker tracker) {
    return new PaneReference<>(values -> (long) values.size(), true, shape, tracker);
  }

  /** {@link Aggregators#maxLong()}: the largest value. */
  static PaneReference<Long> max(Shape shape, WatermarkTracker tracker) {
    return new PaneReference<>(
        values -> {
          long max = Long.MIN_VALUE;
          for (long v : values) {
            max = Math.max(max, v);
          }
          return max;
        },
        true,
        shape,
        tracker);
  }

  /**
   * An aggregator that is not a built-in long one: each row folds the key's values afresh through
   * {@code create}, {@code add} and {@code result} (never {@code merge}), and "may have changed"
   * means a value was folded since the key's last row.
   */
  static <R> PaneReference<R> of(
      Aggregator<? super Long, ?, R> aggregator, Shape shape, WatermarkTracker tracker) {
    Objects.requireNonNull(aggregator, "aggregator");
    return new PaneReference<>(values -> foldAfresh(aggregator, values), false, shape, tracker);
  }

  private static <A, R> R foldAfresh(Aggregator<? super Long, A, R> aggregator, List<Long> values) {
    A accumulator = aggregator.create();
    for (Long v : values) {
      accumulator = aggregator.add(accumulator, v);
    }
    return aggregator.result(accumulator);
  }

  // The calls ------------------------------------------------------------------------------------

  /**
   * An event; see the class javadoc for the order of its steps.
   *
   * @return {@code true} if it went into its window (on time or a late update), {@code false} if it
   *     was late
   * @throws ArithmeticException if the fold overflows; nothing changes then
   */
  @Override
  public boolean add(Object source, long eventTimeMillis, String key, long value) {
    long watermark = tracker.watermark();
    List<Long> starts = startsOf(eventTimeMillis);
    List<Long> kept = new ArrayList<>();
    for (long start : starts) {
      if (saturatedAdd(endOf(start, eventTimeMillis), shape.graceMillis()) > watermark) {
        kept.add(start); // not retired
      }
    }
    boolean isLate = kept.isEmpty();
    if (isLate) {
      late++;
    } else {
      List<R> folded = new ArrayList<>();
      for (long start : kept) {
        Window<R> w = windows.get(start);
        Cell<R> cell = w == null ? null : w.keys.get(key);
        List<Long> values = new ArrayList<>(cell == null ? List.of() : cell.values);
        values.add(value);
        folded.add(fold.apply(values)); // throws before anything changes
      }
      for (int i = 0; i < kept.size(); i++) {
        long start = kept.get(i);
        long end = endOf(start, eventTimeMillis);
        Window<R> w = windows.get(start);
        if (w == null) {
          w = new Window<>(start, end);
          w.onTime = end <= watermark; // opened in grace: its on-time moment is gone
          windows.put(start, w);
        }
        Cell<R> cell = w.keys.computeIfAbsent(key, k -> new Cell<>());
        cell.values.add(value);
        cell.foldedSinceRow = true;
        if (end <= watermark) {
          row(w, key, cell, folded.get(i), Timing.LATE, false);
          lateUpdates++;
        }
      }
      accepted++;
      if (kept.size() < starts.size()) {
        partiallyLate++;
      }
    }
    raiseNewest(eventTimeMillis);
    tracker.observe(source, eventTimeMillis);
    close();
    return !isLate;
  }

  /** An event time without an event: raises {@code N} (and fires), observed, then closes. */
  @Override
  public void observe(Object source, long eventTimeMillis) {
    raiseNewest(eventTimeMillis);
    tracker.observe(source, eventTimeMillis);
    close();
  }

  /** The all-quiet hook: the tracker's, then closes. */
  @Override
  public void advanceTo(long wallMillis) {
    tracker.advanceTo(wallMillis);
    close();
  }

  /** Re-evaluates idleness: the tracker's, then closes. */
  @Override
  public void refresh() {
    tracker.refresh();
    close();
  }

  /** The end of the input: {@code W = Long.MAX_VALUE}, every window on time, final and retired. */
  @Override
  public void finish() {
    tracker.finish();
    close();
  }

  // What it produced -----------------------------------------------------------------------------

  /** Every row produced so far, in production order. */
  @Override
  public List<WindowResult<String, R>> rows() {
    return Collections.unmodifiableList(rows);
  }

  /** The newest event time {@code N}, or {@code NO_WATERMARK} before the first. */
  long newest() {
    return newest;
  }

  /** The reference tracker's watermark. */
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

  /** Events that went into some of their windows, another one having retired (hopping only). */
  @Override
  public long partiallyLate() {
    return partiallyLate;
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
    return retiredWindows;
  }

  /** Keys a firing passed over because their value could not have changed (for coverage). */
  @Override
  public long unchangedSkips() {
    return unchangedSkips;
  }

  /** Windows not retired yet. */
  @Override
  public int heldWindows() {
    return windows.size();
  }

  @Override
  public String toString() {
    return "PaneReference{"
        + shape
        + ", N="
        + newest
        + ", W="
        + tracker.watermark()
        + ", windows="
        + windows.keySet()
        + ", rows="
        + rows.size()
        + "}";
  }

  // The rules ------------------------------------------------------------------------------------

  /** Rule A: a rise of N fires each open window that one of its marks in (N0, N1] names, once. */
  private void raiseNewest(long eventTimeMillis) {
    if (eventTimeMillis <= newest) {
      return;
    }
    long before = newest;
    newest = eventTimeMillis;
    if (shape.earlyDeltaMillis() == EARLY_OFF) {
      return;
    }
    for (Window<R> w : windows.values()) {
      if (w.onTime || !passesMark(w, before, newest)) {
        continue;
      }
      for (Map.Entry<String, Cell<R>> e : w.keys.entrySet()) {
        Cell<R> cell = e.getValue();
        R value = fold.apply(cell.values);
        boolean mayHaveChanged =
            cell.rows == 0
                || (builtInLong ? !value.equals(cell.lastRowValue) : cell.foldedSinceRow);
        if (mayHaveChanged) {
          row(w, e.getKey(), cell, value, Timing.EARLY, false);
          earlyRows++;
        } else {
          unchangedSkips++;
        }
      }
    }
  }

  /**
   * Whether a mark {@code s + k * delta}, {@code k >= 1}, {@code < e}, lies in {@code (n0, n1]}.
   */
  private boolean passesMark(Window<R> w, long n0, long n1) {
    long delta = shape.earlyDeltaMillis();
    for (long m = saturatedAdd(w.start, delta); m < w.end; m = saturatedAdd(m, delta)) {
      if (m > n1) {
        return false;
      }
      if (m > n0) {
        return true;
      }
    }
    return false;
  }

  /** Rules B and C by the watermark now. */
  private void close() {
    closeAt(tracker.watermark());
  }

  /**
   * Rules B and C at one step of the watermark: on-time rows in ascending end, then retirement.
   * Called by the tracker's listener at every step (when the test gives it one), and after every
   * call; a second call at the same watermark changes nothing.
   */
  @Override
  public void closeAt(long watermark) {
    for (Window<R> w : windows.values()) {
      if (!w.onTime && w.end <= watermark) {
        w.onTime = true;
        boolean isFinal = saturatedAdd(w.end, shape.graceMillis()) <= watermark;
        for (Map.Entry<String, Cell<R>> e : w.keys.entrySet()) {
          row(
              w,
              e.getKey(),
              e.getValue(),
              fold.apply(e.getValue().values),
              Timing.ON_TIME,
              isFinal);
        }
      }
    }
    for (Iterator<Window<R>> it = windows.values().iterator(); it.hasNext(); ) {
      Window<R> w = it.next();
      if (saturatedAdd(w.end, shape.graceMillis()) <= watermark) {
        it.remove();
        retiredWindows++;
      }
    }
  }

  private void row(Window<R> w, String key, Cell<R> cell, R value, Timing timing, boolean isFinal) {
    rows.add(new WindowResult<>(w.start, w.end, key, value, null, timing, cell.rows, isFinal));
    cell.rows++;
    cell.lastRowValue = value;
    cell.foldedSinceRow = false;
  }

  /**
   * The starts of the windows of {@code t}, ascending: for tumbling windows {@code floorDiv(t,
   * size) * size}, computed as {@code t - floorMod(t, size)}, saturating; for hopping windows every
   * {@code k * advance + offset} in {@code (t - size, t]}, found by walking down from {@code t}.
   */
  private List<Long> startsOf(long t) {
    if (shape.advanceMillis() == shape.sizeMillis()) {
      try {
        return List.of(Math.subtractExact(t, Math.floorMod(t, shape.sizeMillis())));
      } catch (ArithmeticException overflow) {
        return List.of(Long.MIN_VALUE);
      }
    }
    List<Long> starts = new ArrayList<>();
    for (long s = t; s > t - shape.sizeMillis(); s--) {
      if (Math.floorMod(s - shape.offsetMillis(), shape.advanceMillis()) == 0) {
        starts.add(0, s);
      }
    }
    return starts;
  }

  /**
   * The end of the window starting at {@code start} that holds {@code t}: the start plus the size,
   * computed from {@code t} for tumbling windows so that a saturated start does not shift it.
   */
  private long endOf(long start, long t) {
    if (shape.advanceMillis() == shape.sizeMillis()) {
      return saturatedAdd(t, shape.sizeMillis() - Math.floorMod(t, shape.sizeMillis()));
    }
    return start + shape.sizeMillis();
  }

  private static long saturatedAdd(long a, long b) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException overflow) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
