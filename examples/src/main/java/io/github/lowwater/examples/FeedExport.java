package io.github.lowwater.examples;

import io.github.lowwater.testing.SyntheticFeed;
import io.github.lowwater.testing.SyntheticFeed.Event;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Writes the broker demo's feed as the CSV the replay tool reads ({@code
 * partition,offset,timestampMillis,key}), for {@code docs/tuning.md}: the same events as {@link
 * BrokerDemo} (the 40-minute backlog, then ten live minutes with partitions 3-5 quiet for the
 * second half, same seeds), in the order they would arrive live: each event delayed in transit by
 * up to {@link #MAX_DELAY_MILLIS} (uniformly, deterministically), all partitions interleaved by
 * arrival time, offsets numbered per partition in arrival order. The demo itself reads the backlog
 * in the consumer's fetch order, without transit delays; the export has the delays so that the
 * replay has disorder to measure.
 */
final class FeedExport {

  /** The largest transit delay of an event. */
  static final long MAX_DELAY_MILLIS = 90_000;

  private FeedExport() {}

  /** One event with its arrival time. */
  private record Arrival(long arrivalMillis, long sequence, Event event) {}

  static void write(Path file, PrintStream out) throws IOException {
    long base = SyntheticFeed.BASE_MILLIS;
    List<Event> events = new ArrayList<>();
    SyntheticFeed.generate(BrokerDemo.PARTITIONS, base, BrokerDemo.BACKLOG.toMillis(), 250, 42)
        .forEach(events::addAll);
    for (int m = 0; m < BrokerDemo.LIVE_MINUTES; m++) {
      long from = base + BrokerDemo.BACKLOG.toMillis() + m * 60_000L;
      int[] live =
          m < BrokerDemo.LIVE_MINUTES / 2
              ? IntStream.range(0, BrokerDemo.PARTITIONS).toArray()
              : new int[] {0, 1, 2};
      List<List<Event>> all =
          SyntheticFeed.generate(BrokerDemo.PARTITIONS, from, 60_000, 250, 1000 + m);
      for (int p : live) {
        events.addAll(all.get(p));
      }
    }
    SplittableRandom random = new SplittableRandom(7);
    List<Arrival> arrivals = new ArrayList<>(events.size());
    for (Event e : events) {
      long delay = random.nextLong(MAX_DELAY_MILLIS + 1);
      arrivals.add(new Arrival(e.eventTimeMillis() + delay, arrivals.size(), e));
    }
    arrivals.sort(
        Comparator.comparingLong(Arrival::arrivalMillis).thenComparingLong(Arrival::sequence));
    long[] offsets = new long[BrokerDemo.PARTITIONS];
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write("partition,offset,timestampMillis,key\n");
      for (Arrival a : arrivals) {
        Event e = a.event();
        w.write(
            e.partition()
                + ","
                + offsets[e.partition()]++
                + ","
                + e.eventTimeMillis()
                + ","
                + e.key()
                + "\n");
      }
    }
    out.printf("exported %,d events of the demo's feed to %s%n", arrivals.size(), file);
  }
}
