package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.internal.TimeMath;
import io.github.lowwater.testing.Trials;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based test: seeded random sequences of every mutating operation and clock movement, driving
 * {@link WatermarkTracker} (lazy heap, activity list) and a naive reference that rescans every
 * source on every re-evaluation, compared after every step. A failure names its seed and step; to
 * replay one, put the seed into {@link #replayOneSeed()}.
 */
class WatermarkTrackerModelTest {

  private static final int SEEDS = 400;
  private static final int STEPS = 1_500;

  @Test
  void trackerMatchesTheNaiveReferenceOnRandomSequences() {
    long base = 0x10_0077_A7E2L;
    for (int i = 0; i < Trials.of(SEEDS); i++) {
      run(base + i);
    }
  }

  @Test
  void replayOneSeed() {
    run(0x10_0077_A7E2L); // replace with a seed from a failure message to debug it
  }

  private static void run(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long latenessMillis = pick(random, new long[] {0, 1, 1_000, 120_000, Long.MAX_VALUE / 2});
    long idleNanos = pick(random, new long[] {1, 1_000, 1_000_000_000L, 120_000_000_000L});
    int poolSize = 1 + random.nextInt(12);
    WatermarkStrategy strategy =
        random.nextInt(3) == 0
            ? WatermarkStrategy.values()[random.nextInt(3)]
            : WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS;
    long skewMillis = random.nextBoolean() ? -1 : pick(random, new long[] {0, 5_000, 1L << 40});
    ManualClock clock = new ManualClock();
    WatermarkTracker.Builder builder =
        WatermarkTracker.builder()
            .allowedLateness(Duration.ofMillis(latenessMillis))
            .idleTimeout(Duration.ofNanos(idleNanos))
            .strategy(strategy)
            .clock(clock);
    if (skewMillis >= 0) {
      builder.maxFutureSkew(Duration.ofMillis(skewMillis));
    }
    WatermarkTracker tracker = builder.build();
    Reference reference = new Reference(latenessMillis, idleNanos, strategy, skewMillis, clock);
    long[] nextTime = new long[poolSize];
    long origin =
        random.nextInt(3) == 0 ? Long.MIN_VALUE + 10_000 : random.nextLong(-1L << 40, 1L << 40);
    for (int i = 0; i < poolSize; i++) {
      nextTime[i] = origin;
    }

    Map<String, WatermarkTracker.Source> handles = new HashMap<>();
    for (int step = 0; step < STEPS; step++) {
      int sourceIndex = random.nextInt(poolSize);
      String source = "s" + sourceIndex;
      long now = clock.monotonicNanos();
      String op;
      int dice = random.nextInt(100);
      if (dice < 38) {
        long t = eventTime(random, nextTime, sourceIndex);
        op = "observe(" + source + ", " + t + ")";
        tracker.observe(source, t);
        reference.observe(source, t, now);
      } else if (dice < 44) {
        // Through a handle: taken now (a registration) or kept from earlier, perhaps from before
        // a removal, when it starts the source afresh like the key would.
        long t = eventTime(random, nextTime, sourceIndex);
        WatermarkTracker.Source handle = handles.get(source);
        if (handle == null || random.nextInt(4) == 0) {
          handle = tracker.source(source);
          reference.register(source, now);
          handles.put(source, handle);
        }
        op = "observe(handle " + handle + ", " + t + ")";
        tracker.observe(handle, t);
        reference.observe(source, t, now);
      } else if (dice < 48) {
        long t = eventTime(random, nextTime, sourceIndex);
        op = "observe(handle as Object " + source + ", " + t + ")";
        Object asObject = tracker.source(source);
        reference.register(source, now);
        tracker.observe(asObject, t);
        reference.observe(source, t, now);
      } else if (dice < 52) {
        long w = eventTime(random, nextTime, sourceIndex);
        op = "punctuate(" + source + ", " + w + ")";
        tracker.punctuate(source, w);
        reference.punctuate(source, w, now);
      } else if (dice < 55) {
        long a = eventTime(random, nextTime, sourceIndex);
        long b = eventTime(random, nextTime, sourceIndex);
        op = "lookahead(" + source + ", " + Math.min(a, b) + ", " + Math.max(a, b) + ")";
        tracker.lookahead(source, Math.min(a, b), Math.max(a, b));
        reference.lookahead(source, Math.min(a, b), Math.max(a, b), now);
      } else if (dice < 62) {
        op = "register(" + source + ")";
        tracker.register(source);
        reference.register(source, now);
      } else if (dice < 67) {
        op = "remove(" + source + ")";
        boolean removed = tracker.remove(source);
        assertThat(removed)
            .as("seed %d step %d %s", seed, step, op)
            .isEqualTo(reference.remove(source, now));
      } else if (dice < 72) {
        op = "heartbeat(" + source + ")";
        tracker.heartbeat(source);
        reference.heartbeat(source, now);
      } else if (dice < 78) {
        op = "refresh()";
        tracker.refresh();
        reference.evaluate(now);
      } else if (dice < 82) {
        long wall =
            random.nextInt(4) == 0
                ? random.nextLong()
                : clock.wallMillis() + random.nextInt(1_000_000);
        op = "advanceTo(" + wall + ")";
        tracker.advanceTo(wall);
        reference.advanceTo(wall, now);
      } else if (dice < 85) {
        long v =
            random.nextInt(4) == 0
                ? random.nextLong()
                : clock.wallMillis() + random.nextInt(-500_000, 500_000);
        op = "seed(" + v + ")";
        long returned = tracker.seedWatermark(v);
        reference.seed(v, now, clock.wallMillis());
        assertThat(returned)
            .as("seed %d step %d %s", seed, step, op)
            .isEqualTo(reference.watermark);
      } else if (dice < 87) {
        long jump = random.nextLong(-1L << 30, 1L << 30);
        op = "clock.jumpWall(" + jump + "ms)";
        clock.jumpWall(Duration.ofMillis(jump));
      } else {
        long advance = clockStep(random, idleNanos);
        op = "clock.advance(" + advance + "ns)";
        clock.advance(Duration.ofNanos(advance));
      }
      compare(seed, step, op, tracker, reference, poolSize);
    }
  }

  private static long eventTime(SplittableRandom random, long[] nextTime, int source) {
    int dice = random.nextInt(100);
    if (dice < 2) {
      return random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    if (dice < 4) {
      return random.nextLong();
    }
    if (dice < 20) { // mild disorder
      return TimeMath.saturatedSubtract(nextTime[source], random.nextInt(5_000));
    }
    nextTime[source] = TimeMath.saturatedAdd(nextTime[source], random.nextInt(10_000));
    return nextTime[source];
  }

  private static long clockStep(SplittableRandom random, long idleNanos) {
    switch (random.nextInt(5)) {
      case 0:
        return idleNanos; // exactly the timeout
      case 1:
        return TimeMath.saturatedAdd(idleNanos, 1) == Long.MAX_VALUE ? idleNanos : idleNanos + 1;
      case 2:
        return 0;
      default:
        return random.nextLong(Math.max(1, Math.min(idleNanos, 1L << 40)));
    }
  }

  private static void compare(
      long seed, int step, String op, WatermarkTracker tracker, Reference reference, int poolSize) {
    String where = "seed " + seed + " step " + step + " after " + op;
    assertThat(tracker.watermark()).as(where + ": watermark").isEqualTo(reference.watermark);
    assertThat(tracker.activeSources())
        .as(where + ": activeSources")
        .isEqualTo(reference.activeCount());
    assertThat(tracker.knownSources())
        .as(where + ": knownSources")
        .isEqualTo(reference.sources.size());
    for (int i = 0; i < poolSize; i++) {
      String s = "s" + i;
      long[] state = reference.sources.get(s);
      assertThat(tracker.frontier(s))
          .as(where + ": frontier " + s)
          .isEqualTo(state == null ? Long.MIN_VALUE : state[FRONTIER]);
      assertThat(tracker.isActive(s))
          .as(where + ": active " + s)
          .isEqualTo(state != null && state[ACTIVE] == 1);
      assertThat(tracker.futureEvents(s))
          .as(where + ": future " + s)
          .isEqualTo(state == null ? 0 : state[FUTURE]);
    }
    assertThat(tracker.futureEvents())
        .as(where + ": future events")
        .isEqualTo(reference.futureEvents);
  }

  private static long pick(SplittableRandom random, long[] choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static final int FRONTIER = 0;
  private static final int LAST_SEEN = 1;
  private static final int ACTIVE = 2;
  private static final int CONTRIBUTION = 3;
  private static final int FUTURE = 4;

  /** The rules of docs/semantics.md, written as plainly as possible: rescan everything. */
  private static final class Reference {
    final long latenessMillis;
    final long idleNanos;
    final WatermarkStrategy strategy;
    final long skewMillis;
    final ManualClock clock;
    final Map<String, long[]> sources = new LinkedHashMap<>();
    long watermark = Long.MIN_VALUE;
    long futureEvents;

    Reference(
        long latenessMillis,
        long idleNanos,
        WatermarkStrategy strategy,
        long skewMillis,
        ManualClock clock) {
      this.latenessMillis = latenessMillis;
      this.idleNanos = idleNanos;
      this.strategy = strategy;
      this.skewMillis = skewMillis;
      this.clock = clock;
    }

    long[] source(String source) {
      return sources.computeIfAbsent(
          source, k -> new long[] {Long.MIN_VALUE, 0, 0, Long.MIN_VALUE, 0});
    }

    void activity(long[] s, long now) {
      if (strategy == WatermarkStrategy.PROCESSING_TIME) {
        s[CONTRIBUTION] =
            Math.max(
                s[CONTRIBUTION], TimeMath.saturatedSubtract(clock.wallMillis(), latenessMillis));
      }
      s[LAST_SEEN] = now;
      s[ACTIVE] = 1;
    }

    void observe(String source, long t, long now) {
      long[] s = source(source);
      if (skewMillis >= 0 && t > TimeMath.saturatedAdd(clock.wallMillis(), skewMillis)) {
        s[FUTURE]++;
        futureEvents++;
        evaluate(now);
        return;
      } else {
        s[FRONTIER] = Math.max(s[FRONTIER], t);
        if (strategy == WatermarkStrategy.BOUNDED_OUT_OF_ORDERNESS) {
          s[CONTRIBUTION] =
              Math.max(s[CONTRIBUTION], TimeMath.saturatedSubtract(t, latenessMillis));
        }
      }
      activity(s, now);
      evaluate(now);
    }

    void punctuate(String source, long w, long now) {
      long[] s = source(source);
      s[CONTRIBUTION] = Math.max(s[CONTRIBUTION], w);
      activity(s, now);
      evaluate(now);
    }

    void lookahead(String source, long min, long max, long now) {
      long[] s = source(source);
      s[CONTRIBUTION] =
          Math.max(s[CONTRIBUTION], Math.min(min, TimeMath.saturatedSubtract(max, latenessMillis)));
      activity(s, now);
      evaluate(now);
    }

    void register(String source, long now) {
      if (!sources.containsKey(source)) {
        activity(source(source), now);
      }
    }

    void heartbeat(String source, long now) {
      activity(source(source), now);
      evaluate(now);
    }

    boolean remove(String source, long now) {
      boolean removed = sources.remove(source) != null;
      evaluate(now);
      return removed;
    }

    void advanceTo(long wall, long now) {
      evaluate(now);
      watermark = Math.max(watermark, TimeMath.saturatedSubtract(wall, latenessMillis));
    }

    void seed(long v, long now, long wallNow) {
      evaluate(now);
      watermark =
          Math.max(watermark, Math.min(v, TimeMath.saturatedSubtract(wallNow, latenessMillis)));
    }

    void evaluate(long now) {
      long min = Long.MAX_VALUE;
      boolean any = false;
      for (long[] s : sources.values()) {
        if (s[ACTIVE] == 1 && now - s[LAST_SEEN] > idleNanos) {
          s[ACTIVE] = 0;
        }
        if (s[ACTIVE] == 1) {
          any = true;
          min = Math.min(min, s[CONTRIBUTION]);
        }
      }
      if (any) {
        watermark = Math.max(watermark, min);
      }
    }

    int activeCount() {
      int n = 0;
      for (long[] s : sources.values()) {
        n += (int) s[ACTIVE];
      }
      return n;
    }
  }
}
