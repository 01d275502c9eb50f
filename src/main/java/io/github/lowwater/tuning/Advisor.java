package io.github.lowwater.tuning;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Recommends an allowed lateness and an idle timeout from measured disorder ({@link
 * DisorderSnapshot}), each with a small table of the choices around it and their trade ({@link
 * Advice}).
 *
 * <p>Immutable and thread-safe. {@link #advise} costs O(histogram buckets) per choice and allocates
 * the advice; it reads no clock.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li><b>Allowed lateness.</b> An event whose lag behind its source's frontier is {@code d} is
 *       late only if {@code d} exceeds the allowed lateness {@code L} (the watermark is at most the
 *       slowest frontier minus {@code L}), so the fraction of events with {@code d > L} bounds the
 *       late fraction from above. The lags are held within 1 %, so a lag in a histogram bucket that
 *       reaches above {@code L} counts as above it, and the bound stays one. The recommended {@code
 *       L} is the smallest among the round values (0, 1, 2, 5, 10, 20, 50, 100, 200, 500
 *       milliseconds, then as below; {@code Long.MAX_VALUE}, forever, beyond the last whole hour)
 *       whose bound is at most the target late fraction. The table offers the same for the targets
 *       1e-2, 1e-3, 1e-4, 1e-5 and 0 (no recorded event late), and the target itself. Result delay:
 *       {@code L}, the time from a window's end to its result when the sources keep pace.
 *   <li><b>Idle timeout.</b> The recommended timeout is the first round value (1, 2, 5, 10, 15, 30
 *       seconds, 1, 2, 5, 10, 15, 30 minutes, whole hours) strictly above the p99.9 of the gaps
 *       between a source's records, and never below one second (a polling loop's own pauses); if
 *       that timeout would trip more than 24 times a day (one idle flap an hour), the choice above
 *       the p99.99 gap, and failing that the one above the largest gap, is recommended instead. The
 *       table offers the same above the p99, p99.9, p99.99 and the largest gap. Each choice gives
 *       its idle flaps per day, the recorded gaps longer than it scaled to a day of the recording,
 *       and its result delay: a window waits that long for a source that went quiet.
 * </ol>
 *
 * <pre>{@code
 * Advice advice = Advisor.withTargetLateFraction(1e-4).advise(recorder.snapshot());
 * System.out.println(advice); // the tables and the recommendation
 * }</pre>
 */
public final class Advisor {

  /** The late fraction {@link #defaults()} aims at: one event in ten thousand. */
  public static final double DEFAULT_TARGET_LATE_FRACTION = 1e-4;

  /** The late-fraction targets every lateness table offers, besides the advisor's own. */
  static final double[] TABLE_TARGETS = {1e-2, 1e-3, 1e-4, 1e-5, 0};

  /**
   * The gap percentiles every idle table offers; the recommended one is {@link #IDLE_PERCENTILE}.
   */
  static final double[] TABLE_PERCENTILES = {99, 99.9, 99.99, 100};

  static final double IDLE_PERCENTILE = 99.9;

  /**
   * The most idle flaps a day the recommended idle timeout may cause: one an hour. Real quiet
   * periods (a night, a maintenance window) come a few times a day; a timeout that trips more often
   * is cutting into a live source's ordinary gaps.
   */
  static final double MAX_FLAPS_PER_DAY = 24;

  /** The shortest idle timeout recommended: one second. */
  static final long MIN_IDLE_TIMEOUT_MILLIS = 1_000;

  static final long DAY_NANOS = 86_400_000_000_000L;

  private static final long SECOND = 1_000;
  private static final long MINUTE = 60 * SECOND;
  private static final long HOUR = 60 * MINUTE;

  /** The round values recommended, in milliseconds; beyond the last, whole hours. */
  private static final long[] ROUND_MILLIS = {
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    200,
    500,
    SECOND,
    2 * SECOND,
    5 * SECOND,
    10 * SECOND,
    15 * SECOND,
    30 * SECOND,
    MINUTE,
    2 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR
  };

  private final double targetLateFraction;

  private Advisor(double targetLateFraction) {
    this.targetLateFraction = targetLateFraction;
  }

  /**
   * Returns an advisor that aims at {@link #DEFAULT_TARGET_LATE_FRACTION}.
   *
   * @return the advisor
   */
  public static Advisor defaults() {
    return new Advisor(DEFAULT_TARGET_LATE_FRACTION);
  }

  /**
   * Returns an advisor whose recommended lateness keeps the expected late fraction at or below
   * {@code targetLateFraction}.
   *
   * @param targetLateFraction the fraction of events that may be late, in {@code [0, 1)}
   * @return the advisor
   * @throws IllegalArgumentException if {@code targetLateFraction} is outside {@code [0, 1)} or NaN
   */
  public static Advisor withTargetLateFraction(double targetLateFraction) {
    if (!(targetLateFraction >= 0 && targetLateFraction < 1)) {
      throw new IllegalArgumentException(
          "targetLateFraction must be in [0, 1): " + targetLateFraction);
    }
    return new Advisor(targetLateFraction);
  }

  /**
   * Returns the late fraction this advisor aims at.
   *
   * @return the target
   */
  public double targetLateFraction() {
    return targetLateFraction;
  }

