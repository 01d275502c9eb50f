package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionWindows} and {@link HoppingWindows} over thousands of keys that come and go, so
 * that the key dictionary sweeps and every table grows, drained through the visitor and polled,
 * with a {@code long} aggregator and with an object one: the rows are those of a naive reference.
 */
class SessionWindowsChurnTest {

  /** Concatenates the values in event order within a session, merged in start order. */
  static final Aggregator<Long, List<Long>, List<Long>> LIST =
      Aggregators.of(
          ArrayList::new,
          (List<Long> acc, Long v) -> {
            acc.add(v);
            return acc;
          },
          (List<Long> a, List<Long> b) -> {
            a.addAll(b);
            return a;
          },
          (List<Long> acc) -> List.copyOf(acc));

  @Test
  void sessionsOfThousandsOfChurningKeysAreThoseOfTheReferenceThroughTheVisitor() {
    Random random = new Random(5);
    SessionWindows<String, Long, Long> sums =
        SessionWindows.builder(Duration.ofMillis(10), Aggregators.sumLong())
            .allowedLateness(Duration.ofMillis(20))
            .clock(new ManualClock())
            .build();
    SessionWindows<String, Long, List<Long>> lists =
        SessionWindows.builder(Duration.ofMillis(10), LIST)
            .allowedLateness(Duration.ofMillis(20))
            .clock(new ManualClock())
            .build();
    Map<String, List<long[]>> events = new HashMap<>();
    Map<String, Long> expected = new HashMap<>();
    Map<String, Long> actual = new HashMap<>();
    Map<String, Long> counted = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      long t = i + random.nextInt(15);
      String key = "k" + (i / 7 + random.nextInt(40)); // keys churn: a few hundred at a time
      long value = 1 + random.nextInt(5);
      assertThat(sums.add("p", t, key, value)).isEqualTo(lists.add("p", t, key, value));
      events.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {t, value});
      if (i % 50 == 0) {
        sums.drainFinalized(
            (start, end, k, v) -> actual.merge(start + "," + end + "," + k, v, Long::sum));
        for (WindowResult<String, List<Long>> r : lists.pollFinalized()) {
          long total = r.value().stream().mapToLong(Long::longValue).sum();
          counted.merge(r.start() + "," + r.end() + "," + r.key(), total, Long::sum);
        }
      }
    }
    assertThat(sums.stats().late()).as("the disorder stays within the lateness").isZero();
    sums.finish();
    lists.finish();
    sums.drainFinalized(
        (start, end, k, v) -> actual.merge(start + "," + end + "," + k, v, Long::sum));
    for (WindowResult<String, List<Long>> r : lists.pollFinalized()) {
      long total = r.value().stream().mapToLong(Long::longValue).sum();
      counted.merge(r.start() + "," + r.end() + "," + r.key(), total, Long::sum);
    }
    events.forEach(
        (k, evs) -> {
          for (SessionWindowsModelTest.Row row : SessionWindowsModelTest.sessions(k, evs, 10)) {
            expected.put(row.start() + "," + row.end() + "," + k, row.value());
          }
        });
    assertThat(actual).isEqualTo(expected);
    assertThat(counted).isEqualTo(expected);
    assertThat(sums.dictionarySize()).as("the dictionary swept its emitted keys").isLessThan(1_000);
    assertThat(sums.gapMillis()).isEqualTo(10);
    assertThat(sums.toString()).startsWith("SessionWindows{gapMillis=10, WindowStats[");
  }

  @Test
  void hoppingRowsOfThousandsOfChurningKeysAreThoseOfTheReference() {
    Random random = new Random(6);
    HoppingWindows<String, Long, List<Long>> lists =
        HoppingWindows.builder(Duration.ofMillis(30), Duration.ofMillis(10), LIST)
            .allowedLateness(Duration.ofMillis(20))
            .clock(new ManualClock())
            .build();
    Map<String, Long> expected = new HashMap<>();
    Map<String, Long> actual = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      long t = i + random.nextInt(15);
      String key = "k" + (i / 7 + random.nextInt(40));
      long value = 1 + random.nextInt(5);
      assertThat(lists.add("p", t, key, value)).isTrue();
      for (long start = t - Math.floorMod(t, 10); start > t - 30; start -= 10) {
        expected.merge(start + "," + key, value, Long::sum);
      }
      if (i % 50 == 0) {
        lists.drainFinalized(
            (start, end, k, v) ->
                actual.merge(start + "," + k, v.stream().mapToLong(x -> x).sum(), Long::sum));
      }
    }
    lists.finish();
    for (WindowResult<String, List<Long>> r : lists.pollFinalized()) {
      actual.merge(
          r.start() + "," + r.key(), r.value().stream().mapToLong(x -> x).sum(), Long::sum);
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(lists.dictionarySize())
        .as("the dictionary swept its emitted keys")
        .isLessThan(1_000);
    assertThat(lists.sizeMillis()).isEqualTo(30);
    assertThat(lists.advanceMillis()).isEqualTo(10);
    assertThat(lists.toString()).startsWith("HoppingWindows{sizeMillis=30, advanceMillis=10, ");
  }

  @Test
  void aWindowOfManyPanesOfWhichFewAreHeldGathersThemOldestFirst() {
    // gcd(1000, 1) = 1: a window spans 1,000 panes, of which the events fill three.
    HoppingWindows<String, Long, List<Long>> lists =
        HoppingWindows.builder(Duration.ofMillis(1_000), Duration.ofMillis(1), LIST)
            .allowedLateness(Duration.ofMillis(1_000))
            .clock(new ManualClock())
            .build();
    lists.add("p", 900, "k", 3L);
    lists.add("p", 100, "k", 1L);
    lists.add("p", 500, "k", 2L);
    lists.finish();
    List<WindowResult<String, List<Long>>> rows = lists.pollFinalized();
    assertThat(rows).as("starts -899 to 900").hasSize(1_800);
    assertThat(rows)
        .filteredOn(r -> r.start() == 0)
        .singleElement()
        .satisfies(r -> assertThat(r.value()).as("panes oldest first").containsExactly(1L, 2L, 3L));
    assertThat(rows)
        .filteredOn(r -> r.start() == 400)
        .singleElement()
        .satisfies(r -> assertThat(r.value()).containsExactly(2L, 3L));
  }
}
