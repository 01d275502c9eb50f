package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkListener;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The panes of {@link TumblingWindows} and {@link HoppingWindows} (early results and a grace
 * period, issue 18) against {@link PaneReference}, a naive reference written from the rules alone,
 * over random traces: tumbling windows, or hopping windows of 2 to 40 ms that advance by 1 ms to
 * their size less one (so an event falls into 2 to 40 windows, some of them retired already); 1 to
 * 4 sources with disorder and idleness on a {@link ManualClock} that moves a little per step, keys
 * from a small set, every aggregator kind (sum, count, max, and two object aggregators that merge),
 * early results off or every 1 to 30 ms, a grace of 0 or up to 60 ms, {@code observe}, {@code
 * advanceTo}, {@code refresh} and {@code finish} among the events, and drains at random points
 * through {@code pollFinalized()} or {@code drainFinalized} with a visitor that overrides the pane
 * callbacks. After every drain the concatenated rows equal the reference's exactly (start, end,
 * key, value, timing, index, isFinal), in order; after every step so do the verdict of the event,
 * the watermark and the counters. A failure names the trace: its options and its calls.
 */
class PanesModelTest {

  // The traces ----------------------------------------------------------------------------------

  /** The aggregators the traces use; the object ones merge, as panes require. */
  enum Kind {
    SUM,
    COUNT,
    MAX,
    CONCAT,
    LIST
  }

  /** Concatenates the values, "3,-1,7,": the accumulator is a mutable builder. */
  static final Aggregator<Long, StringBuilder, String> CONCATENATION =
      Aggregators.of(
          StringBuilder::new,
          (sb, v) -> sb.append(v).append(','),
          (left, right) -> left.append(right),
          StringBuilder::toString);

  /** Lists the values; the result is a copy, so that a row never changes after it was produced. */
  static final Aggregator<Long, List<Long>, List<Long>> LISTING =
      Aggregators.of(
          ArrayList::new,
          (list, v) -> {
            list.add(v);
            return list;
          },
          (left, right) -> {
            left.addAll(right);
            return left;
          },
          List::copyOf);

  /**
   * The options of one trace.
   *
   * @param earlyMillis the early delta, or {@link PaneReference#EARLY_OFF}: not set
   * @param graceSet whether {@code grace(...)} is called (with 0 too: the default, set explicitly)
   */
  record Options(
      Kind kind,
      int sources,
      long sizeMillis,
      long advanceMillis,
      long latenessMillis,
      long idleMillis,
      long earlyMillis,
      long graceMillis,
      boolean graceSet,
      long base,
      long offsetMillis,
      boolean sessions,
      long spanMillis) {

    static Options random(Random random) {
      Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
      int sources = 1 + random.nextInt(4);
      long size = 1 + random.nextInt(50);
      long lateness = random.nextInt(41);
      long idle = 1 + random.nextInt(60);
      long early = random.nextInt(3) == 0 ? PaneReference.EARLY_OFF : 1 + random.nextInt(30);
      boolean graceSet = random.nextBoolean();
      long grace = graceSet && random.nextBoolean() ? random.nextInt(61) : 0;
      long base = new long[] {0, -1_000, 1_000_000, -7}[random.nextInt(4)];
      return new Options(
          kind, sources, size, size, lateness, idle, early, grace, graceSet, base, 0, false, 0);
    }

    /**
     * Session windows whose gap is {@link #sizeMillis} (1 to 50 ms), a maximum span of 1 to 4 gaps
     * in one trace of three, always with panes: without, {@link SessionWindowsModelTest} covers
     * them.
     */
    static Options randomSessions(Random random) {
      Options o = random(random);
      if (o.earlyMillis == PaneReference.EARLY_OFF && o.graceMillis == 0) {
        o = o.withGrace(1 + random.nextInt(60));
      }
      long span = random.nextInt(3) == 0 ? o.sizeMillis * (1 + random.nextInt(4)) : 0;
      return new Options(
          o.kind,
          o.sources,
          o.sizeMillis,
          o.sizeMillis,
          o.latenessMillis,
          o.idleMillis,
          o.earlyMillis,
          o.graceMillis,
          o.graceSet,
          o.base,
          0,
          true,
          span);
    }

    /**
     * Hopping windows of 2 to 40 ms advancing by 1 ms to their size less one, always with panes:
     * without early results and grace, hopping windows keep their own rules (keys and merges in
     * slice order, semantics rule 41), which the reference does not model.
     */
    static Options randomHopping(Random random) {
      Options o = random(random);
      long size = 2 + random.nextInt(39);
      long advance = 1 + random.nextInt((int) size - 1);
      if (o.earlyMillis == PaneReference.EARLY_OFF && o.graceMillis == 0) {
        o = o.withGrace(1 + random.nextInt(60));
      }
      return new Options(
          o.kind,
          o.sources,
          size,
          advance,
          o.latenessMillis,
          o.idleMillis,
          o.earlyMillis,
          o.graceMillis,
          o.graceSet,
          o.base,
          random.nextInt(101) - 50,
          false,
          0);
    }

    Options withGrace(long grace) {
      return new Options(
          kind,
          sources,
          sizeMillis,
          advanceMillis,
          latenessMillis,
          idleMillis,
          earlyMillis,
          grace,
          true,
          base,
          offsetMillis,
          sessions,
          spanMillis);
    }

    boolean hopping() {
      return advanceMillis != sizeMillis;
    }

    PaneReference.Shape shape() {
      return new PaneReference.Shape(
          sizeMillis, advanceMillis, offsetMillis, earlyMillis, graceMillis);
    }

    /**
     * The reference's own tracker: the windows' options, the same clock, and a listener that closes
     * the reference's windows at every step of the watermark, as the windows' own tracker closes
     * theirs (one call may raise it more than once: {@code advanceTo} re-evaluates first).
     */
    WatermarkTracker tracker(ManualClock clock, Forward forward) {
      return WatermarkTracker.builder()
          .allowedLateness(Duration.ofMillis(latenessMillis))
          .idleTimeout(Duration.ofMillis(idleMillis))
          .clock(clock)
          .build(forward);
    }
  }

