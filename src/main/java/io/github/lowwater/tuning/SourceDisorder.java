package io.github.lowwater.tuning;

import io.github.lowwater.internal.TimeMath;
import org.HdrHistogram.Histogram;

/**
 * The disorder recorded for one source, and the handle to record it: get it once from {@link
 * DisorderRecorder#source(Object)} and pass it to {@link DisorderRecorder#record(SourceDisorder,
 * long, long)} for every event of the source, so that no key is hashed per event.
 *
 * <p>Not thread-safe; owned by its recorder's writer thread. Read it through a {@link
 * DisorderSnapshot}. Three histograms of two significant digits, allocated once with the source;
 * recording into them allocates nothing.
 */
public final class SourceDisorder {

  /** {@link #frontierMillis} of a source with no event yet: minus infinity. */
  static final long UNSEEN = Long.MIN_VALUE;

  /** {@link #lastSeenNanos} of a source with no event yet: no gap is recorded for a first event. */
  static final long NEVER = Long.MIN_VALUE;

  private final Object key;
  private final DisorderRecorder owner;
  final Histogram lagMillis;
  final Histogram gapNanos;
  final Histogram lateBehindMillis;
  private final long maxLagMillis;
  private final long maxGapNanos;

  /**
   * Lags of 0 and gaps of 0 not yet in their histograms: the common cases (an in-order event, a
   * record of the same poll) cost an increment; a snapshot adds them to its copies.
   */
  long zeroLags;

  long zeroGaps;

  long frontierMillis = UNSEEN;
  long firstSeenNanos = NEVER;
  long lastSeenNanos = NEVER;

  SourceDisorder(Object key, DisorderRecorder owner, long maxLagMillis, long maxGapNanos) {
    this.key = key;
    this.owner = owner;
    this.maxLagMillis = maxLagMillis;
    this.maxGapNanos = maxGapNanos;
    this.lagMillis = DisorderRecorder.histogram(maxLagMillis);
    this.gapNanos = DisorderRecorder.histogram(maxGapNanos);
    this.lateBehindMillis = DisorderRecorder.histogram(maxLagMillis);
  }

  /**
   * Returns the source's key, as given to {@link DisorderRecorder#source(Object)}.
   *
   * @return the key
   */
  public Object key() {
    return key;
  }

  /**
   * Returns whether this handle was made by {@code recorder}.
   *
   * @param recorder a recorder
   * @return {@code true} if {@code recorder} made this handle
   */
  public boolean belongsTo(DisorderRecorder recorder) {
    return owner == recorder;
  }

  /** Records one event: its lag behind the frontier, then the gap since the previous one. */
  void record(long eventTimeMillis, long nowNanos) {
    long frontier = frontierMillis;
    if (eventTimeMillis >= frontier) {
      frontierMillis = eventTimeMillis;
      zeroLags++;
    } else {
      lagMillis.recordValue(
          Math.min(TimeMath.saturatedSubtract(frontier, eventTimeMillis), maxLagMillis));
    }
    long last = lastSeenNanos;
    if (last == NEVER) {
      firstSeenNanos = nowNanos;
      lastSeenNanos = nowNanos;
    } else if (nowNanos > last) {
      gapNanos.recordValue(Math.min(TimeMath.saturatedSubtract(nowNanos, last), maxGapNanos));
      lastSeenNanos = nowNanos;
    } else {
      zeroGaps++; // the same reading (one per poll batch), or a clock gone backwards
    }
  }

  /** A copy of the lag histogram with the pending zeros in it. */
  Histogram lagCopy() {
    Histogram h = lagMillis.copy();
    if (zeroLags > 0) {
      h.recordValueWithCount(0, zeroLags);
    }
    return h;
  }

  /** A copy of the gap histogram with the pending zeros in it. */
  Histogram gapCopy() {
    Histogram h = gapNanos.copy();
    if (zeroGaps > 0) {
      h.recordValueWithCount(0, zeroGaps);
    }
    return h;
  }

  /** Records how far a late event was behind the watermark; 0 if it was not behind it. */
  void recordLate(long eventTimeMillis, long watermarkMillis) {
    long behind = TimeMath.saturatedSubtract(watermarkMillis, eventTimeMillis);
    lateBehindMillis.recordValue(Math.min(Math.max(behind, 0), maxLagMillis));
  }

  @Override
  public String toString() {
    return "SourceDisorder{" + key + "}";
  }
}
