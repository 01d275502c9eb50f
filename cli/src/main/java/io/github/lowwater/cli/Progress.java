package io.github.lowwater.cli;

import io.github.lowwater.tuning.DurationText;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on standard error while a topic is read: records read of the total, the
 * rate in records per second and the time left at that rate, redrawn at most twice a second. Off
 * (every call does nothing) unless standard error is a terminal or {@code --progress} was given.
 * Not thread-safe; the reading thread draws it.
 */
final class Progress {

  private static final long REDRAW_NANOS = 500_000_000L;

  private final PrintStream err;
  private final boolean on;
  private final LongSupplier nanoTime;
  private long total;
  private long startNanos;
  private long lastDrawNanos;

  Progress(PrintStream err, boolean on, LongSupplier nanoTime) {
    this.err = err;
    this.on = on;
    this.nanoTime = nanoTime;
  }

  /** A progress bar that is off. */
  static Progress off(PrintStream err) {
    return new Progress(err, false, System::nanoTime);
  }

  void start(long total) {
    this.total = total;
    startNanos = nanoTime.getAsLong();
    lastDrawNanos = startNanos;
  }

  void update(long read) {
    long now = nanoTime.getAsLong();
    if (on && now - lastDrawNanos >= REDRAW_NANOS) {
      lastDrawNanos = now;
      err.print("\r" + line(read, now - startNanos));
      err.flush();
    }
  }

  void done(long read) {
    if (on) {
      err.println("\r" + line(read, nanoTime.getAsLong() - startNanos));
    }
  }

  /** For example {@code 12,000/48,000 records (25%) 3,000 records/s ETA 12s}. */
  String line(long read, long elapsedNanos) {
    double perSecond = elapsedNanos <= 0 ? 0 : read * 1e9 / elapsedNanos;
    String eta =
        perSecond <= 0 ? "?" : DurationText.format((long) ((total - read) / perSecond) * 1000);
    int percent = total == 0 ? 100 : (int) (100 * read / total);
    return String.format(
        Locale.ROOT,
        "%,d/%,d records (%d%%)  %,.0f records/s  ETA %s   ",
        read,
        total,
        percent,
        perSecond,
        eta);
  }
}
