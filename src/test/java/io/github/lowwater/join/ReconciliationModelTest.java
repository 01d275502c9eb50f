package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.ManualClock;
import io.github.lowwater.testing.Trials;
import io.github.lowwater.window.Aggregator;
import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.EventTimeWindows;
import io.github.lowwater.window.HoppingWindows;
import io.github.lowwater.window.SessionWindows;
import io.github.lowwater.window.TumblingWindows;
import io.github.lowwater.window.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Reconciliation} against a naive co-group over random traces of two sides: the same feed
 * goes into two windows of the same kind and options, one reconciling, one collecting every {@link
 * Sided} value of a (window, key); each row of the first must be the naive reconciliation of the
 * second's row (sums per side, counts, status). Every kind, with and without panes (early results,
 * a grace period), sessions merging across both sides.
 */
class ReconciliationModelTest {

  /** Collects the values, merging by concatenation. */
  private static final Aggregator<Sided<Long, Long>, ?, List<Sided<Long, Long>>> COLLECT =
      Aggregators.<Sided<Long, Long>, List<Sided<Long, Long>>, List<Sided<Long, Long>>>of(
          ArrayList::new,
          (list, v) -> {
            list.add(v);
            return list;
          },
          (a, b) -> {
            a.addAll(b);
            return a;
          },
          List::copyOf);

  @Test
  void everyRowIsTheNaiveReconciliationOfItsWindowsValuesOnEveryKind() {
    long rows = 0;
    int[] statuses = new int[4];
    for (int trace = 0; trace < Trials.of(600); trace++) {
      Random random = new Random(trace);
      int kind = random.nextInt(3);
      long size = 2 + random.nextInt(10);
      long lateness = random.nextInt(4);
      long early = random.nextInt(4) == 0 ? 1 + random.nextInt((int) size) : 0;
      long grace = random.nextInt(4) == 0 ? random.nextInt(5) : 0;
      var ours =
          build(
              kind,
              size,
              lateness,
              early,
              grace,
              Reconciliation.of(Aggregators.sumLong(), Aggregators.sumLong(), Long::equals));
      var naive = build(kind, size, lateness, early, grace, COLLECT);
      List<WindowResult<String, Reconciled<Long, Long>>> got = new ArrayList<>();
      List<WindowResult<String, List<Sided<Long, Long>>>> want = new ArrayList<>();
      long time = 0;
      for (int i = 0; i < 10 + random.nextInt(80); i++) {
        time += random.nextInt(3);
        boolean left = random.nextBoolean();
        String source = (left ? "L" : "R") + random.nextInt(2);
        long t = time - random.nextInt(6);
        String key = "k" + random.nextInt(3);
        Sided<Long, Long> v =
            left ? Sided.left((long) random.nextInt(3)) : Sided.right((long) random.nextInt(3));
        ours.add(source, t, key, v);
        naive.add(source, t, key, v);
        got.addAll(ours.pollFinalized());
        want.addAll(naive.pollFinalized());
      }
      ours.finish();
      naive.finish();
      got.addAll(ours.pollFinalized());
      want.addAll(naive.pollFinalized());
      List<String> expected = new ArrayList<>();
      for (WindowResult<String, List<Sided<Long, Long>>> r : want) {
        Reconciled<Long, Long> rec = reconcile(r.value());
        statuses[rec.status().ordinal()]++;
        expected.add(r.start() + ".." + r.end() + " " + r.key() + " " + r.timing() + " " + rec);
      }
      assertThat(got)
          .as(
              "trace %d: kind %d size %d lateness %d early %d grace %d",
              trace, kind, size, lateness, early, grace)
          .extracting(
              r -> r.start() + ".." + r.end() + " " + r.key() + " " + r.timing() + " " + r.value())
          .containsExactlyElementsOf(expected);
      rows += got.size();
    }
    System.out.printf(
        "ReconciliationModelTest: %d rows; matched %d, different %d, left only %d, right only %d%n",
        rows, statuses[0], statuses[1], statuses[2], statuses[3]);
    for (int count : statuses) {
      assertThat(count).as("every status occurs").isGreaterThan(Trials.of(600) / 6);
    }
  }

  private static Reconciled<Long, Long> reconcile(List<Sided<Long, Long>> values) {
    Long left = null;
    Long right = null;
    long lc = 0;
    long rc = 0;
    for (Sided<Long, Long> v : values) {
      if (v.side() == JoinSide.LEFT) {
        left = (left == null ? 0 : left) + v.left();
        lc++;
      } else {
        right = (right == null ? 0 : right) + v.right();
        rc++;
      }
    }
    Reconciled.Status status =
        left == null
            ? Reconciled.Status.RIGHT_ONLY
            : right == null
                ? Reconciled.Status.LEFT_ONLY
                : left.equals(right) ? Reconciled.Status.MATCHED : Reconciled.Status.DIFFERENT;
    return new Reconciled<>(status, left, right, lc, rc);
  }

  private static <R> EventTimeWindows<String, Sided<Long, Long>, R> build(
      int kind,
      long size,
      long lateness,
      long early,
      long grace,
      Aggregator<Sided<Long, Long>, ?, R> aggregator) {
    Duration sizeD = Duration.ofMillis(size);
    return switch (kind) {
      case 0 -> {
        var b = TumblingWindows.builder(sizeD, aggregator);
        yield configure(b, lateness, early, grace).<String, Sided<Long, Long>>build();
      }
      case 1 -> {
        var b = HoppingWindows.builder(sizeD, Duration.ofMillis(1 + size / 2), aggregator);
        yield configure(b, lateness, early, grace).<String, Sided<Long, Long>>build();
      }
      default -> {
        var b = SessionWindows.builder(sizeD, aggregator);
        yield configure(b, lateness, early, grace).<String, Sided<Long, Long>>build();
      }
    };
  }

  private static <B extends io.github.lowwater.window.EventTimeOptions<B>> B configure(
      B b, long lateness, long early, long grace) {
    b.allowedLateness(Duration.ofMillis(lateness)).clock(new ManualClock());
    if (early > 0) {
      b.earlyResults(Duration.ofMillis(early));
    }
    if (grace > 0) {
      b.grace(Duration.ofMillis(grace));
    }
    return b;
  }
}
