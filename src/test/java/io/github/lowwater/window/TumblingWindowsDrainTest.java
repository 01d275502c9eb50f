package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link TumblingWindows#drainFinalized(ResultVisitor)}: the same results as {@link
 * TumblingWindows#pollFinalized()} and as a reference computed by hand, with keys that churn
 * through the key dictionary; what a throwing visitor leaves; and that the drain, with a built-in
 * {@code long} aggregator, allocates nothing at steady state.
 */
class TumblingWindowsDrainTest {

  private static final long SIZE = 1_000;

  private static TumblingWindows<String, Long, Long> windows(
      Aggregator<? super Long, ?, Long> aggregator, ManualClock clock) {
    return TumblingWindows.builder(Duration.ofMillis(SIZE), aggregator)
        .allowedLateness(Duration.ofMillis(300))
        .clock(clock)
        .build();
  }

  /** Collects results as strings "start..end key=value", through visit or visitLong. */
  private static final class Collector implements ResultVisitor<String, Long> {
    final List<String> results = new ArrayList<>();
    int primitive;

    @Override
    public void visit(long start, long end, String key, Long value) {
      results.add(start + ".." + end + " " + key + "=" + value);
    }

    @Override
    public void visitLong(long start, long end, String key, long value) {
      primitive++;
      visit(start, end, key, value);
    }
  }