  /** Hands each watermark step of the reference's tracker to the reference, once it exists. */
  static final class Forward implements WatermarkListener {
    PaneModel<?> to;

    @Override
    public void onWatermarkRaised(long watermarkMillis) {
      if (to != null) {
        to.closeAt(watermarkMillis);
      }
    }
  }

  /** One step of a trace: the clock moves by {@code tickMillis}, then one call. */
  sealed interface Call permits Add, Observe, AdvanceTo, Refresh, Finish, Drain {}

  record Add(String source, long t, String key, long value) implements Call {}

  record Observe(String source, long t) implements Call {}

  record AdvanceTo(long wallMillis) implements Call {}

  record Refresh() implements Call {}

  record Finish() implements Call {}

  /**
   * A drain: by {@code pollFinalized()}, or by {@code drainFinalized} with a visitor that throws at
   * its row {@code throwAt} ({@link #NEVER}: it does not throw).
   */
  record Drain(boolean poll, int throwAt) implements Call {
    static final int NEVER = -1;
  }

  record Step(long tickMillis, Call call) {
    @Override
    public String toString() {
      return (tickMillis == 0 ? "" : "+" + tickMillis + "ms ") + call;
    }
  }

  /**
   * A random trace: event times near the wall clock, up to {@code lateness + grace + 2 * size}
   * behind it (late events, late updates, windows opened behind N), from a skewed choice of sources
   * (the last ones are quiet for long stretches and go idle); sometimes a {@code finish} near the
   * end, after which every event is late. Drains throw at a random row when {@code throwing}.
   */
  static List<Step> trace(Random random, Options o, boolean throwing) {
    List<Step> steps = new ArrayList<>();
    int keys = 1 + random.nextInt(4);
    int disorder =
        1 + random.nextInt((int) (o.latenessMillis() + o.graceMillis() + 2 * o.sizeMillis()));
    int length = 5 + random.nextInt(120);
    long wall = o.base();
    boolean finished = false;
    for (int i = 0; i < length; i++) {
      long tick = random.nextInt(3);
      wall += tick;
      String source = "s" + Math.min(random.nextInt(o.sources()), random.nextInt(o.sources()));
      long t = wall - random.nextInt(disorder) + random.nextInt(3);
      int op = random.nextInt(40);
      Call call;
      if (op == 0) {
        call = new Observe(source, t);
      } else if (op == 1) {
        call = new AdvanceTo(wall + random.nextInt(21) - 10);
      } else if (op == 2) {
        call = new Refresh();
      } else if (op == 3 && !finished && i > length * 3 / 4) {
        call = new Finish();
        finished = true;
      } else if (op < 12) {
        int throwAt = throwing ? random.nextInt(6) : Drain.NEVER;
        call = new Drain(!throwing && random.nextBoolean(), throwAt);
      } else {
        // 0, and values that cancel: sums that a firing finds unchanged; for hopping sums, now
        // and then a third of Long.MAX_VALUE, which overflows some windows of an event and not
        // others: the fold into several windows must then change none
        long value =
            o.hopping() && o.kind() == Kind.SUM && random.nextInt(6) == 0
                ? Long.MAX_VALUE / 3
                : random.nextInt(13) - 3;
        call = new Add(source, t, "k" + random.nextInt(keys), value);
      }
      steps.add(new Step(tick, call));
    }
    steps.add(new Step(0, new Finish()));
    steps.add(new Step(0, new Drain(random.nextBoolean(), Drain.NEVER)));
    return steps;
  }

