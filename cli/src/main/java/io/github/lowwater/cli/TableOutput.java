package io.github.lowwater.cli;

import io.github.lowwater.tuning.DurationText;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the results as an aligned text table, one row per setting, every column right-aligned to
 * its widest cell. Stateless.
 */
final class TableOutput {

  private static final String[] HEADER = {
    "lateness",
    "idle",
    "events",
    "late",
    "late fraction",
    "windows wrong",
    "delay p50",
    "delay p99",
    "peak open windows",
    "idle transitions"
  };

  private TableOutput() {}

  static void write(List<SettingResult> results, PrintStream out) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (SettingResult r : results) {
      rows.add(
          new String[] {
            DurationText.format(r.setting().allowedLatenessMillis()),
            DurationText.format(r.setting().idleTimeoutMillis()),
            String.format(Locale.ROOT, "%,d", r.events()),
            String.format(Locale.ROOT, "%,d", r.late()),
            String.format(Locale.ROOT, "%.2e", r.lateFraction()),
            String.format(Locale.ROOT, "%,d of %,d", r.windowsWrong(), r.windows()),
            delay(r.delayP50Millis()),
            delay(r.delayP99Millis()),
            Long.toString(r.peakOpenWindows()),
            Long.toString(r.idleTransitions())
          });
    }
    int[] widths = new int[HEADER.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder sb = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        if (c > 0) {
          sb.append("  ");
        }
        sb.append(" ".repeat(widths[c] - row[c].length())).append(row[c]);
      }
      out.println(sb);
    }
  }

  private static String delay(long millis) {
    return millis < 0 ? "-" : DurationText.format(millis);
  }
}
