package io.github.lowwater.cli;

import io.github.lowwater.tuning.DurationText;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the trade of the replayed settings with XChart: the late fraction (y) against the median
 * delay from window end to emission (x, seconds), one line per idle timeout through its latenesses,
 * each point labelled with its lateness. A setting under which no window closed before the end of
 * the input has no delay and is left out. Stateless.
 */
final class Chart {

  private Chart() {}

  static void write(List<SettingResult> results, Path file, String title) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(500)
            .title(title)
            .xAxisTitle("result delay after the window end, p50 (s)")
            .yAxisTitle("late fraction")
            .build();
    chart.getStyler().setLegendVisible(true);
    chart.getStyler().setToolTipsEnabled(false);
    Map<Long, List<SettingResult>> byIdle = new LinkedHashMap<>();
    for (SettingResult r : results) {
      byIdle.computeIfAbsent(r.setting().idleTimeoutMillis(), k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<Long, List<SettingResult>> e : byIdle.entrySet()) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (SettingResult r : e.getValue()) {
        if (r.delayP50Millis() < 0) {
          continue; // no window closed before the end of the input: no delay to plot
        }
        x.add(r.delayP50Millis() / 1000.0);
        y.add(r.lateFraction());
        String label = "lateness " + DurationText.format(r.setting().allowedLatenessMillis());
        chart.addAnnotation(
            new AnnotationText(label, x.get(x.size() - 1), r.lateFraction(), false));
      }
      if (!x.isEmpty()) {
        XYSeries s = chart.addSeries("idle " + DurationText.format(e.getKey()), x, y);
        s.setMarker(SeriesMarkers.CIRCLE);
      }
    }
    // XChart appends ".svg" unless the name ends with it already.
    VectorGraphicsEncoder.saveVectorGraphic(chart, file.toString(), VectorGraphicsFormat.SVG);
  }
}
