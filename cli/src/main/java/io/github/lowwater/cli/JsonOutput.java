package io.github.lowwater.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Writes the results as the pinned JSON: an array with one object per (lateness, idle) setting, in
 * the order of the settings (latenesses within idle timeouts as given), one object per line. Delays
 * are {@code null} when no window closed before the end of the input. Stateless.
 */
final class JsonOutput {

  private JsonOutput() {}

  static void write(List<SettingResult> results, PrintStream out) {
    out.println("[");
    for (int i = 0; i < results.size(); i++) {
      SettingResult r = results.get(i);
      out.print(
          String.format(
              Locale.ROOT,
              "  {\"allowedLatenessMillis\": %d, \"idleTimeoutMillis\": %d, \"events\": %d,"
                  + " \"late\": %d, \"lateFraction\": %s, \"windows\": %d, \"windowsWrong\": %d,"
                  + " \"delayP50Millis\": %s, \"delayP99Millis\": %s, \"peakOpenWindows\": %d,"
                  + " \"idleTransitions\": %d}",
              r.setting().allowedLatenessMillis(),
              r.setting().idleTimeoutMillis(),
              r.events(),
              r.late(),
              Double.toString(r.lateFraction()),
              r.windows(),
              r.windowsWrong(),
              delay(r.delayP50Millis()),
              delay(r.delayP99Millis()),
              r.peakOpenWindows(),
              r.idleTransitions()));
      out.println(i < results.size() - 1 ? "," : "");
    }
    out.println("]");
  }

  private static String delay(long millis) {
    return millis < 0 ? "null" : Long.toString(millis);
  }
}