  // The tests -----------------------------------------------------------------------------------

  /** What the traces reached, summed over all of them, so that the test shows what it covered. */
  static final class Coverage {
    long earlyRows;
    long unchangedSkips;
    long lateUpdates;
    long late;
    long partiallyLate;
    long overflows;
    long polls;
    long visitorDrains;
    long thrown;
    long replacements;
  }

  @Test
  void panesAgreeWithTheNaiveReferenceOverRandomTraces() {
    Coverage coverage = new Coverage();
    int traces = Trials.of(2_000);
    for (int trace = 0; trace < traces; trace++) {
      run(new Random(trace), trace, false, false, coverage);
    }
    // The traces reach the cases that matter, not only the easy ones.
    assertThat(coverage.earlyRows).as("early rows").isGreaterThan(traces);
    assertThat(coverage.unchangedSkips).as("keys a firing skipped").isGreaterThan(traces / 10);
    assertThat(coverage.lateUpdates).as("late updates").isGreaterThan(traces / 4);
    assertThat(coverage.late).as("late events").isGreaterThan(traces / 4);
    assertThat(coverage.polls).as("polls").isGreaterThan(traces);
    assertThat(coverage.visitorDrains).as("drains through a visitor").isGreaterThan(traces);
  }

  /**
   * A visitor that throws at a random row: the rows it was handed before stay handed out, and the
   * next drain starts with the row it threw at (Rule D: the rows depend only on the calls, never on
   * when or how the caller drains).
   */
  @Test
  void aDrainAfterAVisitorThrewStartsWithTheRowItThrewAt() {
    Coverage coverage = new Coverage();
    int traces = Trials.of(500);
    for (int trace = 0; trace < traces; trace++) {
      run(new Random(1_000_000 + trace), trace, true, trace % 2 == 1, coverage);
    }
    assertThat(coverage.thrown).as("drains that threw").isGreaterThan(traces);
  }

  /**
   * Rules 50 to 53 for hopping windows: an event folds into every window of it not retired, the
   * retired ones make it partially late, and each window fires, closes, takes late updates and
   * retires as a tumbling window does.
   */
  @Test
  void hoppingPanesAgreeWithTheNaiveReferenceOverRandomTraces() {
    Coverage coverage = new Coverage();
    int traces = Trials.of(1_500);
    for (int trace = 0; trace < traces; trace++) {
      run(new Random(2_000_000 + trace), trace, false, true, coverage);
    }
    assertThat(coverage.earlyRows).as("early rows").isGreaterThan(traces);
    assertThat(coverage.unchangedSkips).as("keys a firing skipped").isGreaterThan(traces / 10);
    assertThat(coverage.lateUpdates).as("late updates").isGreaterThan(traces / 4);
    assertThat(coverage.partiallyLate).as("partially late events").isGreaterThan(traces / 4);
    assertThat(coverage.overflows)
        .as("adds that overflowed, changing nothing")
        .isGreaterThan(traces / 20);
    assertThat(coverage.late).as("late events").isGreaterThan(traces / 4);
    assertThat(coverage.visitorDrains).as("drains through a visitor").isGreaterThan(traces);
  }

