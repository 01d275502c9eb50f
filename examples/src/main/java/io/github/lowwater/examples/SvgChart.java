package io.github.lowwater.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * A small hand-written SVG line chart: event time (y) against the demo's processing time (x), one
 * line per partition frontier, the two watermarks, and the late events as red marks.
 */
final class SvgChart {

  private static final String[] PARTITION_COLOURS = {
    "#9ecae1", "#6baed6", "#4292c6", "#c7e9c0", "#a1d99b", "#74c476"
  };
  private static final DateTimeFormatter HH_MM =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

  /** One sample per poll: processing time and the event times to plot. */
  record Sample(long wallMillis, long[] frontiers, long lowwater, long globalMax) {}

  private final List<Sample> samples = new ArrayList<>();
  private final List<long[]> lateMarks = new ArrayList<>(); // {wall, eventTime}

  void sample(long wallMillis, long[] frontiers, long lowwater, long globalMax) {
    samples.add(new Sample(wallMillis, frontiers.clone(), lowwater, globalMax));
  }

  void late(long wallMillis, long eventTimeMillis) {
    if (lateMarks.size() < 3000) {
      lateMarks.add(new long[] {wallMillis, eventTimeMillis});
    }
  }

  void write(Path file, String title) throws IOException {
    int w = 960;
    int h = 560;
    int left = 70;
    int right = 190;
    int top = 40;
    int bottom = 50;
    long minX = Long.MAX_VALUE;
    long maxX = Long.MIN_VALUE;
    long minY = Long.MAX_VALUE;
    long maxY = Long.MIN_VALUE;
    for (Sample s : samples) {
      minX = Math.min(minX, s.wallMillis());
      maxX = Math.max(maxX, s.wallMillis());
      for (long f : s.frontiers()) {
        if (f != Long.MIN_VALUE) {
          minY = Math.min(minY, f);
          maxY = Math.max(maxY, f);
        }
      }
    }
    if (minX >= maxX || minY >= maxY) {
      return;
    }
    double sx = (double) (w - left - right) / (maxX - minX);
    double sy = (double) (h - top - bottom) / (maxY - minY);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n",
            w, h));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        String.format("<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>%n", left, escape(title)));
    // Axes and grid: a horizontal line every 10 minutes of event time.
    long tenMin = 600_000;
    for (long y = Math.floorDiv(minY, tenMin) * tenMin + tenMin; y <= maxY; y += tenMin) {
      double py = h - bottom - (y - minY) * sy;
      svg.append(
          String.format(
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              left, py, w - right, py, left - 6, py + 4, HH_MM.format(Instant.ofEpochMilli(y))));
    }
    svg.append(
        String.format(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
            left, top, left, h - bottom, left, h - bottom, w - right, h - bottom));
    svg.append(
        String.format(
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">processing time (the demo's"
                + " simulated clock, %.0f min)</text>%n",
            (left + w - right) / 2, h - 15, (maxX - minX) / 60_000.0));
    svg.append(
        String.format(
            "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
                + "event time (UTC)</text>%n",
            (top + h - bottom) / 2, (top + h - bottom) / 2));
    int partitions = samples.get(0).frontiers().length;
    for (int p = 0; p < partitions; p++) {
      final int q = p;
      polyline(
          svg,
          minX,
          minY,
          sx,
          sy,
          h,
          bottom,
          left,
          s -> s.frontiers()[q],
          PARTITION_COLOURS[p % PARTITION_COLOURS.length],
          1.5,
          "");
    }
    polyline(svg, minX, minY, sx, sy, h, bottom, left, Sample::globalMax, "#d62728", 2, "6,4");
    polyline(svg, minX, minY, sx, sy, h, bottom, left, Sample::lowwater, "#111", 2.5, "");
    for (long[] m : lateMarks) {
      double px = left + (m[0] - minX) * sx;
      double py = h - bottom - (m[1] - minY) * sy;
      svg.append(
          String.format(
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"#d62728\" fill-opacity=\"0.5\"/>%n",
              px, py));
    }
    // Legend.
    int lx = w - right + 15;
    int ly = top + 10;
    for (int p = 0; p < partitions; p++) {
      legend(
          svg,
          lx,
          ly + p * 18,
          PARTITION_COLOURS[p % PARTITION_COLOURS.length],
          "",
          "frontier p" + p);
    }
    legend(svg, lx, ly + partitions * 18, "#111", "", "Lowwater watermark");
    legend(svg, lx, ly + (partitions + 1) * 18, "#d62728", "6,4", "global-max watermark");
    svg.append(
        String.format(
            "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#d62728\"/>"
                + "<text x=\"%d\" y=\"%d\">late (global max)</text>%n",
            lx + 12, ly + (partitions + 2) * 18 - 4, lx + 30, ly + (partitions + 2) * 18));
    svg.append("</svg>\n");
    Files.writeString(file, svg, StandardCharsets.UTF_8);
  }

  private void polyline(
      StringBuilder svg,
      long minX,
      long minY,
      double sx,
      double sy,
      int h,
      int bottom,
      int left,
      java.util.function.ToLongFunction<Sample> y,
      String colour,
      double width,
      String dash) {
    StringBuilder points = new StringBuilder();
    for (Sample s : samples) {
      long v = y.applyAsLong(s);
      if (v == Long.MIN_VALUE || v < minY) {
        continue;
      }
      points.append(
          String.format(
              "%.1f,%.1f ", left + (s.wallMillis() - minX) * sx, h - bottom - (v - minY) * sy));
    }
    svg.append(
        String.format(
            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-dasharray=\"%s\""
                + " points=\"%s\"/>%n",
            colour, width, dash, points));
  }

  private static void legend(
      StringBuilder svg, int x, int y, String colour, String dash, String label) {
    svg.append(
        String.format(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\""
                + " stroke-dasharray=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
            x, y - 4, x + 24, y - 4, colour, dash, x + 30, y, label));
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
