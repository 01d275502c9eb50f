package io.github.lowwater;

/** The JVM's clock. Package-private: users reach it through {@link Clock#system()}. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long monotonicNanos() {
    return System.nanoTime();
  }

  @Override
  public long wallMillis() {
    return System.currentTimeMillis();
  }

  @Override
  public String toString() {
    return "Clock.system()";
  }
}