  @Test
  void drainAndPollGiveTheResultsOfAReferenceOnRandomFeedsWithKeyChurn() {
    for (long seed = 1; seed <= Trials.of(40); seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      boolean builtIn = random.nextBoolean();
      Aggregator<Long, ?, Long> sum =
          builtIn
              ? Aggregators.sumLong()
              : Aggregators.of(() -> new long[1], TumblingWindowsDrainTest::add, a -> a[0]);
      ManualClock clock = new ManualClock();
      TumblingWindows<String, Long, Long> drained = windows(sum, clock);
      TumblingWindows<String, Long, Long> polled = windows(sum, clock);
      Map<Long, Map<String, Long>> reference = new LinkedHashMap<>();
      Collector collector = new Collector();
      List<String> fromPoll = new ArrayList<>();
      long t = 0;
      int keySpace = 1 + random.nextInt(random.nextBoolean() ? 20 : 3_000);
      for (int i = 0; i < 20_000; i++) {
        t += random.nextInt(3);
        long eventTime = t - random.nextInt(250); // disorder inside the allowed lateness
        // The key space drifts with time: old keys leave, new ones come (dictionary churn).
        String key = "k" + (random.nextInt(keySpace) + t / 5_000);
        long value = random.nextInt(100);
        boolean in = drained.add("s", eventTime, key, value);
        assertThat(polled.add("s", eventTime, key, value)).isEqualTo(in);
        if (in) {
          long start = Math.floorDiv(eventTime, SIZE) * SIZE;
          reference.computeIfAbsent(start, s -> new LinkedHashMap<>()).merge(key, value, Long::sum);
        }
        if (random.nextInt(400) == 0) {
          drained.drainFinalized(collector);
          for (WindowResult<String, Long> r : polled.pollFinalized()) {
            fromPoll.add(r.start() + ".." + r.end() + " " + r.key() + "=" + r.value());
          }
        }
      }
      drained.finish();
      polled.finish();
      int count = drained.drainFinalized(collector);
      for (WindowResult<String, Long> r : polled.pollFinalized()) {
        fromPoll.add(r.start() + ".." + r.end() + " " + r.key() + "=" + r.value());
      }
      List<String> expected = new ArrayList<>();
      reference.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              w ->
                  w.getValue()
                      .forEach(
                          (k, v) ->
                              expected.add(
                                  w.getKey() + ".." + (w.getKey() + SIZE) + " " + k + "=" + v)));
      assertThat(collector.results).as("seed %d", seed).isEqualTo(expected);
      assertThat(fromPoll).as("seed %d", seed).isEqualTo(expected);
      assertThat(collector.primitive).as("seed %d", seed).isEqualTo(builtIn ? expected.size() : 0);
      assertThat(count).isLessThanOrEqualTo(expected.size());
      assertThat(drained.drainFinalized(collector)).isZero();
    }
  }

  private static long[] add(long[] accumulator, long value) {
    accumulator[0] += value;
    return accumulator;
  }

  @Test
  void theKeysOfAFinalizedWindowSurviveTheSweepsThatNewKeysCauseBeforeTheDrain() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), new ManualClock());
    windows.add("s", 10, "a", 1L);
    for (int k = 0; k < 40; k++) {
      windows.add("s", 1_300 + k, "w" + k, (long) k); // [1000, 2000); [0, 1000) is finalized
    }
    Collector collector = new Collector();
    windows.drainFinalized(collector); // [0, 1000) is emitted: the dictionary may sweep from now on
    assertThat(collector.results).containsExactly("0..1000 a=1");
    // 10,000 new keys in later windows: [1000, 2000) is finalized at once and waits, undrained,
    // while the dictionary's table fills and sweeps. The sweep must keep its 40 keys.
    for (int k = 0; k < 10_000; k++) {
      windows.add("s", 2_300 + k / 10, "n" + k, 1L);
    }
    collector.results.clear();
    windows.drainFinalized(collector);
    List<String> expected = new ArrayList<>();
    for (int k = 0; k < 40; k++) {
      expected.add("1000..2000 w" + k + "=" + k);
    }
    assertThat(collector.results).containsExactlyElementsOf(expected);
  }

  @Test
  void aThrowingVisitorLeavesItsWindowToBeVisitedAgainFromItsFirstResult() {
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), clock);
    windows.add(100, "a", 1L);
    windows.add(200, "b", 2L);
    windows.add(1_100, "c", 3L);
    windows.add(1_200, "d", 4L);
    windows.add(2_500, "e", 5L); // watermark 2,200: both windows are finalized
    List<String> seen = new ArrayList<>();
    ResultVisitor<String, Long> failOnD =
        (start, end, key, value) -> {
          seen.add(key);
          if (key.equals("d")) {
            throw new IllegalStateException("sink down");
          }
        };
    assertThatThrownBy(() -> windows.drainFinalized(failOnD)).hasMessage("sink down");
    assertThat(seen).containsExactly("a", "b", "c", "d");
    seen.clear();
    assertThat(windows.drainFinalized((start, end, key, value) -> seen.add(key))).isEqualTo(2);
    assertThat(seen).containsExactly("c", "d"); // the first window is not repeated
    assertThat(windows.pollFinalized()).isEmpty();
    assertThat(windows.stats().finalizedWindows()).isEqualTo(2);
  }

  @Test
  void aThrowingResultLeavesTheWindowQueuedAndTheNextDrainAsksAgain() {
    boolean[] fail = {true};
    Aggregator<Long, long[], Long> flaky =
        Aggregators.of(
            () -> new long[1],
            TumblingWindowsDrainTest::add,
            a -> {
              if (fail[0]) {
                throw new ArithmeticException("not now");
              }
              return a[0];
            });
    TumblingWindows<String, Long, Long> windows = windows(flaky, new ManualClock());
    windows.add(100, "a", 7L);
    windows.add(1_400, "b", 1L);
    Collector collector = new Collector();
    assertThatThrownBy(() -> windows.drainFinalized(collector)).hasMessage("not now");
    fail[0] = false;
    assertThat(windows.drainFinalized(collector)).isEqualTo(1);
    assertThat(collector.results).containsExactly("0..1000 a=7");
  }

  @Test
  void aNullVisitorIsRejectedByName() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), new ManualClock());
    assertThatThrownBy(() -> windows.drainFinalized(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("visitor");
  }

  @Test
  void theDefaultVisitLongBoxesIntoVisit() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.count(), new ManualClock());
    windows.add(100, "a", 7L);
    windows.add(150, "a", 7L);
    windows.add(1_400, "b", 1L);
    List<WindowResult<String, Long>> results = new ArrayList<>();
    windows.drainFinalized((s, e, k, v) -> results.add(new WindowResult<>(s, e, k, v)));
    assertThat(results).containsExactly(new WindowResult<>(0, 1_000, "a", 2L));
  }

  @Test
  void atSteadyStateAddAndDrainAllocateNothing() {
    // 5,000 keys, windows of about 1,000: indexed windows; 200 keys: every window holds them all,
    // dense windows.
    for (int keyCount : new int[] {5_000, 200}) {
      assertSteadyStateAllocatesNothing(keyCount);
    }
  }

  @Test
  void theDictionaryOverUnboundedKeyChurnHoldsOnlyTheKeysOfWindowsNotYetEmitted() {
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), new ManualClock());
    Collector collector = new Collector();
    long t = 0;
    for (int window = 0; window < 100; window++) {
      for (int k = 0; k < 1_000; k++) { // every window brings 1,000 keys never seen before
        windows.add("s", t++, "w" + window + "k" + k, 1L);
      }
      collector.results.clear();
      windows.drainFinalized(collector);
    }
    // Two windows not yet emitted at most (the open one, and the one the lateness holds), plus at
    // most as many again between two sweeps.
    assertThat(windows.dictionarySize()).isLessThanOrEqualTo(4 * 1_000);
    assertThat(windows.stats().finalizedWindows()).isEqualTo(99);
  }

  @Test
  void windowsThatFinalizeInABurstAreReusedByTheWindowsOpenedAfterIt() {
    // A catch-up, again and again: the fast source fills 12 windows while the slow one holds the
    // watermark; then the slow one catches up and the 12 finalize at once. With a pool of four the
    // next 12 windows would allocate eight; the pool is sized to the burst, so they allocate none.
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), new ManualClock());
    String[] keys = new String[200];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = "key-" + k;
    }
    Long one = 1L;
    ResultVisitor<String, Long> sink = (start, end, key, value) -> {};
    long[] t = {0};
    Runnable cycle =
        () -> {
          for (int i = 0; i < 12 * 200; i++) {
            t[0] += 5;
            windows.add("fast", t[0], keys[i % keys.length], one);
          }
          windows.add("slow", t[0], keys[0], one); // the slow source catches up: a burst
          windows.drainFinalized(sink);
        };
    for (int warm = 0; warm < 5; warm++) {
      cycle.run();
    }
    long finalizedBefore = windows.stats().finalizedWindows();
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int measured = 0; measured < 5; measured++) {
      cycle.run();
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(windows.stats().finalizedWindows() - finalizedBefore).isEqualTo(5 * 12);
    assertThat(allocated).as("bytes allocated by five bursts of 12 windows").isZero();
  }

  private static void assertSteadyStateAllocatesNothing(int keyCount) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), clock);
    String[] keys = new String[keyCount];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = "key-" + k;
    }
    Long[] values = {1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L};
    ResultVisitor<String, Long> sink =
        new ResultVisitor<>() {
          long total;

          @Override
          public void visit(long start, long end, String key, Long value) {
            visitLong(start, end, key, value);
          }

          @Override
          public void visitLong(long start, long end, String key, long value) {
            total += value;
          }
        };
    SplittableRandom random = new SplittableRandom(7);
    int[] keyIndex = new int[1 << 16];
    for (int i = 0; i < keyIndex.length; i++) {
      keyIndex[i] = random.nextInt(keys.length);
    }
    long[] t = {0};
    Runnable lap =
        () -> {
          for (int i = 0; i < keyIndex.length; i++) {
            t[0] += 1;
            windows.add("s", t[0] - (i & 63), keys[keyIndex[i]], values[i & 7]);
            if ((i & 511) == 0) {
              windows.drainFinalized(sink);
            }
          }
        };
    for (int warm = 0; warm < 20; warm++) {
      lap.run(); // opens, fills and emits windows of about 1,000 keys each, many times
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int measured = 0; measured < 5; measured++) {
      lap.run();
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(windows.stats().finalizedWindows()).isGreaterThan(1_000);
    assertThat(allocated)
        .as("bytes allocated by %d events over %d keys", 5 * keyIndex.length, keyCount)
        .isZero();
  }

  /**
   * Issue 16: a visitor, or an aggregator's {@code result}, that calls back into the windows it is
   * emitting would change them under the drain (a nested drain overwrote the ids of the window
   * being visited). It is refused before anything changes, and the drain then treats the exception
   * as the visitor's: the window is handed out again, whole, at the next drain.
   */
  @Test
  void aVisitorOrResultThatCallsBackIntoTheWindowsIsRefusedAndTheWindowIsHandedOutAgain() {
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), clock);
    windows.add("s", 100, "a", 1L);
    windows.add("s", 200, "b", 1L);
    windows.add("s", 2_000, "a", 1L); // [0, 1000) finalized
    Collector seen = new Collector();
    ResultVisitor<String, Long> reentrant =
        (start, end, key, value) -> {
          seen.visit(start, end, key, value);
          windows.add("s", 2_100, "c", 1L);
        };
    assertThatThrownBy(() -> windows.drainFinalized(reentrant))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("add called from a result visitor");
    assertThat(seen.results).containsExactly("0..1000 a=1");
    Collector again = new Collector();
    assertThat(windows.drainFinalized(again)).isEqualTo(2);
    assertThat(again.results).containsExactly("0..1000 a=1", "0..1000 b=1");
    assertThat(windows.stats().accepted()).as("the refused add changed nothing").isEqualTo(3);

    List<TumblingWindows<String, Long, Long>> self = new ArrayList<>();
    Aggregator<Long, long[], Long> draining =
        Aggregators.of(
            () -> new long[1],
            TumblingWindowsDrainTest::add,
            a -> (long) self.get(0).drainFinalized((s, e, k, v) -> {}));
    TumblingWindows<String, Long, Long> nested = windows(draining, clock);
    self.add(nested);
    nested.add("s", 100, "a", 1L);
    nested.add("s", 2_000, "a", 1L);
    assertThatThrownBy(nested::pollFinalized)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("drainFinalized called from a result visitor");
    assertThat(nested.stats().finalizedWindows()).isEqualTo(1);
  }

  /**
   * Issue 16: docs/design.md says the spare-window pool follows the state down; after a burst of
   * finalized windows with no window opening afterwards (the stream stops), it kept every window of
   * the burst for good. A drain now trims it to what is open or waiting, at least four.
   */
  @Test
  void theSparePoolGivesBackABurstsWindowsAtTheNextDrainWhenNoWindowOpens() {
    ManualClock clock = new ManualClock();
    TumblingWindows<String, Long, Long> windows = windows(Aggregators.sumLong(), clock);
    for (long t = 0; t < 12 * SIZE; t += 100) {
      windows.add("fast", t, "k", 1L);
    }
    windows.add("slow", 12 * SIZE, "k", 1L); // 11 windows finalize at once, 2 stay open
    windows.drainFinalized((s, e, k, v) -> {});
    assertThat(windows.spareWindows())
        .as("the burst, kept for the windows that open next")
        .isEqualTo(11);
    windows.drainFinalized((s, e, k, v) -> {}); // nothing opened since
    assertThat(windows.spareWindows()).isEqualTo(4);
  }
}
