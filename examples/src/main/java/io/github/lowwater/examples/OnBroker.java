package io.github.lowwater.examples;

import io.github.lowwater.test.LowwaterBroker;
import java.io.PrintStream;

/**
 * Runs a demo on the cluster given, or on an in-process broker started for it and stopped after;
 * the one place both broker demos start and time their broker.
 */
final class OnBroker {

  /** A demo body, given the cluster to use and when the run started. */
  @FunctionalInterface
  interface Body {
    void run(String bootstrapServers, long startedNanos) throws Exception;
  }

  private OnBroker() {}

  /**
   * Runs {@code body} on {@code bootstrapServers}, or on an in-process broker when it is null, then
   * prints the total time.
   *
   * @throws Exception if the broker cannot be started, or the body fails
   */
  static void run(String bootstrapServers, PrintStream out, Body body) throws Exception {
    LowwaterBroker broker = null;
    long started = System.nanoTime();
    if (bootstrapServers == null) {
      out.println("starting an in-process Kafka broker (KRaft, 127.0.0.1) ...");
      broker = LowwaterBroker.start();
      bootstrapServers = broker.bootstrapServers();
      out.printf("broker ready at %s in %.1f s%n", bootstrapServers, seconds(started));
    }
    try {
      body.run(bootstrapServers, started);
    } finally {
      if (broker != null) {
        broker.close();
      }
    }
    out.printf("done in %.1f s%n", seconds(started));
  }

  /** Seconds since {@code startNanos}, for progress lines. */
  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
