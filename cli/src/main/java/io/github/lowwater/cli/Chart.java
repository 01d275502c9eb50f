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
 * delay from window end to emission (x, seconds), one line per idle timeout through its latenesses.
 * Stateless.
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
        x.add(Math.max(r.delayP50Millis(), 0) / 1000.0);
        y.add(r.lateFraction());
      }
      XYSeries s = chart.addSeries("idle " + DurationText.format(e.getKey()), x, y);
      s.setMarker(SeriesMarkers.CIRCLE);
      for (int i = 0; i < x.size(); i++) {
        String label =
            "lateness "
                + DurationText.format(e.getValue().get(i).setting().allowedLatenessMillis());
        chart.addAnnotation(new AnnotationText(label, x.get(i), y.get(i), false));
      }
    }
    // XChart appends ".svg" unless the name ends with it already.
    VectorGraphicsEncoder.saveVectorGraphic(chart, file.toString(), VectorGraphicsFormat.SVG);
  }
}
