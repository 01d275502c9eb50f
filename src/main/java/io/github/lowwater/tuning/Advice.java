package io.github.lowwater.tuning;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What an {@link Advisor} recommends from one {@link DisorderSnapshot}: an allowed lateness and an
 * idle timeout, each chosen from a small table of choices with their trade. {@link #toString()}
 * renders the tables and the recommendation as aligned text.
 *
 * <p>Immutable and thread-safe.
 */
public final class Advice {

  private final long events;
  private final double targetLateFraction;
  private final LatenessChoice lateness;
  private final List<LatenessChoice> latenessChoices;
  private final IdleTimeoutChoice idleTimeout;
  private final List<IdleTimeoutChoice> idleTimeoutChoices;

  Advice(
      long events,
      double targetLateFraction,
      LatenessChoice lateness,
      List<LatenessChoice> latenessChoices,
      IdleTimeoutChoice idleTimeout,
      List<IdleTimeoutChoice> idleTimeoutChoices) {
    this.events = events;
    this.targetLateFraction = targetLateFraction;
    this.lateness = Objects.requireNonNull(lateness, "lateness");
    this.latenessChoices = List.copyOf(latenessChoices);
    this.idleTimeout = idleTimeout;
    this.idleTimeoutChoices = List.copyOf(idleTimeoutChoices);
  }

  /**
   * Returns the number of events the advice is based on.
   *
   * @return the event count
   */
  public long events() {
    return events;
  }

  /**
   * Returns the late fraction the recommended lateness aims at.
   *
   * @return the target, in {@code [0, 1]}
   */
  public double targetLateFraction() {
    return targetLateFraction;
  }

  /**
   * Returns the recommended allowed lateness: the smallest that keeps the expected late fraction at
   * or below the target.
   *
   * @return the recommended choice
   */
  public LatenessChoice lateness() {
    return lateness;
  }

  /**
   * Returns the allowed latenesses offered, largest late fraction first.
   *
   * @return the choices, unmodifiable
   */
  public List<LatenessChoice> latenessChoices() {
    return latenessChoices;
  }

  /**
   * Returns the recommended idle timeout: the first round value above the p99.9 gap of a live
   * source, or above a higher percentile if that one would flap more than once an hour (see {@link
   * Advisor}); empty when no source had two records (no gap was measured).
   *
   * @return the recommended choice, if any
   */
  public Optional<IdleTimeoutChoice> idleTimeout() {
    return Optional.ofNullable(idleTimeout);
  }

  /**
   * Returns the idle timeouts offered, shortest first; empty when no gap was measured.
   *
   * @return the choices, unmodifiable
   */
  public List<IdleTimeoutChoice> idleTimeoutChoices() {
    return idleTimeoutChoices;
  }

  /**
   * Renders the two tables and the recommendation, for example:
   *
   * <pre>
   * allowed lateness  late fraction  result delay  basis
   *               0s       1.20e-02            0s  late &lt;= 1e-2
   * ...
   * recommended: allowed lateness 30s, idle timeout 2m
   * </pre>
   *
   * @return aligned text, lines separated by {@code \n}
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "advice from %,d events\n", events));
    row(sb, "allowed lateness", "late fraction", "result delay", "basis");
    for (LatenessChoice c : latenessChoices) {
      row(
          sb,
          DurationText.format(c.allowedLatenessMillis()),
          String.format(Locale.ROOT, "%.2e", c.expectedLateFraction()),
          DurationText.format(c.expectedResultDelayMillis()),
          c.basis());
    }
    if (!idleTimeoutChoices.isEmpty()) {
      row(sb, "idle timeout", "idle flaps/day", "quiet delay", "basis");
      for (IdleTimeoutChoice c : idleTimeoutChoices) {
        row(
            sb,
            DurationText.format(c.idleTimeoutMillis()),
            String.format(Locale.ROOT, "%.1f", c.expectedFlapsPerDay()),
            DurationText.format(c.expectedResultDelayMillis()),
            c.basis());
      }
    }
    sb.append(recommendation());
    return sb.toString();
  }

  /** Appends one aligned row of a table. */
  private static void row(
      StringBuilder sb, String value, String trade, String delay, String basis) {
    sb.append(String.format(Locale.ROOT, "%16s  %14s  %12s  %s\n", value, trade, delay, basis));
  }

  /**
   * Returns the recommendation in one line, with the reason: for example {@code recommended:
   * allowed lateness 30s (late fraction <= 1e-4, expected 8.0e-05, results 30s after the window
   * end); idle timeout 2m (> p99.9 gap, 0.5 idle flaps/day)}.
   *
   * @return one line, without a line separator
   */
  public String recommendation() {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "recommended: allowed lateness %s (late fraction <= %s, expected %.2e, results %s"
                    + " after the window end)",
                DurationText.format(lateness.allowedLatenessMillis()),
                Advisor.formatFraction(targetLateFraction),
                lateness.expectedLateFraction(),
                DurationText.format(lateness.expectedResultDelayMillis())));
    if (idleTimeout != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              "; idle timeout %s (%s, %.1f idle flaps/day)",
              DurationText.format(idleTimeout.idleTimeoutMillis()),
              idleTimeout.basis(),
              idleTimeout.expectedFlapsPerDay()));
    } else {
      sb.append("; idle timeout: no gap measured (no source had two records)");
    }
    return sb.toString();
  }
}
