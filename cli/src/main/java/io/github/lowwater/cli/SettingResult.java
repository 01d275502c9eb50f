package io.github.lowwater.cli;

/**
 * What one setting did over the whole input: one row of the table, one object of the JSON.
 *
 * @param setting the lateness and idle timeout
 * @param events the events replayed
 * @param late the events that arrived behind the watermark (their window had closed)
 * @param windows the (window, key) results of the ground truth, computed from all events
 * @param windowsWrong the (window, key) results that differ from the ground truth, missing ones
 *     included
 * @param delayP50Millis the median delay from a window's end to its emission, on the replay's
 *     event-time clock; -1 when no window closed before the end of the input
 * @param delayP99Millis the 99th percentile of that delay, -1 likewise
 * @param peakOpenWindows the most windows open at once
 * @param idleTransitions how many times a partition went idle
 */
record SettingResult(
    Setting setting,
    long events,
    long late,
    long windows,
    long windowsWrong,
    long delayP50Millis,
    long delayP99Millis,
    long peakOpenWindows,
    long idleTransitions) {

  /** The fraction of the events that were late; 0 without an event. */
  double lateFraction() {
    return events == 0 ? 0 : (double) late / events;
  }
}
