package io.github.lowwater.window;

/**
 * The shape of calendar windows: {@link CalendarPeriod}'s periods, with the last two periods an
 * event fell in remembered, so that the events of one day (or of a day and the one before it, at a
 * window's turn) cost two comparisons and no {@code java.time} call. Writer thread only.
 */
final class CalendarAssigner implements WindowAssigner {

  private final CalendarPeriod period;

  /** The newest period looked up, {@code [start, end)}; empty at first. */
  private long start = Long.MAX_VALUE;

  private long end = Long.MIN_VALUE;

  /** The one looked up before it. */
  private long previousStart = Long.MAX_VALUE;

  private long previousEnd = Long.MIN_VALUE;

  CalendarAssigner(CalendarPeriod period) {
    this.period = period;
  }

  @Override
  public long startOf(long eventTimeMillis) {
    lookUp(eventTimeMillis);
    return start;
  }

  @Override
  public long endOf(long eventTimeMillis) {
    lookUp(eventTimeMillis);
    return end;
  }

  private void lookUp(long t) {
    if (t >= start && (t < end || end == Long.MAX_VALUE)) {
      return;
    }
    long ps = start;
    long pe = end;
    if (t >= previousStart && (t < previousEnd || previousEnd == Long.MAX_VALUE)) {
      start = previousStart;
      end = previousEnd;
    } else {
      start = period.startOf(t);
      end = period.endOf(t);
    }
    previousStart = ps;
    previousEnd = pe;
  }

  @Override
  public long maxSizeMillis() {
    return period.maxSizeMillis();
  }

  CalendarPeriod period() {
    return period;
  }
}
