package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link SlidingWindows} at their edges, on a manual clock (semantics rule 77): which
 * windows the records define, lateness at {@code t + d + 1}, a record that arrives after some of
 * its windows closed, equal times, a time difference of 0, a throwing aggregator, the {@code long}
 * bounds, and the builder's refusals.
 */
class SlidingWindowsTest {

  private static SlidingWindows<String, Long, Long> sliding(long d, long lateness) {
    return SlidingWindows.builder(Duration.ofMillis(d), Aggregators.sumLong())
        .allowedLateness(Duration.ofMillis(lateness))
        .clock(new ManualClock())
        .build();
  }

  private static List<String> rows(EventTimeWindows<String, Long, Long> w) {
    List<String> rows = new ArrayList<>();
    w.drainFinalized((s, e, k, v) -> rows.add(k + "[" + s + "," + e + ")=" + v));
    return rows;
  }

  @Test
  void eachRecordEndsAWindowAndStartsOneJustAfterItWhenALaterRecordIsWithinTheDifference() {
    SlidingWindows<String, Long, Long> w = sliding(10, 100);
    w.add(8, "k", 1L);
    w.add(12, "k", 10L);
    w.add(25, "k", 100L);
    w.finish();
    // 8 ends [-2,9); 12 ends [2,13) holding 8 and 12; 8's right window [9,20) holds 12; 12 has
    // nothing in (12, 22], so no right window; 25 ends [15,26).
    assertThat(rows(w)).containsExactly("k[-2,9)=1", "k[2,13)=11", "k[9,20)=10", "k[15,26)=100");
  }

