package io.github.lowwater.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/**
 * A small hand-written SVG chart of the broker demo, in two panels that share a legend. Both plot
 * event time (y) and draw one line per partition frontier, the two watermarks, and every event the
 * global-max watermark declared late as a red dot.
 *
 * <ul>
 *   <li>The catch-up, against the number of records consumed: it drains a 40-minute backlog in a
 *       few seconds of processing time, so on a time axis it would be a sliver.
 *   <li>The live minutes and the lull that follows, against the demo's simulated processing-time
 *       clock.
 * </ul>
 *
 * <p>Values are sampled after every poll; the late events are plotted at the record count (or the
 * clock time) at which each was read. Nothing is interpolated but the straight lines between
 * samples.
 */
final class SvgChart {

  /** One distinct hue per partition, none of them the watermarks' black or red. */
  private static final String[] PARTITION_COLOURS = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf"
  };

  private static final String LOWWATER = "#111111";
  private static final String GLOBAL_MAX = "#d62728";
  private static final DateTimeFormatter HH_MM =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final long MINUTE = 60_000;
  private static final long[] TIME_STEPS = {
    MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, 60 * MINUTE
  };
  private static final long[] COUNT_STEPS = {
    100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000
  };

  private static final int WIDTH = 1000;
  private static final int LEFT = 70;
  private static final int PLOT_WIDTH = 700;
  private static final int LATE_CELL = 2; // late events are drawn once per 2x2-pixel cell
  private static final int LATE_DOT = 6;

  /** One sample, taken after a poll (or before the first): records so far, clock, event times. */
  private record Sample(
      long records, long wallMillis, long[] frontiers, long lowwater, long globalMax) {}

  /** A moment worth a label, such as partitions going quiet. */
  private record Mark(long records, long wallMillis, String label) {}

  /** An event the global-max watermark declared late, where and when it was read. */
  private record Late(long records, long wallMillis, long eventTimeMillis) {}

  /** What one panel plots. */
  private static final class Phase {
    final List<Sample> samples = new ArrayList<>();
    final List<Mark> marks = new ArrayList<>();
    final List<Late> late = new ArrayList<>();
  }

  private final Phase catchUp = new Phase();
  private final Phase after = new Phase();
  private Phase current = catchUp;

  /**
   * Records the state after a poll (or before the first one).
   *
   * @param records records consumed since the start of the demo
   * @param wallMillis the demo's simulated processing time
   * @param frontiers the newest event time read per partition, {@code Long.MIN_VALUE} if none yet
   * @param lowwater the Lowwater watermark, {@code Long.MIN_VALUE} if none yet
   * @param globalMax the global-max watermark, {@code Long.MIN_VALUE} if none yet
   */
  void sample(long records, long wallMillis, long[] frontiers, long lowwater, long globalMax) {
    current.samples.add(new Sample(records, wallMillis, frontiers.clone(), lowwater, globalMax));
  }

  /** Records an event the global-max watermark declared late: the {@code records}-th one read. */
  void late(long records, long wallMillis, long eventTimeMillis) {
    current.late.add(new Late(records, wallMillis, eventTimeMillis));
  }

  /** Labels a moment of the demo (a vertical dashed line in the panel of the current phase). */
  void mark(long records, long wallMillis, String label) {
    current.marks.add(new Mark(records, wallMillis, label));
  }

  /**
   * Ends the catch-up: what follows goes to the second panel, plotted against processing time. The
   * second panel starts from the last sample of the catch-up.
   */
  void endCatchUp() {
    current = after;
    if (!catchUp.samples.isEmpty()) {
      after.samples.add(catchUp.samples.get(catchUp.samples.size() - 1));
    }
  }

  /** Writes the chart; does nothing if no sample was recorded. */
  void write(Path file, String title) throws IOException {
    if (catchUp.samples.isEmpty()) {
      return;
    }
    int partitions = catchUp.samples.get(0).frontiers().length;
    int top1 = 70;
    int height1 = 380;
    int top2 = top1 + height1 + 110;
    int height2 = 260;
    int h = after.samples.size() > 1 ? top2 + height2 + 55 : top1 + height1 + 55;
    StringBuilder svg = new StringBuilder();
    svg.append(
        fmt(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH, h, WIDTH, h));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        fmt(
            "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
            LEFT - 50, escape(title)));

    long catchUpRecords = last(catchUp).records() - first(catchUp).records();
    List<String> first =
        panel(
            svg,
            catchUp,
            top1,
            height1,
            Sample::records,
            Mark::records,
            Late::records,
            0,
            COUNT_STEPS,
            v -> fmt("%,d", v),
            fmt(
                "1. Catch-up after a restart: %,d backlog records in %,d polls, %.1f s of processing"
                    + " time; %,d late under the global max",
                catchUpRecords,
                catchUp.samples.size() - 1,
                (last(catchUp).wallMillis() - first(catchUp).wallMillis()) / 1000.0,
                catchUp.late.size()),
            "records consumed (sampled after every poll)");
    if (after.samples.size() > 1) {
      panel(
          svg,
          after,
          top2,
          height2,
          Sample::wallMillis,
          Mark::wallMillis,
          Late::wallMillis,
          first(after).wallMillis(),
          TIME_STEPS,
          v -> HH_MM.format(Instant.ofEpochMilli(v)),
          fmt(
              "2. Then live, then quiet: %.0f min of processing time, %,d late under the global"
                  + " max",
              (last(after).wallMillis() - first(after).wallMillis()) / (double) MINUTE,
              after.late.size()),
          "processing time (the demo's simulated clock, UTC)");
    }
    legend(svg, partitions, top1, first);
    svg.append("</svg>\n");
    Files.writeString(file, svg, StandardCharsets.UTF_8);
  }

  /** Draws one panel; returns the legend text for its first-watermark circle, if any. */
  private static List<String> panel(
      StringBuilder svg,
      Phase phase,
      int top,
      int height,
      ToLongFunction<Sample> xOf,
      ToLongFunction<Mark> markX,
      ToLongFunction<Late> lateX,
      long minX,
      long[] xSteps,
      LongFunction<String> xLabel,
      String heading,
      String xTitle) {
    long maxX = Long.MIN_VALUE;
    long minY = Long.MAX_VALUE;
    long maxY = Long.MIN_VALUE;
    for (Sample s : phase.samples) {
      maxX = Math.max(maxX, xOf.applyAsLong(s));
      for (long v : s.frontiers()) {
        if (v != Long.MIN_VALUE) {
          minY = Math.min(minY, v);
          maxY = Math.max(maxY, v);
        }
      }
      for (long v : new long[] {s.lowwater(), s.globalMax()}) {
        if (v != Long.MIN_VALUE) {
          minY = Math.min(minY, v);
          maxY = Math.max(maxY, v);
        }
      }
    }
    for (Late l : phase.late) {
      minY = Math.min(minY, l.eventTimeMillis());
      maxY = Math.max(maxY, l.eventTimeMillis());
    }
    if (maxX <= minX || maxY <= minY) {
      return List.of();
    }
    long yStep = step(maxY - minY, TIME_STEPS, 8);
    minY = Math.floorDiv(minY, yStep) * yStep;
    maxY = Math.floorDiv(maxY + yStep - 1, yStep) * yStep;
    Scale scale = new Scale(LEFT, top, PLOT_WIDTH, height, minX, maxX, minY, maxY);

    svg.append(
        fmt(
            "<text x=\"%d\" y=\"%d\" font-size=\"13.5\">%s</text>%n",
            LEFT, top - 12, escape(heading)));
    // Grid and y labels: event time.
    for (long y = minY; y <= maxY; y += yStep) {
      double py = scale.y(y);
      svg.append(
          fmt(
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              py,
              LEFT + PLOT_WIDTH,
              py,
              LEFT - 6,
              py + 4,
              HH_MM.format(Instant.ofEpochMilli(y))));
    }
    // x ticks.
    long xStep = step(maxX - minX, xSteps, 10);
    for (long x = Math.floorDiv(minX + xStep - 1, xStep) * xStep; x <= maxX; x += xStep) {
      double px = scale.x(x);
      svg.append(
          fmt(
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              px, top + height, px, top + height + 5, px, top + height + 18, xLabel.apply(x)));
    }
    svg.append(
        fmt(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
            LEFT, top, LEFT, top + height, LEFT, top + height, LEFT + PLOT_WIDTH, top + height));
    svg.append(
        fmt(
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
            LEFT + PLOT_WIDTH / 2, top + height + 36, escape(xTitle)));
    int mid = top + height / 2;
    svg.append(
        fmt(
            "<text x=\"18\" y=\"%d\" transform=\"rotate(-90 18 %d)\" text-anchor=\"middle\">"
                + "event time (UTC)</text>%n",
            mid, mid));
    // Marks: what the demo did, where.
    for (Mark m : phase.marks) {
      double px = scale.x(markX.applyAsLong(m));
      svg.append(
          fmt(
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\""
                  + " stroke-dasharray=\"3,3\"/><text x=\"%.1f\" y=\"%d\" font-size=\"11\""
                  + " fill=\"#555\">%s</text>%n",
              px, top, px, top + height, px + 4, top + 12, escape(m.label())));
    }
    // Late events under everything else: one dot per occupied cell, so that every late event is
    // shown without writing tens of thousands of circles.
    Set<Long> cells = new HashSet<>();
    StringBuilder dots = new StringBuilder();
    for (Late l : phase.late) {
      long cx = Math.round(scale.x(lateX.applyAsLong(l)) / LATE_CELL);
      long cy = Math.round(scale.y(l.eventTimeMillis()) / LATE_CELL);
      if (cells.add(cx << 32 | cy)) {
        dots.append(fmt("M%d %dh%d", cx * LATE_CELL, cy * LATE_CELL, LATE_CELL));
      }
    }
    if (dots.length() > 0) {
      svg.append(
          fmt(
              "<path d=\"%s\" stroke=\"%s\" stroke-width=\"%d\" stroke-linecap=\"round\""
                  + " stroke-opacity=\"0.5\"/>%n",
              dots, GLOBAL_MAX, LATE_DOT));
    }
    int partitions = phase.samples.get(0).frontiers().length;
    for (int p = 0; p < partitions; p++) {
      final int q = p;
      polyline(svg, phase, scale, xOf, s -> s.frontiers()[q], colour(p), 1.6, "");
    }
    polyline(svg, phase, scale, xOf, Sample::lowwater, LOWWATER, 3, "");
    polyline(svg, phase, scale, xOf, Sample::globalMax, GLOBAL_MAX, 2, "7,4");
    return firstLowwater(svg, phase, scale, xOf);
  }

  /**
   * Circles the first Lowwater watermark of a panel that starts without one. Returns the legend
   * text for the circle (empty if none was drawn); it says why only when the samples show it: the
   * first sample in which every partition has been read.
   */
  private static List<String> firstLowwater(
      StringBuilder svg, Phase phase, Scale scale, ToLongFunction<Sample> xOf) {
    List<Sample> samples = phase.samples;
    if (samples.get(0).lowwater() != Long.MIN_VALUE) {
      return List.of();
    }
    for (int i = 0; i < samples.size(); i++) {
      Sample s = samples.get(i);
      if (s.lowwater() == Long.MIN_VALUE) {
        continue;
      }
      svg.append(
          fmt(
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"white\" stroke=\"%s\""
                  + " stroke-width=\"2\"/>%n",
              scale.x(xOf.applyAsLong(s)), scale.y(s.lowwater()), LOWWATER));
      return allRead(s) && !allRead(samples.get(i - 1))
          ? List.of("first Lowwater watermark:", "every partition now read")
          : List.of("first Lowwater watermark");
    }
    return List.of();
  }

  private static boolean allRead(Sample s) {
    for (long f : s.frontiers()) {
      if (f == Long.MIN_VALUE) {
        return false;
      }
    }
    return true;
  }

  private static void legend(StringBuilder svg, int partitions, int top, List<String> first) {
    int x = LEFT + PLOT_WIDTH + 30;
    int y = top + 4;
    svg.append(fmt("<text x=\"%d\" y=\"%d\" font-weight=\"bold\">event time</text>%n", x, y));
    y += 22;
    for (int p = 0; p < partitions; p++) {
      legendLine(svg, x, y, colour(p), 1.6, "", "partition " + p + " frontier");
      y += 18;
    }
    y += 6;
    legendLine(svg, x, y, LOWWATER, 3, "", "Lowwater watermark");
    y += 18;
    legendLine(svg, x, y, GLOBAL_MAX, 2, "7,4", "global-max watermark");
    y += 18;
    svg.append(
        fmt(
            "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"6\" rx=\"3\" fill=\"%s\""
                + " fill-opacity=\"0.5\"/>"
                + "<text x=\"%d\" y=\"%d\">late event (global max)</text>%n",
            x, y - 7, GLOBAL_MAX, x + 30, y));
    y += 18;
    if (!first.isEmpty()) {
      svg.append(
          fmt(
              "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"white\" stroke=\"%s\""
                  + " stroke-width=\"2\"/>%n",
              x + 12, y - 4, LOWWATER));
      for (String line : first) {
        svg.append(fmt("<text x=\"%d\" y=\"%d\">%s</text>%n", x + 30, y, escape(line)));
        y += 15;
      }
      y += 3;
    }
    y += 8;
    String[] notes = {
      "frontier: the newest event",
      "time read on the partition.",
      "late: read after the watermark",
      "had passed the end of its",
      "window, so it is dropped."
    };
    for (String note : notes) {
      svg.append(
          fmt("<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s</text>%n", x, y, note));
      y += 14;
    }
  }

  private static void legendLine(
      StringBuilder svg, int x, int y, String colour, double width, String dash, String label) {
    svg.append(
        fmt(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%.1f\""
                + " stroke-dasharray=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
            x, y - 4, x + 24, y - 4, colour, width, dash, x + 30, y, escape(label)));
  }

  private static void polyline(
      StringBuilder svg,
      Phase phase,
      Scale scale,
      ToLongFunction<Sample> xOf,
      ToLongFunction<Sample> yOf,
      String colour,
      double width,
      String dash) {
    StringBuilder points = new StringBuilder();
    for (Sample s : phase.samples) {
      long v = yOf.applyAsLong(s);
      if (v == Long.MIN_VALUE) {
        continue;
      }
      points.append(fmt("%.1f,%.1f ", scale.x(xOf.applyAsLong(s)), scale.y(v)));
    }
    svg.append(
        fmt(
            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-dasharray=\"%s\""
                + " stroke-linejoin=\"round\" points=\"%s\"/>%n",
            colour, width, dash, points));
  }

  /** Maps data to pixels, y growing upwards. */
  private record Scale(
      int left, int top, int width, int height, long minX, long maxX, long minY, long maxY) {
    double x(long v) {
      return left + (double) (v - minX) * width / (maxX - minX);
    }

    double y(long v) {
      return top + height - (double) (v - minY) * height / (maxY - minY);
    }
  }

  /** The smallest step from {@code steps} that cuts {@code range} into at most {@code max}. */
  private static long step(long range, long[] steps, int max) {
    for (long s : steps) {
      if (range / s <= max) {
        return s;
      }
    }
    return steps[steps.length - 1];
  }

  private static String colour(int partition) {
    return PARTITION_COLOURS[partition % PARTITION_COLOURS.length];
  }

  private static Sample first(Phase phase) {
    return phase.samples.get(0);
  }

  private static Sample last(Phase phase) {
    return phase.samples.get(phase.samples.size() - 1);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
