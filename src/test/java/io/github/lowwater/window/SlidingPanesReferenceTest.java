package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link SlidingWindows} with early results and a grace period against a naive reference of
 * semantics rule 79 on random traces: several sources and keys, disorder beyond the allowed
 * lateness and into and past the grace period, equal times, and a drain after every record. The
 * reference knows only the records, their order, and the watermark before and after each record; it
 * keeps no store, heap or cursor, and decides each row from the rule's text:
 *
 * <ul>
 *   <li>a record is late iff {@code t + 1 + G <= } the watermark it meets; the newest event time N
 *       rises with every record, late ones included;
 *   <li>a window {@code [e - d - 1, e)} of a key exists iff a record lies at {@code e - 1}, or one
 *       at {@code e - d - 2} and one in it (rule 77);
 *   <li>a record with {@code t + 1 <= } the watermark gives a {@code LATE} row in every window
 *       ending in {@code [t + 1, min(watermark, t + d + 2)]}, not retired, that holds it or did not
 *       exist before it;
 *   <li>when N rises from N0 to N1, every window still open (ending after the watermark) that
 *       exists and has a multiple of Δ in {@code (max(N0, start), min(N1, end - 1)]} gets an {@code
 *       EARLY} row if it has had no row or a record in it arrived since its last row;
 *   <li>each window ending in {@code (watermark before, watermark after]} gets its {@code ON_TIME}
 *       row, final iff {@code end + G <=} the watermark after;
 *   <li>every row's index counts the rows of its (window, key) from 0; its value folds, in time
 *       order (equal times in arrival order), the records in the window when it was produced;
 *   <li>a window ending by the end last given to {@code markWritten} gives no row of any timing,
 *       and a row produced while {@code replaying} is counted but not handed out.
 * </ul>
 *
 * <p>One trace in twenty is 200 records of one key, so that a key's windows retire while others
 * come and late updates land between them; a third of the traces call {@code markWritten} and
 * {@code replaying} now and then.
 */
class SlidingPanesReferenceTest {

  record Event(long t, int key, long value, long arrival) {}

  /** What the reference remembers of a window's rows: how many, and the newest arrival then. */
  static final class Marks {
    int rows;
    long arrival;
  }

  /** Collects the values of a window in fold order, so that the fold order is compared too. */
  static final class InOrder implements Aggregator<Long, List<Long>, String> {
    @Override
    public List<Long> create() {
      return new ArrayList<>();
    }

    @Override
    public List<Long> add(List<Long> accumulator, Long value) {
      accumulator.add(value);
      return accumulator;
    }

    @Override
    public String result(List<Long> accumulator) {
      return accumulator.toString();
    }
  }

