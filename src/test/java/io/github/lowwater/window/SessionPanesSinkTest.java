package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Rule 56's promise to a sink, against the session windows without panes as the oracle: a sink that
 * applies every row in order (deletes the rows a row replaces, then upserts it on (start, key))
 * ends with exactly the rows of a run without early results on the same calls. Early results every
 * 1 to 30 ms and no grace period, over the random traces of {@link PanesModelTest}; the oracle is
 * the {@link SessionTable} path, which {@link SessionWindowsModelTest} and the peer test check on
 * their own. The run without panes is given the events the run with them accepted; one that was
 * late there only because it would have joined a session ({@code t + gap <= W}: with panes it is
 * late, rule 56) is observed instead. Along the way the sink checks that an upsert never lowers the
 * index it holds and that a replacing row's index is above every index it replaces.
 */
class SessionPanesSinkTest {

  /** A row as the sink holds it. */
  private record Held(long end, long value, int index) {}

  @Test
  void aSinkThatDeletesReplacedRowsAndUpsertsEndsWithTheRowsOfARunWithoutEarlyResults() {
    int traces = Trials.of(2_000);
    long replaced = 0;
    long earlyRows = 0;
    for (int trace = 0; trace < traces; trace++) {
      Random random = new Random(4_000_000 + trace);
      PanesModelTest.Options o = PanesModelTest.Options.randomSessions(random);
      long early = 1 + random.nextInt(30);
      List<PanesModelTest.Step> steps = PanesModelTest.trace(random, o, false);
      List<Boolean> accepted = new ArrayList<>();
      List<WindowResult<String, Long>> paned = rows(o, early, steps, accepted);
      List<WindowResult<String, Long>> plain = rows(o, 0, steps, accepted);
      String what = "trace " + trace + " " + o + " early " + early + ": " + steps;
      Map<String, Held> sink = new TreeMap<>();
      for (WindowResult<String, Long> r : paned) {
        int highestReplaced = -1;
        for (long start : r.replaces()) {
          Held gone = sink.remove(start + "/" + r.key());
          assertThat(gone).as("%s: %s replaces a row the sink does not hold", what, r).isNotNull();
          highestReplaced = Math.max(highestReplaced, gone.index());
          replaced++;
        }
        assertThat(r.index()).as("%s: %s", what, r).isGreaterThan(highestReplaced);
        Held before = sink.put(r.start() + "/" + r.key(), new Held(r.end(), r.value(), r.index()));
        if (before != null) {
          assertThat(r.index()).as("%s: %s", what, r).isGreaterThan(before.index());
        }
        if (r.timing() == Timing.EARLY) {
          earlyRows++;
        }
      }
      Map<String, Held> truth = new TreeMap<>();
      for (WindowResult<String, Long> r : plain) {
        assertThat(truth.put(r.start() + "/" + r.key(), new Held(r.end(), r.value(), 0))).isNull();
      }
      assertThat(withoutIndexes(sink)).as(what).isEqualTo(truth);
    }
    assertThat(earlyRows).as("early rows").isGreaterThan(traces);
    assertThat(replaced).as("rows replaced").isGreaterThan(traces / 4);
  }

  private static Map<String, Held> withoutIndexes(Map<String, Held> sink) {
    Map<String, Held> rows = new TreeMap<>();
    sink.forEach((k, v) -> rows.put(k, new Held(v.end(), v.value(), 0)));
    return rows;
  }

  /**
   * The rows of the trace's calls in session windows of its gap and span, without a grace period,
   * with early results every {@code early} ms, or none.
   */
  private static List<WindowResult<String, Long>> rows(
      PanesModelTest.Options o,
      long early,
      List<PanesModelTest.Step> steps,
      List<Boolean> accepted) {
    ManualClock clock = new ManualClock(Instant.ofEpochMilli(o.base()));
    SessionWindows.Builder<Long, Long> builder =
        SessionWindows.<Long, Long>builder(Duration.ofMillis(o.sizeMillis()), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(o.latenessMillis()))
            .idleTimeout(Duration.ofMillis(o.idleMillis()))
            .clock(clock);
    if (o.spanMillis() > 0) {
      builder.maxSessionSpan(Duration.ofMillis(o.spanMillis()));
    }
    if (early > 0) {
      builder.earlyResults(Duration.ofMillis(early));
    }
    EventTimeWindows<String, Long, Long> windows = builder.build();
    List<WindowResult<String, Long>> all = new ArrayList<>();
    int adds = 0;
    for (PanesModelTest.Step step : steps) {
      clock.advanceMillis(step.tickMillis());
      PanesModelTest.Call call = step.call();
      if (call instanceof PanesModelTest.Add a) {
        if (early > 0) { // with panes: noted for the run without
          accepted.add(windows.add(a.source(), a.t(), a.key(), a.value()));
        } else if (accepted.get(adds++)) {
          windows.add(a.source(), a.t(), a.key(), a.value());
        } else { // late with panes, though it may join a session: the tracker still sees it
          windows.observe(a.source(), a.t());
        }
      } else if (call instanceof PanesModelTest.Observe ob) {
        windows.observe(ob.source(), ob.t());
      } else if (call instanceof PanesModelTest.AdvanceTo adv) {
        windows.advanceTo(adv.wallMillis());
      } else if (call instanceof PanesModelTest.Refresh) {
        windows.refresh();
      } else if (call instanceof PanesModelTest.Finish) {
        windows.finish();
      } else {
        all.addAll(windows.pollFinalized());
      }
    }
    all.addAll(windows.pollFinalized());
    return all;
  }
}
