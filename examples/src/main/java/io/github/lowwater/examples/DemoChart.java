package io.github.lowwater.examples;

import de.erichseifert.vectorgraphics2d.Document;
import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
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
import java.util.function.ToLongFunction;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The broker demo's chart, drawn with XChart, in two panels stacked in one SVG file. Both plot
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
 * clock time) at which each was read, one dot per small cell of the plot. Nothing is interpolated
 * but the straight lines between samples.
 */
final class DemoChart {

  /** One distinct hue per partition, none of them the watermarks' black or red. */
  private static final Color[] PARTITION_COLOURS = {
    new Color(0x1f77b4),
    new Color(0xff7f0e),
    new Color(0x2ca02c),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0x17becf)
  };

  private static final Color LOWWATER = new Color(0x111111);
  private static final Color GLOBAL_MAX = new Color(0xd62728);
  private static final DateTimeFormatter HH_MM =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 420;

  /** Late events are drawn once per cell of this many cells across and down a panel. */
  private static final int LATE_CELLS = 350;

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

  /** Labels a moment of the demo (a vertical line in the panel of the current phase). */
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
    List<XYChart> panels = new ArrayList<>();
    panels.add(
        panel(
            catchUp,
            Sample::records,
            Mark::records,
            Late::records,
            title
                + "\n"
                + String.format(
                    Locale.ROOT,
                    "1. Catch-up after a restart: %,d backlog records in %,d polls, %.1f s of"
                        + " processing time; %,d late under the global max",
                    last(catchUp).records() - catchUp.samples.get(0).records(),
                    catchUp.samples.size() - 1,
                    (last(catchUp).wallMillis() - catchUp.samples.get(0).wallMillis()) / 1000.0,
                    catchUp.late.size()),
            "records consumed (sampled after every poll)",
            false));
    if (after.samples.size() > 1) {
      panels.add(
          panel(
              after,
              Sample::wallMillis,
              Mark::wallMillis,
              Late::wallMillis,
              String.format(
                  Locale.ROOT,
                  "2. Then live, then quiet: %.0f min of processing time, %,d late under the"
                      + " global max",
                  (last(after).wallMillis() - after.samples.get(0).wallMillis()) / 60_000.0,
                  after.late.size()),
              "processing time (the demo's simulated clock, UTC)",
              true));
    }
    // XChart draws one chart per file; the panels are painted one below the other on one canvas.
    VectorGraphics2D g = new VectorGraphics2D();
    for (XYChart panel : panels) {
      panel.paint(g, WIDTH, HEIGHT);
      g.translate(0, HEIGHT);
    }
    Document svg =
        new SVGProcessor()
            .getDocument(g.getCommands(), new PageSize(0, 0, WIDTH, HEIGHT * panels.size()));
    try (OutputStream out = Files.newOutputStream(file)) {
      svg.writeTo(out);
    }
  }

  private static XYChart panel(
      Phase phase,
      ToLongFunction<Sample> sampleX,
      ToLongFunction<Mark> markX,
      ToLongFunction<Late> lateX,
      String title,
      String xTitle,
      boolean timeAxis) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle(xTitle)
            .yAxisTitle("event time (UTC)")
            .build();
    chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
    chart.getStyler().setMarkerSize(4);
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(12f));
    chart.getStyler().setyAxisTickLabelsFormattingFunction(v -> HH_MM.format(instant(v)));
    chart
        .getStyler()
        .setxAxisTickLabelsFormattingFunction(
            v -> timeAxis ? HH_MM.format(instant(v)) : String.format(Locale.ROOT, "%,.0f", v));
    int partitions = phase.samples.get(0).frontiers().length;
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      line(
          chart,
          "partition " + p + " frontier",
          phase,
          sampleX,
          s -> s.frontiers()[partition],
          PARTITION_COLOURS[p % PARTITION_COLOURS.length],
          new BasicStroke(1.6f));
    }
    line(
        chart,
        "Lowwater watermark",
        phase,
        sampleX,
        Sample::lowwater,
        LOWWATER,
        new BasicStroke(3f));
    line(
        chart,
        "global-max watermark",
        phase,
        sampleX,
        Sample::globalMax,
        GLOBAL_MAX,
        new BasicStroke(
            2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 4f}, 0f));
    lateDots(chart, phase, lateX);
    for (Mark m : phase.marks) {
      double x = markX.applyAsLong(m);
      chart.addAnnotation(new AnnotationLine(x, true, false));
      chart.addAnnotation(new AnnotationText(m.label(), x, topOf(phase), false));
    }
    return chart;
  }

  /**
   * One line through the samples that have a value (a frontier or watermark before the first has
   * none).
   */
  private static void line(
      XYChart chart,
      String name,
      Phase phase,
      ToLongFunction<Sample> sampleX,
      ToLongFunction<Sample> y,
      Color colour,
      BasicStroke stroke) {
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    for (Sample s : phase.samples) {
      long v = y.applyAsLong(s);
      if (v != Long.MIN_VALUE) {
        xs.add((double) sampleX.applyAsLong(s));
        ys.add((double) v);
      }
    }
    if (xs.isEmpty()) {
      return;
    }
    XYSeries series = chart.addSeries(name, xs, ys);
    series.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
    series.setMarker(SeriesMarkers.NONE);
    series.setLineColor(colour);
    series.setLineStyle(stroke);
  }

  /** The late events, one dot per cell of a {@link #LATE_CELLS} grid, so the file stays small. */
  private static void lateDots(XYChart chart, Phase phase, ToLongFunction<Late> lateX) {
    if (phase.late.isEmpty()) {
      return;
    }
    double minX = Double.MAX_VALUE;
    double maxX = -Double.MAX_VALUE;
    for (Sample s : phase.samples) {
      minX = Math.min(minX, s.records());
      maxX = Math.max(maxX, s.records());
    }
    long minY = Long.MAX_VALUE;
    long maxY = Long.MIN_VALUE;
    for (Late l : phase.late) {
      minX = Math.min(minX, lateX.applyAsLong(l));
      maxX = Math.max(maxX, lateX.applyAsLong(l));
      minY = Math.min(minY, l.eventTimeMillis());
      maxY = Math.max(maxY, l.eventTimeMillis());
    }
    double cellX = Math.max(1, (maxX - minX) / LATE_CELLS);
    double cellY = Math.max(1, (maxY - minY) / (double) LATE_CELLS);
    Set<Long> drawn = new HashSet<>();
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    for (Late l : phase.late) {
      long cx = (long) ((lateX.applyAsLong(l) - minX) / cellX);
      long cy = (long) ((l.eventTimeMillis() - minY) / cellY);
      if (drawn.add(cx * (LATE_CELLS + 1) + cy)) {
        xs.add((double) lateX.applyAsLong(l));
        ys.add((double) l.eventTimeMillis());
      }
    }
    XYSeries series =
        chart.addSeries("late: read after the watermark had passed its window's end", xs, ys);
    series.setXYSeriesRenderStyle(XYSeriesRenderStyle.Scatter);
    series.setMarker(SeriesMarkers.CIRCLE);
    series.setMarkerColor(new Color(0xd6, 0x27, 0x28, 128));
  }

  private static double topOf(Phase phase) {
    long top = Long.MIN_VALUE;
    for (Sample s : phase.samples) {
      for (long f : s.frontiers()) {
        top = Math.max(top, f);
      }
    }
    return top;
  }

  private static Instant instant(double millis) {
    return Instant.ofEpochMilli((long) millis);
  }

  private static Sample last(Phase phase) {
    return phase.samples.get(phase.samples.size() - 1);
  }
}