  @Test
  void everyRowIsTheReferencesWithItsPaneInTheDrainTheReferenceSays() {
    int rows = 0;
    int droppedRows = 0;
    int[] byTiming = new int[Timing.values().length];
    int late = 0;
    for (int trace = 0; trace < Trials.of(1_000); trace++) {
      SplittableRandom random = new SplittableRandom(trace);
      long d = random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(30);
      long lateness = random.nextInt(4);
      long early = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt((int) d + 8);
      long grace = early > 0 && random.nextBoolean() ? 0 : random.nextInt((int) (2 * d + 6));
      if (early == 0 && grace == 0) {
        grace = 1;
      }
      int keys = 1 + random.nextInt(3);
      int sources = 1 + random.nextInt(3);
      int kind = trace % 3; // the sum, the maximum, or the values in fold order
      Aggregator<?, ?, ?> aggregator;
      if (kind == 0) {
        aggregator = Aggregators.sumLong();
      } else if (kind == 1) {
        aggregator = Aggregators.maxLong();
      } else {
        aggregator = new InOrder();
      }
      @SuppressWarnings({"unchecked", "rawtypes"})
      SlidingWindows.Builder<Long, Object> builder =
          SlidingWindows.builder(Duration.ofMillis(d), (Aggregator) aggregator);
      builder
          .allowedLateness(Duration.ofMillis(lateness))
          .idleTimeout(Duration.ofDays(1))
          .clock(new ManualClock());
      if (early > 0) {
        builder.earlyResults(Duration.ofMillis(early));
      }
      if (grace > 0) {
        builder.grace(Duration.ofMillis(grace));
      }
      SlidingWindows<String, Long, Object> w = builder.build();
      String setting =
          String.format(
              "trace %d (d %d, lateness %d, early %d, grace %d, kind %d)",
              trace, d, lateness, early, grace, kind);
      List<Event> events = new ArrayList<>();
      Map<String, Marks> marks = new HashMap<>();
      long newest = Long.MIN_VALUE;
      long arrival = 0;
      long base = random.nextLong(-1_000, 1_000);
      long[] sourceTime = new long[sources];
      java.util.Arrays.fill(sourceTime, base);
      // One trace in twenty is long and dense, one key: a key's windows retire from the front of
      // its pane memory while new ones come at the back, and late updates land in between.
      boolean dense = trace % 20 == 7;
      if (dense) {
        keys = 1;
      }
      int n = dense ? 200 : 5 + random.nextInt(100);
      // A third of the traces declare windows written now and then (markWritten: no row of any
      // timing for a window ending by it) and replay stretches of calls (rows counted, not
      // handed out).
      boolean writtenAndReplays = trace % 3 == 1;
      long written = Long.MIN_VALUE;
      boolean replaying = false;
      List<String> dropped = new ArrayList<>();
      // Half the traces drain after every call; the others now and then, so that rows wait while
      // later records come into their windows (a row holds the records that came before it).
      boolean everyCall = random.nextBoolean();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i <= n; i++) {
        long before = w.watermark();
        int calls = expected.size() == 0 ? 0 : 1; // whether an earlier call's rows wait
        long after;
        if (writtenAndReplays && i < n && random.nextInt(15) == 0) {
          written = Math.max(written, before + random.nextInt((int) (2 * d + 2)) - d);
          w.markWritten(written);
        }
        if (writtenAndReplays && i < n && random.nextInt(10) == 0) {
          replaying = !replaying;
          w.replaying(replaying);
        }
        List<String> out = replaying ? dropped : expected;
        if (i < n) {
          int s = random.nextInt(sources);
          sourceTime[s] += random.nextInt((int) Math.max(1, d / 2 + 3));
          long t =
              sourceTime[s]
                  - (random.nextInt(4) == 0 ? random.nextInt((int) (2 * d + grace + 8)) : 0);
          int key = random.nextInt(keys);
          long value = random.nextInt(4) == 0 ? 0 : 1L << random.nextInt(20);
          boolean expectLate = t + 1 + grace <= before;
          boolean in = w.add("s" + s, t, "k" + key, value);
          assertThat(in)
              .as("%s: record %d at %d, watermark %d", setting, i, t, before)
              .isEqualTo(!expectLate);
          after = w.watermark();
          if (in) {
            List<Event> prior = new ArrayList<>(events);
            Event event = new Event(t, key, value, ++arrival);
            events.add(event);
            if (t + 1 <= before) {
              lateRows(out, events, prior, event, d, grace, before, written, marks, kind);
            }
          } else {
            late++;
          }
          long previous = newest;
          newest = Math.max(newest, t);
          if (early > 0 && newest > previous) {
            earlyRows(out, events, d, early, previous, newest, before, written, marks, kind);
          }
        } else {
          w.finish();
          after = w.watermark();
        }
        onTimeRows(out, events, d, grace, before, after, written, marks, kind);
        if (!everyCall && i < n && random.nextInt(4) != 0) {
          continue;
        }
        List<String> got = new ArrayList<>();
        List<Timing> timings = new ArrayList<>();
        w.drainFinalized(
            new ResultVisitor<String, Object>() {
              @Override
              public void visit(long start, long end, String key, Object result) {
                throw new AssertionError("a row without its pane");
              }

              @Override
              public void visitLongPane(
                  long start,
                  long end,
                  String key,
                  long result,
                  Timing timing,
                  int index,
                  boolean isFinal) {
                visitPane(start, end, key, result, timing, index, isFinal);
              }

              @Override
              public void visitPane(
                  long start,
                  long end,
                  String key,
                  Object result,
                  Timing timing,
                  int index,
                  boolean isFinal) {
                got.add(row(key, start, end, String.valueOf(result), timing, index, isFinal));
                timings.add(timing);
              }
            });
        assertThat(got)
            .as("%s, the drain after call %d (watermark %d to %d)", setting, i, before, after)
            .containsExactlyInAnyOrderElementsOf(expected);
        if (calls == 0) {
          assertThat(timings)
              .as("%s: late rows, then early ones, then on-time ones", setting)
              .isSortedAccordingTo((a, b) -> Integer.compare(phase(a), phase(b)));
        }
        expected.clear();
        for (String row : got) {
          byTiming[
              Timing.valueOf(row.substring(row.indexOf(' ') + 1, row.indexOf('#'))).ordinal()]++;
        }
        rows += got.size();
      }
      droppedRows += dropped.size();
      assertThat(w.stats().openEntries()).as("%s: every record let go", setting).isZero();
      assertThat(w.stats().retiredWindows())
          .as("%s: every window retired", setting)
          .isEqualTo(marks.size());
    }
    System.out.printf(
        "SlidingPanesReferenceTest: %d rows compared (%d early, %d on time, %d late), %d late"
            + " records, %d rows of replays%n",
        rows,
        byTiming[Timing.EARLY.ordinal()],
        byTiming[Timing.ON_TIME.ordinal()],
        byTiming[Timing.LATE.ordinal()],
        late,
        droppedRows);
    assertThat(byTiming[Timing.EARLY.ordinal()]).isGreaterThan(Trials.of(1_000) * 5);
    assertThat(byTiming[Timing.LATE.ordinal()]).isGreaterThan(Trials.of(1_000));
    assertThat(late).isGreaterThan(100);
    assertThat(droppedRows).isGreaterThan(Trials.of(1_000));
  }

  private static int phase(Timing timing) {
    return timing == Timing.LATE ? 0 : timing == Timing.EARLY ? 1 : 2;
  }

  private static void lateRows(
      List<String> out,
      List<Event> events,
      List<Event> prior,
      Event event,
      long d,
      long grace,
      long watermark,
      long written,
      Map<String, Marks> marks,
      int kind) {
    for (long end : ends(events, event.key(), d)) {
      if (end < event.t() + 1 || end > Math.min(watermark, event.t() + d + 2) || end <= written) {
        continue;
      }
      if (end + grace <= watermark || !exists(events, event.key(), end, d)) {
        continue;
      }
      boolean holds = event.t() >= end - d - 1 && event.t() < end;
      if (holds || !exists(prior, event.key(), end, d)) {
        out.add(produce(events, event.key(), end, d, Timing.LATE, false, marks, kind));
      }
    }
  }

  private static void earlyRows(
      List<String> out,
      List<Event> events,
      long d,
      long early,
      long previous,
      long newest,
      long watermark,
      long written,
      Map<String, Marks> marks,
      int kind) {
    for (int key : keysOf(events)) {
      for (long end : ends(events, key, d)) {
        long start = end - d - 1;
        if (end <= watermark || end <= written || !exists(events, key, end, d)) {
          continue;
        }
        boolean mark = false;
        for (long m = Math.max(previous, start) + 1; m <= Math.min(newest, end - 1); m++) {
          if (Math.floorMod(m, early) == 0) {
            mark = true;
            break;
          }
        }
        if (!mark) {
          continue;
        }
        Marks last = marks.get(key + "@" + end);
        boolean changed =
            last == null
                || events.stream()
                    .anyMatch(
                        e ->
                            e.key() == key
                                && e.t() >= start
                                && e.t() < end
                                && e.arrival() > last.arrival);
        if (changed) {
          out.add(produce(events, key, end, d, Timing.EARLY, false, marks, kind));
        }
      }
    }
  }

  private static void onTimeRows(
      List<String> out,
      List<Event> events,
      long d,
      long grace,
      long before,
      long after,
      long written,
      Map<String, Marks> marks,
      int kind) {
    for (int key : keysOf(events)) {
      for (long end : ends(events, key, d)) {
        if (end > before && end <= after && end > written && exists(events, key, end, d)) {
          boolean isFinal = after == Long.MAX_VALUE || end + grace <= after;
          out.add(produce(events, key, end, d, Timing.ON_TIME, isFinal, marks, kind));
        }
      }
    }
  }

  /** The row of a window now, with its next index, remembered. */
  private static String produce(
      List<Event> events,
      int key,
      long end,
      long d,
      Timing timing,
      boolean isFinal,
      Map<String, Marks> marks,
      int kind) {
    Marks m = marks.computeIfAbsent(key + "@" + end, k -> new Marks());
    long start = end - d - 1;
    List<Event> in = new ArrayList<>();
    for (Event e : events) {
      if (e.key() == key && e.t() >= start && e.t() < end) {
        in.add(e);
        m.arrival = Math.max(m.arrival, e.arrival());
      }
    }
    in.sort(
        (a, b) ->
            a.t() != b.t() ? Long.compare(a.t(), b.t()) : Long.compare(a.arrival(), b.arrival()));
    String value;
    if (kind == 0) {
      value = String.valueOf(in.stream().mapToLong(Event::value).sum());
    } else if (kind == 1) {
      value = String.valueOf(in.stream().mapToLong(Event::value).max().orElse(Long.MIN_VALUE));
    } else {
      value = in.stream().map(Event::value).toList().toString();
    }
    return row("k" + key, start, end, value, timing, m.rows++, isFinal);
  }

  /** A row as {@code key[start,end) TIMING#index( final)=value}. */
  static String row(
      String key, long start, long end, String value, Timing timing, int index, boolean isFinal) {
    return key
        + "["
        + start
        + ","
        + end
        + ") "
        + timing
        + "#"
        + index
        + (isFinal ? " final" : "")
        + "="
        + value;
  }

  private static TreeSet<Integer> keysOf(List<Event> events) {
    TreeSet<Integer> keys = new TreeSet<>();
    events.forEach(e -> keys.add(e.key()));
    return keys;
  }

  private static TreeSet<Long> ends(List<Event> events, int key, long d) {
    TreeSet<Long> ends = new TreeSet<>();
    for (Event e : events) {
      if (e.key() == key) {
        ends.add(e.t() + 1);
        ends.add(e.t() + d + 2);
      }
    }
    return ends;
  }

  /** Rule 77: a record at {@code e - 1}, or one at {@code e - d - 2} and one in the window. */
  private static boolean exists(List<Event> events, int key, long end, long d) {
    long start = end - d - 1;
    boolean atEnd = false;
    boolean beforeStart = false;
    boolean inside = false;
    for (Event e : events) {
      if (e.key() == key) {
        atEnd |= e.t() == end - 1;
        beforeStart |= e.t() == start - 1;
        inside |= e.t() >= start && e.t() < end;
      }
    }
    return atEnd || (beforeStart && inside);
  }
}
