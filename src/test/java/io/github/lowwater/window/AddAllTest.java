package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link EventTimeWindows#addAll}, the batch path, against the same events added one by one: two
 * twins built alike, fed the same trace, one through {@code add} and one through {@code addAll},
 * agree after every step on every row, verdict count, watermark, statistic, late and future count,
 * late-handler call and timer firing. The traces cover the three kinds, with and without panes, 1
 * to 4 sources, future events under both policies, idleness, and a key set that drifts, so that the
 * dictionary sweeps (some of them in the middle of a batch, where the ids resolved ahead must
 * survive). Then the exception contract, event by event, and bad arguments.
 */
class AddAllTest {

  private static final Duration LATENESS = Duration.ofMillis(20);

  /** One kind with its options, built twice alike. */
  private record Options(int kind, boolean panes, FutureEventPolicy policy, long idleMillis) {

    EventTimeWindows<String, Long, Long> build(ManualClock clock, List<String> log) {
      LateEventHandler<Long> late =
          (s, t, end, wm, k, v) -> log.add("late " + s + " " + t + " " + end + " " + wm + " " + k);
      EventTimeWindows<String, Long, Long> w =
          switch (kind) {
            case 0 ->
                configure(
                        TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong()),
                        late,
                        clock)
                    .build();
            case 1 ->
                configure(
                        HoppingWindows.builder(
                            Duration.ofMillis(12), Duration.ofMillis(4), Aggregators.sumLong()),
                        late,
                        clock)
                    .build();
            default ->
                configure(
                        SessionWindows.builder(Duration.ofMillis(6), Aggregators.sumLong()),
                        late,
                        clock)
                    .build();
          };
      return w;
    }

