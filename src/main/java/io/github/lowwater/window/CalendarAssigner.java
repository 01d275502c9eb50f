package io.github.lowwater.window;

/**
 * The shape of calendar windows: {@link CalendarPeriod}'s periods, with the two periods last looked
 * up remembered in place (a new one replaces the one not used last), so that the events of one day,
 * or of a day and the one before it at a window's turn, cost a comparison or two and no {@code
 * java.time} call. Writer thread only.
 */
final class CalendarAssigner implements WindowAssigner {

  private final CalendarPeriod period;

  /** Two periods, {@code [start, end)}; empty at first. */
  private long start0 = Long.MAX_VALUE;

  private long end0 = Long.MIN_VALUE;
  private long start1 = Long.MAX_VALUE;
  private long end1 = Long.MIN_VALUE;

  /** Whether the period in slot 0 was the one used last. */
  private boolean lastWas0;

  CalendarAssigner(CalendarPeriod period) {
    this.period = period;
  }

  @Override
  public long startOf(long eventTimeMillis) {
    return slot0(eventTimeMillis) ? start0 : start1;
  }

  @Override
  public long endOf(long eventTimeMillis) {
    return slot0(eventTimeMillis) ? end0 : end1;
  }

  /** Finds or fills the slot of {@code t}'s period; returns whether it is slot 0. */
  private boolean slot0(long t) {
    if (t >= start0 && (t < end0 || end0 == Long.MAX_VALUE)) {
      lastWas0 = true;
      return true;
    }
    if (t >= start1 && (t < end1 || end1 == Long.MAX_VALUE)) {
      lastWas0 = false;
      return false;
    }
    long[] bounds = period.bounds(t);
    long start = bounds[0];
    long end = bounds[1];
    if (lastWas0) { // replace the one not used last
      start1 = start;
      end1 = end;
      lastWas0 = false;
      return false;
    }
    start0 = start;
    end0 = end;
    lastWas0 = true;
    return true;
  }

  @Override
  public long maxSizeMillis() {
    return period.maxSizeMillis();
  }
}