  /**
   * Rule 56: session windows with panes against {@link SessionPaneReference}: sessions open, grow,
   * merge (over rows already produced, which the next row replaces), fire at the marks of their
   * current span, get their on-time row, take late updates and retire, with and without a maximum
   * span; drains that throw at a random row included.
   */
  @Test
  void sessionPanesAgreeWithTheNaiveReferenceOverRandomTraces() {
    Coverage coverage = new Coverage();
    int traces = Trials.of(2_000);
    for (int trace = 0; trace < traces; trace++) {
      Random random = new Random(3_000_000 + trace);
      run(random, trace, trace % 4 == 3, Options.randomSessions(random), coverage);
    }
    assertThat(coverage.earlyRows).as("early rows").isGreaterThan(traces);
    assertThat(coverage.unchangedSkips).as("sessions a firing skipped").isGreaterThan(traces / 10);
    assertThat(coverage.lateUpdates).as("late updates").isGreaterThan(traces / 4);
    assertThat(coverage.replacements).as("rows replaced").isGreaterThan(traces / 4);
    assertThat(coverage.late).as("late events").isGreaterThan(traces / 4);
    assertThat(coverage.thrown).as("drains that threw").isGreaterThan(traces / 8);
    assertThat(coverage.visitorDrains).as("drains through a visitor").isGreaterThan(traces);
  }

  /** The failure of a visitor reaches the caller of {@code drainFinalized} as it was thrown. */
  @Test
  void aVisitorsExceptionPropagatesOutOfTheDrainAndLeavesItsRowQueued() {
    Options o = new Options(Kind.SUM, 1, 10, 10, 0, 1_000, 3, 5, true, 0, 0, false, 0);
    EventTimeWindows<String, Long, Long> windows =
        windows(o, new ManualClock(), Aggregators.sumLong());
    windows.add("s", 4, "a", 1L); // N = 4 passes the mark 3: one early row
    assertThatThrownBy(() -> windows.drainFinalized(new PaneCollector<Long>(true, 0)))
        .isInstanceOf(VisitorFailure.class);
    assertThat(windows.pollFinalized())
        .containsExactly(new WindowResult<>(0, 10, "a", 1L, null, Timing.EARLY, 0, false));
  }

  // Running a trace against both ---------------------------------------------------------------

  private static void run(
      Random random, int trace, boolean throwing, boolean hopping, Coverage coverage) {
    run(
        random,
        trace,
        throwing,
        hopping ? Options.randomHopping(random) : Options.random(random),
        coverage);
  }

  private static void run(
      Random random, int trace, boolean throwing, Options o, Coverage coverage) {
    List<Step> steps = trace(random, o, throwing);
    ManualClock clock = new ManualClock(Instant.ofEpochMilli(o.base()));
    Forward forward = new Forward();
    WatermarkTracker tracker = o.tracker(clock, forward);
    PaneReference.Shape shape = o.shape();
    switch (o.kind()) {
      case SUM:
        run(
            trace,
            o,
            steps,
            clock,
            Aggregators.sumLong(),
            o.sessions()
                ? sessions(o, tracker, PanesModelTest::sum, true)
                : PaneReference.sum(shape, tracker),
            true,
            coverage,
            forward);
        break;
      case COUNT:
        run(
            trace,
            o,
            steps,
            clock,
            Aggregators.count(),
            o.sessions()
                ? sessions(o, tracker, values -> (long) values.size(), true)
                : PaneReference.count(shape, tracker),
            true,
            coverage,
            forward);
        break;
      case MAX:
        run(
            trace,
            o,
            steps,
            clock,
            Aggregators.maxLong(),
            o.sessions()
                ? sessions(o, tracker, PanesModelTest::max, true)
                : PaneReference.max(shape, tracker),
            true,
            coverage,
            forward);
        break;
      case CONCAT:
        run(
            trace,
            o,
            steps,
            clock,
            CONCATENATION,
            o.sessions()
                ? sessions(o, tracker, values -> afresh(CONCATENATION, values), false)
                : PaneReference.of(CONCATENATION, shape, tracker),
            false,
            coverage,
            forward);
        break;
      default:
        run(
            trace,
            o,
            steps,
            clock,
            LISTING,
            o.sessions()
                ? sessions(o, tracker, values -> afresh(LISTING, values), false)
                : PaneReference.of(LISTING, shape, tracker),
            false,
            coverage,
            forward);
        break;
    }
  }