  /**
   * Recommends an allowed lateness and an idle timeout from {@code snapshot}.
   *
   * @param snapshot the measured disorder
   * @return the recommendation and the tables of choices
   * @throws NullPointerException if {@code snapshot} is null
   * @throws IllegalArgumentException if {@code snapshot} has no event
   */
  public Advice advise(DisorderSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (snapshot.events() == 0) {
      throw new IllegalArgumentException("snapshot has no event: " + snapshot);
    }
    TreeSet<Double> targets = new TreeSet<>((a, b) -> Double.compare(b, a)); // largest first
    for (double t : TABLE_TARGETS) {
      targets.add(t);
    }
    targets.add(targetLateFraction);
    List<LatenessChoice> latenessChoices = new ArrayList<>();
    LatenessChoice lateness = null;
    for (double target : targets) {
      LatenessChoice c = latenessFor(snapshot.lagMillis(), target);
      latenessChoices.add(c);
      if (target == targetLateFraction) {
        lateness = c;
      }
    }
    List<IdleTimeoutChoice> idleChoices = new ArrayList<>();
    IdleTimeoutChoice idle = null;
    if (snapshot.gapNanos().count() > 0) {
      for (double p : TABLE_PERCENTILES) {
        IdleTimeoutChoice c = idleTimeoutFor(snapshot, p);
        idleChoices.add(c);
        boolean candidate = p >= IDLE_PERCENTILE;
        if (candidate && (idle == null || idle.expectedFlapsPerDay() > MAX_FLAPS_PER_DAY)) {
          idle = c; // the p99.9 choice, unless it trips on a live source's ordinary gaps
        }
      }
    }
    return new Advice(
        snapshot.events(), targetLateFraction, lateness, latenessChoices, idle, idleChoices);
  }

  /**
   * The smallest round lateness whose expected late fraction, an upper bound ({@link
   * Distribution#fractionAbove}), is at most {@code target}. That bound meets the target exactly
   * from the measured lag on ({@link Distribution#smallestValueWithFractionAbove}), so the answer
   * is the first round value at or above it: O(histogram buckets), however large the lags.
   */
  static LatenessChoice latenessFor(Distribution lagMillis, double target) {
    long measured = lagMillis.smallestValueWithFractionAbove(target);
    long l = roundAtLeast(measured);
    String basis =
        (target == 0 ? "no recorded event late" : "late <= " + formatFraction(target))
            + " (lag "
            + DurationText.format(measured)
            + ")";
    return new LatenessChoice(basis, l, lagMillis.fractionAbove(l), l);
  }

  /** The first round timeout above the gap at {@code percentile}, with its flaps per day. */
  static IdleTimeoutChoice idleTimeoutFor(DisorderSnapshot snapshot, double percentile) {
    Distribution gaps = snapshot.gapNanos();
    long gapNanos = gaps.valueAtPercentile(percentile);
    long timeoutMillis = roundAbove(ceilMillis(gapNanos));
    long timeoutNanos =
        timeoutMillis > Long.MAX_VALUE / 1_000_000L
            ? Long.MAX_VALUE
            : timeoutMillis * 1_000_000L; // at most whole hours of a 7-day gap: no overflow
    long above = gaps.countAbove(timeoutNanos);
    double perDay =
        snapshot.observedNanos() == 0 ? 0 : (double) above * DAY_NANOS / snapshot.observedNanos();
    String name = percentile == 100 ? "max" : "p" + formatPercentile(percentile);
    String basis = "> " + name + " gap (" + DurationText.format(ceilMillis(gapNanos)) + ")";
    return new IdleTimeoutChoice(basis, timeoutMillis, perDay, timeoutMillis);
  }

  /** Nanoseconds to milliseconds, rounded up. */
  static long ceilMillis(long nanos) {
    return nanos / 1_000_000L + (nanos % 1_000_000L == 0 ? 0 : 1);
  }

  /**
   * The first round value at or above {@code millis}: 0, one of {@link #ROUND_MILLIS}, then whole
   * hours; {@code Long.MAX_VALUE} (forever) beyond the last whole hour a {@code long} holds.
   */
  static long roundAtLeast(long millis) {
    if (millis <= 0) {
      return 0;
    }
    for (long r : ROUND_MILLIS) {
      if (r >= millis) {
        return r;
      }
    }
    long hours = millis / HOUR + (millis % HOUR == 0 ? 0 : 1);
    return hours > Long.MAX_VALUE / HOUR ? Long.MAX_VALUE : hours * HOUR;
  }

  /**
   * The first round value strictly above {@code millis}, and at least {@link
   * #MIN_IDLE_TIMEOUT_MILLIS}.
   */
  static long roundAbove(long millis) {
    return Math.max(roundAtLeast(millis + 1), MIN_IDLE_TIMEOUT_MILLIS);
  }

  static String formatFraction(double f) {
    if (f == 0) {
      return "0";
    }
    String s = String.format(Locale.ROOT, "%.0e", f); // 1e-04
    return s.replace("e-0", "e-").replace("e+0", "e");
  }

  private static String formatPercentile(double p) {
    return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
  }

  /** Checks a duration component of a choice. */
  static void requireNonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0: " + value);
    }
  }

  @Override
  public String toString() {
    return "Advisor{targetLateFraction=" + formatFraction(targetLateFraction) + "}";
  }
}