    private <B extends WindowOptions<Long, Long, B>> B configure(
        B builder, LateEventHandler<Long> late, ManualClock clock) {
      builder
          .allowedLateness(LATENESS)
          .clock(clock)
          .idleTimeout(Duration.ofMillis(idleMillis))
          .maxFutureSkew(Duration.ofMillis(200))
          .futureEventPolicy(policy)
          .lateEventHandler(late);
      if (panes) {
        builder.earlyResults(Duration.ofMillis(7)).grace(Duration.ofMillis(9));
      }
      return builder;
    }
  }

  /** A twin: the windows, what their callbacks saw, and the rows drained. */
  private static final class Twin {
    final List<String> log = new ArrayList<>();
    final EventTimeWindows<String, Long, Long> windows;
    final WatermarkTracker.Source[] handles;

    Twin(Options options, ManualClock clock, int sources) {
      windows = options.build(clock, log);
      handles = new WatermarkTracker.Source[sources];
      for (int s = 0; s < sources; s++) {
        handles[s] = windows.source("p" + s);
      }
    }

    void drain() {
      for (WindowResult<String, Long> r : windows.pollFinalized()) {
        log.add(r.toString());
      }
    }
  }

  @Test
  void aBatchAddsExactlyWhatTheSameEventsAddedOneByOneAdd() {
    int batches = 0;
    for (long seed = 1; seed <= Trials.of(400); seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Options options =
          new Options(
              r.nextInt(3),
              r.nextBoolean(),
              r.nextBoolean() ? FutureEventPolicy.ACCEPT : FutureEventPolicy.LATE,
              5 + r.nextInt(100));
      int sources = 1 + r.nextInt(4);
      ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
      Twin one = new Twin(options, clock, sources);
      Twin batch = new Twin(options, clock, sources);
      if (r.nextInt(4) != 0) {
        batch.windows.lookAheadMinKeys = 0; // the lookahead at any size, most of the time
      }
      long[] newest = new long[sources];
      java.util.Arrays.fill(newest, 1_000);
      int drift = 0;
      String trace = "seed " + seed + " " + options + " sources " + sources;
      for (int step = 0; step < 60; step++) {
        int s = r.nextInt(sources);
        int n = r.nextInt(40);
        int from = r.nextInt(3);
        long[] times = new long[from + n + r.nextInt(3)];
        String[] keys = new String[times.length];
        Long[] values = new Long[times.length];
        for (int i = 0; i < times.length; i++) {
          int roll = r.nextInt(100);
          long t =
              roll < 3
                  ? clock.wallMillis() + 300 + r.nextInt(100) // beyond the future guard
                  : newest[s] - r.nextInt(roll < 15 ? 60 : 8); // some late, most in order
          newest[s] = Math.max(newest[s], t + r.nextInt(5));
          times[i] = t;
          String key = "k" + (drift + r.nextInt(12));
          keys[i] = r.nextBoolean() ? key : new String(key); // equal, and sometimes identical
          values[i] = (long) r.nextInt(1_000);
        }
        drift += r.nextInt(4); // the key set drifts: old keys become evictable, the table sweeps
        int accepted = 0;
        for (int i = from; i < from + n; i++) {
          if (one.windows.add(one.handles[s], times[i], keys[i], values[i])) {
            accepted++;
          }
        }
        assertThat(batch.windows.addAll(batch.handles[s], times, keys, values, from, from + n))
            .as("%s step %d", trace, step)
            .isEqualTo(accepted);
        batches++;
        if (r.nextInt(4) == 0) {
          long timer = newest[s] - r.nextInt(30);
          one.windows.registerTimer(timer, (t, wm) -> one.log.add("timer " + t + " " + wm));
          batch.windows.registerTimer(timer, (t, wm) -> batch.log.add("timer " + t + " " + wm));
        }
        if (r.nextInt(3) == 0) {
          one.drain();
          batch.drain();
        }
        if (r.nextInt(5) == 0) {
          clock.advanceMillis(r.nextInt(40));
          long now = clock.wallMillis();
          one.windows.advanceTo(now);
          batch.windows.advanceTo(now);
        }
        assertSame(one, batch, trace + " step " + step);
      }
      one.windows.finish();
      batch.windows.finish();
      one.drain();
      batch.drain();
      assertSame(one, batch, trace + " finished");
    }
    assertThat(batches).isEqualTo(Trials.of(400) * 60);
  }

  private static void assertSame(Twin one, Twin batch, String where) {
    assertThat(batch.log).as(where).isEqualTo(one.log);
    assertThat(batch.windows.events()).as(where).isEqualTo(one.windows.events());
    assertThat(batch.windows.watermark()).as(where).isEqualTo(one.windows.watermark());
    assertThat(batch.windows.stats()).as(where).isEqualTo(one.windows.stats());
    assertThat(batch.windows.lateBySource()).as(where).isEqualTo(one.windows.lateBySource());
    assertThat(batch.windows.futureBySource()).as(where).isEqualTo(one.windows.futureBySource());
  }

  /** A key whose hash code throws: the add of its event decides, as one by one. */
  private record Poisoned(String name) {
    @Override
    public int hashCode() {
      throw new IllegalStateException("poisoned " + name);
    }
  }

  /**
   * Each way an event's add can throw, in the middle of a batch: the events before it are added,
   * none after it, the exception is the one of adding the same events one by one, and the state is
   * the one-by-one state after the same exception. A timer that throws after its event was taken
   * leaves that event taken ({@code events()} tells).
   */
  @Test
  void anExceptionAtAnEventLeavesTheEventsBeforeItAddedAndNoneAfter() {
    record Case(String name, int expectedTaken, Object[] keys, Long[] values, boolean timer) {}
    Long big = Long.MAX_VALUE;
    List<Case> cases =
        List.of(
            new Case("null key", 2, new Object[] {"a", "b", null, "c"}, values(1, 2, 3, 4), false),
            new Case(
                "null value", 2, new Object[] {"a", "b", "c", "d"}, values(1, 2, null, 4), false),
            new Case(
                "overflow",
                1,
                new Object[] {"a", "a", "b", "c"},
                new Long[] {big, 1L, 1L, 1L},
                false),
            new Case(
                "hashCode",
                1,
                new Object[] {"a", new Poisoned("x"), "b", "c"},
                values(1, 2, 3, 4),
                false),
            new Case(
                "timer after its event",
                3, // the third raises the watermark to 1_030, past the timer, once it is in
                new Object[] {"a", "b", "c", "d"},
                values(1, 2, 3, 4),
                true));
    for (Case c : cases) {
      for (int kind = 0; kind < 3; kind++) {
        Options options = new Options(kind, kind == 1, FutureEventPolicy.ACCEPT, 1_000);
        ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
        Twin one = new Twin(options, clock, 1);
        Twin batch = new Twin(options, clock, 1);
        batch.windows.lookAheadMinKeys = 0;
        long[] times = {1_000, 1_001, 1_050, 1_051}; // the third raises the watermark past 1_010
        if (c.timer) {
          for (Twin t : List.of(one, batch)) {
            t.windows.registerTimer(
                1_005,
                (at, wm) -> {
                  throw new IllegalStateException("timer " + at);
                });
          }
        }
        @SuppressWarnings("unchecked")
        Object[] keys = c.keys;
        RuntimeException oneByOne = null;
        long before = one.windows.events();
        for (int i = 0; i < times.length && oneByOne == null; i++) {
          try {
            addRaw(one, times[i], keys[i], c.values[i]);
          } catch (RuntimeException e) {
            oneByOne = e;
          }
        }
        String where = c.name + " kind " + kind;
        assertThat(oneByOne).as(where).isNotNull();
        assertThat(one.windows.events() - before).as(where).isEqualTo(c.expectedTaken);
        RuntimeException expected = oneByOne;
        assertThatThrownBy(() -> addAllRaw(batch, times, keys, c.values))
            .as(where)
            .isInstanceOf(expected.getClass())
            .hasMessage(expected.getMessage());
        assertSame(one, batch, where);
        // The caller goes on with the first event not taken: both end alike.
        int next = (int) (batch.windows.events() - before);
        one.drain();
        batch.drain();
        assertSame(one, batch, where + " drained");
        assertThat(next).isEqualTo(c.expectedTaken);
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // a poisoned key is not a String: the raw path
  private static void addRaw(Twin t, long time, Object key, Long value) {
    ((EventTimeWindows) t.windows).add(t.handles[0], time, key, value);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void addAllRaw(Twin t, long[] times, Object[] keys, Long[] values) {
    ((EventTimeWindows) t.windows).addAll(t.handles[0], times, keys, values, 0, times.length);
  }

  private static Long[] values(Integer... v) {
    Long[] values = new Long[v.length];
    for (int i = 0; i < v.length; i++) {
      values[i] = v[i] == null ? null : (long) v[i];
    }
    return values;
  }

  /** A timer that adds a batch of its own, from inside a batch: served one by one, and exact. */
  @Test
  void aBatchFromACallbackOfABatchIsServedOneByOne() {
    for (int kind = 0; kind < 3; kind++) {
      Options options = new Options(kind, false, FutureEventPolicy.ACCEPT, 1_000);
      ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
      Twin one = new Twin(options, clock, 1);
      Twin batch = new Twin(options, clock, 1);
      batch.windows.lookAheadMinKeys = 0;
      long[] inner = {1_040, 1_041};
      String[] innerKeys = {"x", "a"};
      Long[] innerValues = {10L, 20L};
      one.windows.registerTimer(
          1_005,
          (at, wm) -> {
            for (int i = 0; i < 2; i++) {
              one.windows.add(one.handles[0], inner[i], innerKeys[i], innerValues[i]);
            }
          });
      batch.windows.registerTimer(
          1_005,
          (at, wm) -> batch.windows.addAll(batch.handles[0], inner, innerKeys, innerValues, 0, 2));
      long[] times = {1_000, 1_050, 1_051, 1_052};
      String[] keys = {"a", "b", "x", "a"};
      Long[] values = {1L, 2L, 3L, 4L};
      for (int i = 0; i < 4; i++) {
        one.windows.add(one.handles[0], times[i], keys[i], values[i]);
      }
      batch.windows.addAll(batch.handles[0], times, keys, values, 0, 4);
      one.windows.finish();
      batch.windows.finish();
      one.drain();
      batch.drain();
      assertSame(one, batch, "kind " + kind);
      assertThat(batch.windows.events()).isEqualTo(6);
    }
  }

  @Test
  void badArgumentsAreRefusedNamingThemAndChangeNothing() {
    ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
    Twin t = new Twin(new Options(0, false, FutureEventPolicy.ACCEPT, 1_000), clock, 1);
    Twin other = new Twin(new Options(0, false, FutureEventPolicy.ACCEPT, 1_000), clock, 1);
    long[] times = {1_000, 1_001};
    String[] keys = {"a", "b"};
    Long[] values = {1L, 2L};
    WatermarkTracker.Source h = t.handles[0];
    assertThatThrownBy(() -> t.windows.addAll(h, times, keys, values, 1, 3))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("from 1 and to 3")
        .hasMessageContaining("keys 2");
    assertThatThrownBy(() -> t.windows.addAll(h, times, keys, values, 2, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.windows.addAll(h, times, keys, values, -1, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.windows.addAll(h, times, new String[1], values, 0, 2))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("keys 1");
    assertThatThrownBy(() -> t.windows.addAll(null, times, keys, values, 0, 2))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("source");
    assertThatThrownBy(() -> t.windows.addAll(h, null, keys, values, 0, 2))
        .hasMessage("eventTimesMillis");
    assertThatThrownBy(() -> t.windows.addAll(h, times, null, values, 0, 2)).hasMessage("keys");
    assertThatThrownBy(() -> t.windows.addAll(h, times, keys, null, 0, 2)).hasMessage("values");
    assertThatThrownBy(() -> t.windows.addAll(other.handles[0], times, keys, values, 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("other windows");
    assertThat(t.windows.events()).isZero();
    assertThat(t.windows.watermark()).isEqualTo(WatermarkTracker.NO_WATERMARK);
    assertThat(t.windows.addAll(h, times, keys, values, 1, 1)).as("an empty range").isZero();
    assertThat(t.windows.addAll(h, times, keys, values, 0, 2)).isEqualTo(2);
  }

  /** A key that counts its hash codes: the lookahead hashes it, and then the add does not again. */
  private static final class Counted {
    final String name;
    int hashes;

    Counted(String name) {
      this.name = name;
    }

    @Override
    public int hashCode() {
      hashes++;
      return name.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Counted c && c.name.equals(name);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * With the lookahead on, each key of a batch is hashed once, by the lookahead: its event's add
   * finds the id it found without a probe. Through the installed {@code KeyLookAhead} (the Kafka
   * driver's way) as through {@code addAll}; one by one, the add hashes it.
   */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"}) // Counted keys through String-typed windows
  void withTheLookaheadOnEachKeyOfABatchIsHashedOnce() {
    for (int kind = 0; kind < 2; kind++) {
      ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_000));
      Twin t = new Twin(new Options(kind, false, FutureEventPolicy.ACCEPT, 1_000), clock, 1);
      EventTimeWindows raw = t.windows;
      raw.add(t.handles[0], 1_000, new Counted("a"), 1L); // known before the batch
      Counted[] keys = {new Counted("a"), new Counted("b"), new Counted("a")};
      long[] times = {1_001, 1_002, 1_003};
      Long[] values = {1L, 2L, 3L};
      t.windows.lookAheadMinKeys = 0;
      raw.addAll(t.handles[0], times, keys, values, 0, 3);
      assertThat(keys[0].hashes).as("kind %d: found ahead", kind).isOne();
      assertThat(keys[1].hashes).as("absent ahead: the add inserts it").isEqualTo(2);
      assertThat(keys[2].hashes).as("found ahead").isOne();
      Counted c = new Counted("b");
      io.github.lowwater.internal.KeyLookAhead look =
          io.github.lowwater.internal.KeyLookAhead.get();
      look.lookAhead(raw, new Object[] {c}, new long[] {1_004}, 0, 1);
      look.expect(raw, 0, c);
      raw.add(t.handles[0], 1_004, c, 4L);
      look.end(raw);
      assertThat(c.hashes).as("through KeyLookAhead").isOne();
      Counted d = new Counted("a");
      raw.add(t.handles[0], 1_005, d, 5L);
      assertThat(d.hashes).as("one by one: the add's probe").isOne();
      t.windows.lookAheadMinKeys = EventTimeWindows.LOOK_AHEAD_MIN_KEYS;
      Counted[] small = {new Counted("a")};
      raw.addAll(t.handles[0], new long[] {1_006}, small, new Long[] {6L}, 0, 1);
      assertThat(small[0].hashes).as("below the threshold: no lookahead").isOne();
      raw.finish();
      List<String> rows = new ArrayList<>();
      for (Object r : raw.pollFinalized()) {
        WindowResult<?, ?> w = (WindowResult<?, ?>) r;
        rows.add(w.key() + "=" + w.value());
      }
      assertThat(rows).as("kind %d", kind).contains("a=16", "b=6");
    }
  }
}