  private static <R> SessionPaneReference<R> sessions(
      Options o, WatermarkTracker tracker, Function<List<Long>, R> fold, boolean builtInLong) {
    return new SessionPaneReference<>(
        fold,
        builtInLong,
        o.sizeMillis(),
        o.spanMillis(),
        o.earlyMillis(),
        o.graceMillis(),
        tracker);
  }

  private static long sum(List<Long> values) {
    long sum = 0;
    for (long v : values) {
      sum = Math.addExact(sum, v);
    }
    return sum;
  }

  private static long max(List<Long> values) {
    long max = Long.MIN_VALUE;
    for (long v : values) {
      max = Math.max(max, v);
    }
    return max;
  }

  private static <A, R> R afresh(Aggregator<? super Long, A, R> aggregator, List<Long> values) {
    A accumulator = aggregator.create();
    for (Long v : values) {
      accumulator = aggregator.add(accumulator, v);
    }
    return aggregator.result(accumulator);
  }

  static <R> EventTimeWindows<String, Long, R> windows(
      Options o, ManualClock clock, Aggregator<? super Long, ?, R> aggregator) {
    if (o.sessions()) {
      SessionWindows.Builder<Long, R> builder =
          SessionWindows.<Long, R>builder(Duration.ofMillis(o.sizeMillis()), aggregator);
      if (o.spanMillis() > 0) {
        builder.maxSessionSpan(Duration.ofMillis(o.spanMillis()));
      }
      return configure(builder, o, clock).build();
    }
    if (o.hopping()) {
      return configure(
              HoppingWindows.<Long, R>builder(
                      Duration.ofMillis(o.sizeMillis()),
                      Duration.ofMillis(o.advanceMillis()),
                      aggregator)
                  .offset(Duration.ofMillis(o.offsetMillis())),
              o,
              clock)
          .build();
    }
    return configure(
            TumblingWindows.<Long, R>builder(Duration.ofMillis(o.sizeMillis()), aggregator),
            o,
            clock)
        .build();
  }

  private static <B extends EventTimeOptions<B>> B configure(
      B builder, Options o, ManualClock clock) {
    builder
        .allowedLateness(Duration.ofMillis(o.latenessMillis()))
        .idleTimeout(Duration.ofMillis(o.idleMillis()))
        .clock(clock);
    if (o.earlyMillis() != PaneReference.EARLY_OFF) {
      builder.earlyResults(Duration.ofMillis(o.earlyMillis()));
    }
    if (o.graceSet()) {
      builder.grace(Duration.ofMillis(o.graceMillis()));
    }
    return builder;
  }

