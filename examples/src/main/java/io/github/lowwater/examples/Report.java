package io.github.lowwater.examples;

import io.github.lowwater.testing.SyntheticFeed;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

/** Prints the side-by-side table of the demo. */
final class Report {

  private static final DateTimeFormatter HH_MM =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

  /** One consumer's results: its late-event count and its windows (start to key to count). */
  record Column(String name, long late, TreeMap<Long, TreeMap<String, Long>> windows, String lag) {

    Column(String name, long late, TreeMap<Long, TreeMap<String, Long>> windows) {
      this(name, late, windows, null);
    }

    int windowsEqualToTruth(TreeMap<Long, TreeMap<String, Long>> truth) {
      int equal = 0;
      for (Map.Entry<Long, TreeMap<String, Long>> e : truth.entrySet()) {
        if (e.getValue().equals(windows.get(e.getKey()))) {
          equal++;
        }
      }
      return equal;
    }

    long counted() {
      long sum = 0;
      for (TreeMap<String, Long> w : windows.values()) {
        sum += SyntheticFeed.total(w);
      }
      return sum;
    }
  }

  private Report() {}

  static void sideBySide(
      PrintStream out, TreeMap<Long, TreeMap<String, Long>> truth, Column a, Column b) {
    long produced = 0;
    for (TreeMap<String, Long> w : truth.values()) {
      produced += SyntheticFeed.total(w);
    }
    out.printf("%-28s %22s %14s%n", "", a.name(), b.name());
    out.printf("%-28s %22s %14s%n", "late events", fmt(a.late()), fmt(b.late()));
    out.printf(
        "%-28s %22s %14s%n",
        "events counted in windows",
        fmt(a.counted()) + "/" + fmt(produced),
        fmt(b.counted()) + "/" + fmt(produced));
    out.printf(
        "%-28s %22s %14s%n",
        "windows equal to the truth",
        a.windowsEqualToTruth(truth) + "/" + truth.size(),
        b.windowsEqualToTruth(truth) + "/" + truth.size());
    if (a.lag() != null && b.lag() != null) {
      out.printf("%-28s %22s %14s%n", "max watermark lag", a.lag(), b.lag());
    }
    out.println();
    out.printf("%-13s %10s %22s %14s%n", "window (UTC)", "produced", a.name(), b.name());
    for (Map.Entry<Long, TreeMap<String, Long>> e : truth.entrySet()) {
      long start = e.getKey();
      long end = start + windowMillis(truth);
      out.printf(
          "%-13s %10s %22s %14s%n",
          HH_MM.format(Instant.ofEpochMilli(start)) + "-" + HH_MM.format(Instant.ofEpochMilli(end)),
          fmt(SyntheticFeed.total(e.getValue())),
          cell(a.windows().get(start), e.getValue()),
          cell(b.windows().get(start), e.getValue()));
    }
  }

  /**
   * Prints one consumer's results against the truth: the totals, then window by window.
   *
   * @param out where to print
   * @param truth what was produced: window start to key to count
   * @param c the results
   */
  static void againstTruth(PrintStream out, TreeMap<Long, TreeMap<String, Long>> truth, Column c) {
    long produced = 0;
    for (TreeMap<String, Long> w : truth.values()) {
      produced += SyntheticFeed.total(w);
    }
    out.printf("%-28s %22s%n", "", c.name());
    out.printf("%-28s %22s%n", "late events", fmt(c.late()));
    out.printf("%-28s %22s%n", "events counted in windows", fmt(c.counted()) + "/" + fmt(produced));
    out.printf(
        "%-28s %22s%n",
        "windows equal to the truth", c.windowsEqualToTruth(truth) + "/" + truth.size());
    out.println();
    out.printf("%-13s %10s %22s%n", "window (UTC)", "produced", c.name());
    for (Map.Entry<Long, TreeMap<String, Long>> e : truth.entrySet()) {
      long start = e.getKey();
      long end = start + windowMillis(truth);
      out.printf(
          "%-13s %10s %22s%n",
          HH_MM.format(Instant.ofEpochMilli(start)) + "-" + HH_MM.format(Instant.ofEpochMilli(end)),
          fmt(SyntheticFeed.total(e.getValue())),
          cell(c.windows().get(start), e.getValue()));
    }
  }

  private static long windowMillis(TreeMap<Long, ?> truth) {
    if (truth.size() < 2) {
      return 0;
    }
    return truth.higherKey(truth.firstKey()) - truth.firstKey();
  }

  private static String cell(TreeMap<String, Long> got, TreeMap<String, Long> expected) {
    if (got == null) {
      return "missing";
    }
    String count = fmt(SyntheticFeed.total(got));
    return got.equals(expected) ? count : count + " (wrong)";
  }

  static String fmt(long n) {
    return String.format("%,d", n);
  }
}
