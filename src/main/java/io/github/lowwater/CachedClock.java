package io.github.lowwater;

import java.util.Objects;

/**
 * A {@link Clock} that reads another clock only when {@link #update()} is called, so that a
 * consumer loop pays for one clock read per poll instead of one per record (like Agrona's cached
 * clocks, updated once per duty cycle).
 *
 * <p>Between updates every reading returns the value of the last update: events of one poll batch
 * all count as arriving at the same instant, which is what they did. Idleness is then measured with
 * the resolution of the poll interval, never more than one poll late.
 *
 * <p>Not thread-safe for {@link #update()}: call it from the polling thread. Readings are volatile
 * and may be taken from any thread. Allocation-free.
 *
 * <pre>{@code
 * CachedClock clock = new CachedClock(Clock.system());
 * TumblingWindows<String, Long, Long> windows = TumblingWindows.builder(size, sumLong())
 *     .clock(clock).build();
 * while (running) {
 *   ConsumerRecords<String, Long> records = consumer.poll(timeout);
 *   clock.update();
 *   // ... windows.add(...) for each record
 * }
 * }</pre>
 */
public final class CachedClock implements Clock {

  private final Clock source;
  private volatile long monotonicNanos;
  private volatile long wallMillis;

  /**
   * Creates a cached clock over {@code source} and reads it once.
   *
   * @param source the clock to read on {@link #update()}
   * @throws NullPointerException if {@code source} is null
   */
  public CachedClock(Clock source) {
    this.source = Objects.requireNonNull(source, "source");
    update();
  }

  /**
   * Reads the underlying clock once; every reading returns these values until the next update.
   *
   * @return this clock, for chaining
   */
  public CachedClock update() {
    monotonicNanos = source.monotonicNanos();
    wallMillis = source.wallMillis();
    return this;
  }

  @Override
  public long monotonicNanos() {
    return monotonicNanos;
  }

  @Override
  public long wallMillis() {
    return wallMillis;
  }

  @Override
  public String toString() {
    return "CachedClock{" + source + "}";
  }
}