  @Test
  void windowsAreFinalizedOnceTheWatermarkReachesTheirEndAndNotBefore() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    w.add(8, "k", 1L);
    w.add(12, "k", 10L);
    assertThat(rows(w)).as("watermark 12: [-2,9) only").containsExactly("k[-2,9)=1");
    w.add(19, "other", 0L); // watermark 19: [2,13) is done, [9,20) not yet
    assertThat(rows(w)).containsExactly("k[2,13)=11");
    w.add(20, "other", 0L);
    assertThat(rows(w)).containsExactly("k[9,20)=10", "other[9,20)=0");
  }

  @Test
  void aRecordIsLateExactlyWhenTheWindowEndingAtItIsFinalized() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    w.add(20, "k", 1L); // watermark 20
    assertThat(w.lastWindowEnd(19)).isEqualTo(20);
    assertThat(w.lastAffectedWindowEnd(19)).as("the window starting after it").isEqualTo(31);
    assertThat(w.isLate(19, "k")).isTrue();
    assertThat(w.add(19, "k", 5L)).as("[9,20) is finalized").isFalse();
    assertThat(w.add(20, "k", 7L)).as("[10,21) is open").isTrue();
    assertThat(w.stats().late()).isEqualTo(1);
    assertThat(w.stats().partiallyLate()).as("never: no record misses a window").isZero();
    w.finish();
    assertThat(rows(w)).containsExactly("k[10,21)=8");
  }

  @Test
  void aRecordBehindItsOwnWindowIsLateEvenWhereALaterWindowThatWouldHoldItIsOpen() {
    List<Long> late = new ArrayList<>();
    SlidingWindows<String, Long, Long> w =
        SlidingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .lateEventHandler((source, t, end, watermark, key, value) -> late.add(t))
            .clock(new ManualClock())
            .build();
    w.add(105, "k", 1L);
    w.add(107, "x", 0L); // watermark 107: [95,106) is finalized with 105 alone
    assertThat(rows(w)).containsExactly("k[95,106)=1");
    w.add(106, "k", 10L); // [96,107) is finalized too: late, though [105,116) would hold it
    w.add(107, "k", 100L);
    w.finish();
    // Kafka Streams would put 106 into 107's window [97,108), open then (rule 77).
    assertThat(late).containsExactly(106L);
    assertThat(rows(w))
        .containsExactly("k[97,108)=101", "x[97,108)=0", "k[106,117)=100")
        .as("105's right window [106,117) holds 107 only");
  }

  @Test
  void recordsOfTheSameTimeShareTheirWindowsAndARightWindowThatIsALeftOneIsOneWindow() {
    SlidingWindows<String, Long, Long> w = sliding(10, 100);
    w.add(0, "k", 1L);
    w.add(0, "k", 2L);
    w.add(11, "k", 4L); // 0's right window [1,12) is 11's own window
    w.finish();
    assertThat(rows(w)).containsExactly("k[-10,1)=3", "k[1,12)=4");
  }

  @Test
  void aTimeDifferenceOfZeroGivesAWindowPerDistinctTime() {
    SlidingWindows<String, Long, Long> w = sliding(0, 100);
    w.add(5, "k", 1L);
    w.add(6, "k", 2L);
    w.add(5, "k", 4L);
    w.finish();
    assertThat(rows(w)).containsExactly("k[5,6)=5", "k[6,7)=2");
  }

  @Test
  void aThrowingAggregatorLeavesTheWindowQueuedAndTheNextDrainFoldsItAgain() {
    boolean[] fail = {true};
    Aggregator<Long, long[], Long> flaky =
        Aggregators.of(
            () -> new long[1],
            (acc, v) -> {
              if (fail[0] && v == 2L) {
                throw new IllegalStateException("boom");
              }
              acc[0] += v;
              return acc;
            },
            (a, b) -> a,
            acc -> acc[0]);
    SlidingWindows<String, Long, Long> w =
        SlidingWindows.builder(Duration.ofMillis(10), flaky)
            .allowedLateness(Duration.ZERO)
            .clock(new ManualClock())
            .build();
    w.add(1, "a", 1L);
    w.add(2, "b", 2L);
    w.finish();
    List<String> seen = new ArrayList<>();
    assertThatThrownBy(() -> w.drainFinalized((s, e, k, v) -> seen.add(k + "=" + v)))
        .hasMessage("boom");
    assertThat(seen).containsExactly("a=1");
    fail[0] = false;
    w.drainFinalized((s, e, k, v) -> seen.add(k + "=" + v));
    assertThat(seen).containsExactly("a=1", "b=2");
    assertThat(w.stats().openEntries()).as("every record let go").isZero();
    assertThat(w.stats().openWindows()).isZero();
  }

  @Test
  void aDrainVisitedAgainAfterAVisitorThrowsFoldsTheSameValues() {
    List<String> expected = feedInTwoParts(sliding(10, 0)); // without a failure
    List<String> all = new ArrayList<>();
    SlidingWindows<String, Long, Long> failing = sliding(10, 0);
    int[] calls = {0};
    for (long t = 0; t < 40; t += 3) {
      failing.add(t, "k", t);
    }
    failing.add(100, "k", 100L); // closes every window of the first part: 27 rows wait
    assertThatThrownBy(
            () ->
                failing.drainFinalized(
                    (s, e, k, v) -> {
                      if (++calls[0] % 4 == 0) {
                        throw new IllegalStateException("sink down");
                      }
                      all.add("[" + s + "," + e + ")=" + v);
                    }))
        .hasMessage("sink down");
    for (long t = 103; t < 150; t += 3) { // more rows queue behind the ones still waiting
      failing.add(t, "k", t);
    }
    failing.finish();
    failing.drainFinalized((s, e, k, v) -> all.add("[" + s + "," + e + ")=" + v));
    assertThat(all).isEqualTo(expected).hasSize(27 + 33);
  }

  /** Records 0 to 39 every 3 ms, then 100 to 149 every 3 ms, finished: the rows. */
  private static List<String> feedInTwoParts(SlidingWindows<String, Long, Long> w) {
    List<String> rows = new ArrayList<>();
    for (long t = 0; t < 40; t += 3) {
      w.add(t, "k", t);
    }
    for (long t = 100; t < 150; t += 3) {
      w.add(t, "k", t);
    }
    w.finish();
    w.drainFinalized((s, e, k, v) -> rows.add("[" + s + "," + e + ")=" + v));
    return rows;
  }

  @Test
  void aKeysWindowsFoldedBeforeAnOverflowOfAnotherKeyAreFoldedAgainTheSame() {
    SlidingWindows<String, Long, Long> w = sliding(10, 100);
    for (long t = 0; t < 20; t += 2) {
      w.add(t, "k", t); // k's windows end by 30
    }
    w.add(40, "j", Long.MAX_VALUE);
    w.add(41, "j", 1L); // j's window ending at 42 overflows sumLong when it is folded
    w.finish();
    // pollFinalized folds k's windows, then fails at j's, and takes none: k's are folded again.
    assertThatThrownBy(w::pollFinalized).isInstanceOf(ArithmeticException.class);
    List<String> rows = new ArrayList<>();
    assertThatThrownBy(
            () -> w.drainFinalized((s, e, k, v) -> rows.add(k + "[" + s + "," + e + ")=" + v)))
        .isInstanceOf(ArithmeticException.class);
    SlidingWindows<String, Long, Long> onlyK = sliding(10, 100);
    for (long t = 0; t < 20; t += 2) {
      onlyK.add(t, "k", t);
    }
    onlyK.finish();
    List<String> expected = rows(onlyK);
    expected.add("j[30,41)=" + Long.MAX_VALUE); // j's first window; its second overflows
    assertThat(rows).isEqualTo(expected).hasSize(20);
  }

  @Test
  void atTheLongBoundsStartsAndEndsSaturate() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    w.add(Long.MIN_VALUE, "lo", 1L);
    w.add(Long.MAX_VALUE - 1, "hi", 2L);
    w.add(Long.MAX_VALUE, "hi", 4L);
    assertThat(w.toString()).startsWith("SlidingWindows{timeDifferenceMillis=10, ");
    assertThat(w.lastAffectedWindowEnd(Long.MAX_VALUE - 5)).isEqualTo(Long.MAX_VALUE);
    assertThat(w.lastWindowEnd(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    w.finish();
    // MIN's window [MIN - 10, MIN + 1) starts at MIN; the windows of MAX - 1 and MAX both end at
    // MAX, one window holding both.
    assertThat(rows(w))
        .containsExactly(
            "lo[" + Long.MIN_VALUE + "," + (Long.MIN_VALUE + 1) + ")=1",
            "hi[" + (Long.MAX_VALUE - 11) + "," + Long.MAX_VALUE + ")=6");
  }

  @Test
  void aSaturatedWindowIsEmittedOnlyIfOneOfTheWindowsItStandsForExists() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    w.add(Long.MAX_VALUE - 5, "k", 1L); // its right window would end past MAX, but holds nothing
    w.finish();
    assertThat(rows(w))
        .containsExactly("k[" + (Long.MAX_VALUE - 15) + "," + (Long.MAX_VALUE - 4) + ")=1");
    SlidingWindows<String, Long, Long> two = sliding(10, 0);
    two.add(Long.MAX_VALUE - 12, "k", 1L);
    two.add(Long.MAX_VALUE - 3, "k", 2L); // within d + 1 of the first: its right window exists
    two.finish();
    assertThat(rows(two))
        .containsExactly(
            "k[" + (Long.MAX_VALUE - 22) + "," + (Long.MAX_VALUE - 11) + ")=1",
            "k[" + (Long.MAX_VALUE - 13) + "," + (Long.MAX_VALUE - 2) + ")=3",
            "k[" + (Long.MAX_VALUE - 11) + "," + Long.MAX_VALUE + ")=2");
  }

  @Test
  void markWrittenDropsTheWindowsEndingByItOnly() {
    SlidingWindows<String, Long, Long> w = sliding(10, 100);
    w.markWritten(13);
    w.add(8, "k", 1L);
    w.add(12, "k", 10L);
    w.finish();
    assertThat(rows(w)).containsExactly("k[9,20)=10");
  }

  @Test
  void theBuilderRefusesANegativeOrHugeDifferenceAndPerSourceLatenessWithPanes() {
    assertThatThrownBy(() -> SlidingWindows.builder(Duration.ofMillis(-1), Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeDifference");
    assertThatThrownBy(
            () ->
                SlidingWindows.builder(Duration.ofMillis(5), Aggregators.count())
                    .earlyResults(Duration.ofMillis(1))
                    .perSourceLateness()
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("perSourceLateness does not combine with early results");
    assertThat(
            SlidingWindows.builder(Duration.ofMillis(5), Aggregators.count())
                .earlyResults(Duration.ofMillis(1))
                .grace(Duration.ofMillis(3))
                .build()
                .graceMillis())
        .isEqualTo(3);
    assertThatThrownBy(
            () ->
                SlidingWindows.builder(
                    Duration.ofMillis(SlidingWindows.MAX_TIME_DIFFERENCE_MILLIS + 1),
                    Aggregators.count()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeDifference must be at most");
    assertThat(
            SlidingWindows.builder(
                    Duration.ofMillis(SlidingWindows.MAX_TIME_DIFFERENCE_MILLIS),
                    Aggregators.count())
                .build()
                .timeDifferenceMillis())
        .isEqualTo(Long.MAX_VALUE / 4);
    assertThat(
            SlidingWindows.builder(Duration.ofNanos(1_999_999), Aggregators.count())
                .build()
                .timeDifferenceMillis())
        .isEqualTo(1);
  }

  @Test
  void withPerSourceLatenessARecordIsJudgedByItsOwnSourceAndWindowsCloseOnTheShared() {
    List<Long> late = new ArrayList<>();
    SlidingWindows<String, Long, Long> w =
        SlidingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ZERO)
            .perSourceLateness()
            .lateEventHandler((source, t, end, watermark, key, value) -> late.add(t))
            .clock(new ManualClock())
            .build();
    w.register("fast");
    w.register("slow");
    w.add("fast", 20, "k", 1L);
    w.add("slow", 5, "k", 10L); // the shared watermark is 5
    assertThat(w.add("fast", 15, "k", 100L)).as("behind its own source's 20").isFalse();
    assertThat(w.add("slow", 8, "k", 1_000L)).as("ahead of its own source's 5").isTrue();
    assertThat(rows(w)).as("the shared watermark is 8 now").containsExactly("k[-5,6)=10");
    w.finish();
    assertThat(late).containsExactly(15L);
    // 8 ends [-2,9) holding 5 and 8; 5 starts [6,17) holding 8; 20 ends [10,21). The window 8
    // would start, [9,20), holds no record (20 lies just past it): not made.
    assertThat(rows(w)).containsExactly("k[-2,9)=1010", "k[6,17)=1000", "k[10,21)=1");
  }

  @Test
  void manyKeysAtOnceAndKeysThatComeAndGoKeepTheirOwnRowsInEndOrder() {
    SlidingWindows<String, Long, Long> w = sliding(10, 10);
    List<long[]> rows = new ArrayList<>(); // {end, key index, value}
    ResultVisitor<String, Long> visitor =
        (s, e, k, v) -> rows.add(new long[] {e, Long.parseLong(k.substring(1)), v});
    // 300 keys at once, then 20,000 keys that each come once and go: the dictionary sweeps.
    for (int i = 0; i < 300; i++) {
      w.add(i % 7, "k" + i, (long) i);
    }
    for (int i = 300; i < 20_300; i++) {
      w.add(i, "k" + i, (long) i);
      if (i % 50 == 0) {
        w.drainFinalized(visitor);
      }
    }
    w.finish();
    w.drainFinalized(visitor);
    for (int r = 0; r < rows.size(); r++) {
      assertThat(rows.get(r)[2])
          .as("row %d holds its own key's value", r)
          .isEqualTo(rows.get(r)[1]);
      if (r > 0) {
        assertThat(rows.get(r)[0]).as("ends ascend").isGreaterThanOrEqualTo(rows.get(r - 1)[0]);
      }
    }
    assertThat(rows).hasSize(20_300);
    assertThat(w.stats().openWindows()).isZero();
    assertThat(w.dictionarySize()).as("the keys that left were swept").isLessThan(20_300);
  }

  @Test
  void aKeyWhoseLastCandidateMakesNoWindowIsLetGoWhenItIsDecided() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    w.add(0, "k", 1L);
    w.add(5, "x", 1L);
    assertThat(rows(w)).containsExactly("k[-10,1)=1");
    assertThat(w.stats().openWindows()).as("k waits for [1,12), x for its windows").isEqualTo(2);
    w.add(20, "x", 1L); // decides k's last candidate, [1,12): no record in it
    assertThat(w.stats().openWindows()).as("k let go at once, no drain needed").isEqualTo(1);
    assertThat(w.stats().openEntries()).isEqualTo(2);
  }

  @Test
  void recordsOfTheSameTimeAreFoldedInTheOrderTheyCame() {
    Aggregator<String, StringBuilder, String> concat =
        Aggregators.of(
            StringBuilder::new, StringBuilder::append, StringBuilder::append, sb -> sb.toString());
    SlidingWindows<String, String, String> w =
        SlidingWindows.builder(Duration.ofMillis(10), concat)
            .allowedLateness(Duration.ofMillis(100))
            .clock(new ManualClock())
            .build();
    w.add(5, "k", "a");
    w.add(7, "k", "c");
    w.add(5, "k", "b");
    w.finish();
    List<String> values = new ArrayList<>();
    w.drainFinalized((s, e, k, v) -> values.add(v));
    assertThat(values).containsExactly("ab", "abc", "c");
  }

  @Test
  void keysThatLeaveGiveBackTheirStorage() {
    SlidingWindows<String, Long, Long> w = sliding(10, 0);
    for (int i = 0; i < 1_000; i++) {
      w.add(i * 20L, "k" + i, 1L); // each key's window closes before the next key comes
      rows(w);
    }
    assertThat(w.stats().openWindows()).as("only the newest keys hold records").isLessThan(3);
    assertThat(w.stats().openEntries()).isLessThan(3);
    assertThat(w.stats().finalizedWindows()).isEqualTo(999);
  }
}