  private static <R> void run(
      int trace,
      Options o,
      List<Step> steps,
      ManualClock clock,
      Aggregator<? super Long, ?, R> aggregator,
      PaneModel<R> ref,
      boolean builtInLong,
      Coverage coverage,
      Forward forward) {
    forward.to = ref;
    EventTimeWindows<String, Long, R> windows = windows(o, clock, aggregator);
    List<WindowResult<String, R>> drained = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      int done = i + 1;
      Supplier<String> what =
          () ->
              "trace "
                  + trace
                  + " "
                  + o
                  + ", after step "
                  + (done - 1)
                  + " of "
                  + steps.subList(0, done);
      Step step = steps.get(i);
      clock.advanceMillis(step.tickMillis());
      Call call = step.call();
      if (call instanceof Add a) {
        boolean expected;
        try {
          expected = ref.add(a.source(), a.t(), a.key(), a.value());
        } catch (ArithmeticException overflow) {
          assertThatThrownBy(() -> windows.add(a.source(), a.t(), a.key(), a.value()))
              .as(what)
              .isInstanceOf(ArithmeticException.class);
          coverage.overflows++;
          expected = false;
          compareStats(windows, ref, what);
          continue;
        }
        assertThat(windows.add(a.source(), a.t(), a.key(), a.value())).as(what).isEqualTo(expected);
      } else if (call instanceof Observe ob) {
        ref.observe(ob.source(), ob.t());
        windows.observe(ob.source(), ob.t());
      } else if (call instanceof AdvanceTo adv) {
        ref.advanceTo(adv.wallMillis());
        windows.advanceTo(adv.wallMillis());
      } else if (call instanceof Refresh) {
        ref.refresh();
        windows.refresh();
      } else if (call instanceof Finish) {
        ref.finish();
        windows.finish();
      } else {
        drain((Drain) call, windows, builtInLong, drained, coverage, what);
        assertSameRows(drained, ref.rows(), what);
      }
      assertThat(windows.watermark()).as(what).isEqualTo(ref.watermark());
      compareStats(windows, ref, what);
    }
    // Every trace ends with finish() and a drain.
    assertThat(ref.heldWindows()).as(what(trace, o, steps)).isZero();
    assertThat(windows.stats().openWindows()).as(what(trace, o, steps)).isZero();
    assertThat(windows.stats().openEntries()).as(what(trace, o, steps)).isZero();
    assertThat(windows.pollFinalized()).as(what(trace, o, steps)).isEmpty();
    coverage.earlyRows += ref.earlyRows();
    coverage.unchangedSkips += ref.unchangedSkips();
    coverage.lateUpdates += ref.lateUpdates();
    coverage.late += ref.late();
    coverage.partiallyLate += ref.partiallyLate();
    if (ref instanceof SessionPaneReference<R> sessions) {
      coverage.replacements += sessions.replacements();
    }
  }

  /** The rows drained equal the reference's; a failure names the first row that differs. */
  private static <R> void assertSameRows(
      List<WindowResult<String, R>> drained,
      List<WindowResult<String, R>> expected,
      Supplier<String> what) {
    int same = 0;
    while (same < Math.min(drained.size(), expected.size())
        && drained.get(same).equals(expected.get(same))) {
      same++;
    }
    int first = same;
    assertThat(drained)
        .as(() -> what.get() + ": rows differ from row " + first)
        .isEqualTo(expected);
  }

  private static Supplier<String> what(int trace, Options o, List<Step> steps) {
    return () -> "trace " + trace + " " + o + ": " + steps;
  }

  private static void compareStats(
      EventTimeWindows<String, Long, ?> windows, PaneModel<?> ref, Supplier<String> what) {
    WindowStats stats = windows.stats();
    // Read into longs: the comparisons hold whether the counters are ints or longs.
    long earlyRows = stats.earlyRows();
    long lateUpdates = stats.lateUpdates();
    long retiredWindows = stats.retiredWindows();
    assertThat(earlyRows).as(() -> what.get() + ": earlyRows").isEqualTo(ref.earlyRows());
    assertThat(lateUpdates).as(() -> what.get() + ": lateUpdates").isEqualTo(ref.lateUpdates());
    assertThat(retiredWindows)
        .as(() -> what.get() + ": retiredWindows")
        .isEqualTo(ref.retiredWindows());
    assertThat(stats.late()).as(() -> what.get() + ": late").isEqualTo(ref.late());
    assertThat(stats.partiallyLate())
        .as(() -> what.get() + ": partiallyLate")
        .isEqualTo(ref.partiallyLate());
    assertThat(stats.accepted()).as(() -> what.get() + ": accepted").isEqualTo(ref.accepted());
  }

  /**
   * One drain, appended to {@code drained}: a poll, or a visitor's drain; a visitor that throws at
   * a row leaves the rows before it handed out, and the next drain, at once, must start with it.
   */
  private static <R> void drain(
      Drain drain,
      EventTimeWindows<String, Long, R> windows,
      boolean builtInLong,
      List<WindowResult<String, R>> drained,
      Coverage coverage,
      Supplier<String> what) {
    if (drain.poll()) {
      drained.addAll(windows.pollFinalized());
      coverage.polls++;
      return;
    }
    coverage.visitorDrains++;
    PaneCollector<R> visitor = new PaneCollector<>(builtInLong, drain.throwAt());
    int visited;
    try {
      visited = windows.drainFinalized(visitor);
    } catch (VisitorFailure expected) {
      coverage.thrown++;
      assertThat(visitor.rows).as(what).hasSize(drain.throwAt() + 1);
      // With panes, rows are taken one by one: the next drain starts with the row that threw.
      // Without, a window is taken once all its rows were visited: it starts with the first row
      // of that window (semantics rule 53; ResultVisitor).
      int restart = drain.throwAt();
      boolean rowByRow = windows.earlyResultsMillis() > 0 || windows.graceMillis() > 0;
      while (!rowByRow
          && restart > 0
          && visitor.rows.get(restart - 1).start() == visitor.rows.get(restart).start()) {
        restart--;
      }
      WindowResult<String, R> failed = visitor.rows.get(restart);
      drained.addAll(visitor.rows.subList(0, restart));
      PaneCollector<R> next = new PaneCollector<>(builtInLong, Drain.NEVER);
      int again = windows.drainFinalized(next);
      assertThat(again).as(what).isEqualTo(next.rows.size());
      assertThat(next.rows).as(() -> what.get() + ": the drain after the throw").isNotEmpty();
      assertThat(next.rows.get(0))
          .as(() -> what.get() + ": the drain after the throw starts with its row")
          .isEqualTo(failed);
      drained.addAll(next.rows);
      return;
    }
    assertThat(visited)
        .as(() -> what.get() + ": drainFinalized's count")
        .isEqualTo(visitor.rows.size());
    drained.addAll(visitor.rows);
  }

  /** The exception of a {@link PaneCollector} told to throw. */
  static final class VisitorFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    VisitorFailure(String message) {
      super(message);
    }
  }

  /**
   * A visitor that overrides both pane callbacks and records each row. The windows must call {@link
   * #visitLongPane} for a built-in long aggregator and {@link #visitPane} otherwise, never the
   * pane-less callbacks. Throws at its row {@code throwAt} (counted from 0 in its drain), after
   * recording it, unless {@code throwAt} is {@link Drain#NEVER}.
   */
  static final class PaneCollector<R> implements ResultVisitor<String, R> {
    final List<WindowResult<String, R>> rows = new ArrayList<>();
    private final boolean builtInLong;
    private final int throwAt;

    /** The starts the next row replaces, as {@link #visitReplaced} named them. */
    private final List<Long> replaced = new ArrayList<>();

    PaneCollector(boolean builtInLong, int throwAt) {
      this.builtInLong = builtInLong;
      this.throwAt = throwAt;
    }

    @Override
    public void visit(long startMillis, long endMillis, String key, R result) {
      throw new AssertionError("visit called instead of visitPane: [" + startMillis + ", " + key);
    }

    @Override
    public void visitLong(long startMillis, long endMillis, String key, long result) {
      throw new AssertionError("visitLong called instead of visitLongPane: [" + startMillis);
    }

    @Override
    public void visitPane(
        long start, long end, String key, R result, Timing timing, int index, boolean isFinal) {
      assertThat(builtInLong).as("visitPane called for a built-in long aggregator").isFalse();
      take(new WindowResult<>(start, end, key, result, null, timing, index, isFinal, replaced));
    }

    @Override
    public void visitReplaced(long startMillis, String key) {
      replaced.add(startMillis);
    }

    @Override
    @SuppressWarnings("unchecked") // only called by windows whose result type is Long
    public void visitLongPane(
        long start, long end, String key, long result, Timing timing, int index, boolean isFinal) {
      assertThat(builtInLong).as("visitLongPane called for an object aggregator").isTrue();
      R value = (R) Long.valueOf(result);
      take(new WindowResult<>(start, end, key, value, null, timing, index, isFinal, replaced));
    }

    private void take(WindowResult<String, R> row) {
      replaced.clear();
      rows.add(row);
      if (rows.size() - 1 == throwAt) {
        throw new VisitorFailure("the visitor fails at its row " + throwAt + ": " + row);
      }
    }
  }
}
