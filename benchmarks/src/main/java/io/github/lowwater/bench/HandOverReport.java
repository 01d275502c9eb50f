package io.github.lowwater.bench;

import io.github.lowwater.bench.HandOver.Engine;
import io.github.lowwater.bench.HandOver.Kind;
import io.github.lowwater.bench.HandOver.Options;
import io.github.lowwater.bench.HandOver.Prepared;
import io.github.lowwater.bench.HandOver.Takeover;
import io.github.lowwater.bench.HandOver.Variant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The output of {@link HandOver}, Markdown on standard output: a row per hand-over, then per span
 * and variant the medians over the measured rounds, the ratios of the medians of Lowwater over
 * Kafka Streams for the same windows, and how each variant grows with the span. Stateless.
 */
final class HandOverReport {

  private HandOverReport() {}

  static void header() {
    System.out.println(
        "| round | hand-over | records re-read or restored | assigned s | state back s | first row"
            + " s | first on-time row s | last row s | rows before the first on-time row | check |");
    System.out.println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  }

  static void row(Takeover t) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %s | %,d | %.3f | %.3f | %.3f | %.3f | %.3f | %,d | %s |%n",
        t.round() > 0 ? Integer.toString(t.round()) : "warm-up",
        t.span().group(t.variant()),
        t.distance(),
        t.assignedNanos() / 1e9,
        t.stateBackNanos() / 1e9,
        t.firstRowNanos() / 1e9,
        t.firstOnTimeNanos() / 1e9,
        t.lastRowNanos() / 1e9,
        t.rowsBefore(),
        t.check());
  }

  static void summarize(List<Takeover> takeovers, Map<String, Prepared> prepared, Options o) {
    Map<String, List<Takeover>> byGroup = new LinkedHashMap<>();
    for (Takeover t : takeovers) {
      byGroup.computeIfAbsent(t.span().group(t.variant()), g -> new ArrayList<>()).add(t);
    }
    System.out.println();
    System.out.println(
        "| span | variant | resume distance or changelog records | records re-read or restored |"
            + " assigned s | state back s |"
            + " first row s | first on-time row s | last row s | records/s getting the state"
            + " back | checks |");
    System.out.println(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    Map<String, Double> firstOnTime = new LinkedHashMap<>();
    for (Map.Entry<String, List<Takeover>> e : byGroup.entrySet()) {
      List<Takeover> ts = e.getValue();
      Takeover any = ts.get(0);
      double onTime = median(ts, Takeover::firstOnTimeNanos);
      double stateBack = median(ts, Takeover::stateBackNanos);
      firstOnTime.put(e.getKey(), onTime);
      Map<String, Integer> checks = new TreeMap<>();
      ts.forEach(t -> checks.merge(t.check(), 1, Integer::sum));
      System.out.printf(
          Locale.ROOT,
          "| %d min | %s | %,d | %,.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %,.0f | %s |%n",
          any.span().minutes(),
          any.variant().name(),
          prepared.get(e.getKey()).distance(),
          median(ts, Takeover::distance),
          median(ts, Takeover::assignedNanos) / 1e9,
          stateBack / 1e9,
          median(ts, Takeover::firstRowNanos) / 1e9,
          onTime / 1e9,
          median(ts, Takeover::lastRowNanos) / 1e9,
          median(ts, Takeover::distance) * 1e9 / stateBack,
          checks.entrySet().stream()
              .map(c -> c.getValue() + " x " + c.getKey())
              .collect(Collectors.joining(", ")));
    }
    System.out.println();
    System.out.println(
        "Ratios of the medians of the first on-time row, Lowwater / Kafka Streams (above 1:"
            + " Lowwater slower):");
    for (int minutes : o.spans()) {
      List<String> ratios = new ArrayList<>();
      for (Kind kind : Kind.values()) {
        for (Engine engine : List.of(Engine.LOWWATER, Engine.LOWWATER_PANES)) {
          String a = new Variant(kind, engine).name() + "-" + minutes + "m";
          String b = new Variant(kind, Engine.STREAMS).name() + "-" + minutes + "m";
          if (firstOnTime.containsKey(a) && firstOnTime.containsKey(b)) {
            ratios.add(
                String.format(
                    Locale.ROOT, "%s / %s = %.3f", a, b, firstOnTime.get(a) / firstOnTime.get(b)));
          }
        }
      }
      System.out.println("- " + minutes + " min: " + String.join(", ", ratios));
    }
    int shortest = o.spans().stream().mapToInt(Integer::intValue).min().orElseThrow();
    System.out.println();
    System.out.println(
        "Growth with the span, first on-time row over the " + shortest + "-minute span's:");
    for (Variant v : o.variants()) {
      String base = v.name() + "-" + shortest + "m";
      List<String> growth = new ArrayList<>();
      for (int minutes : o.spans()) {
        String g = v.name() + "-" + minutes + "m";
        if (minutes != shortest && firstOnTime.containsKey(g) && firstOnTime.containsKey(base)) {
          growth.add(
              String.format(
                  Locale.ROOT,
                  "%d min %.2fx",
                  minutes,
                  firstOnTime.get(g) / firstOnTime.get(base)));
        }
      }
      System.out.println("- " + v.name() + ": " + String.join(", ", growth));
    }
  }

  static void failOnMismatch(List<Takeover> takeovers) {
    List<Takeover> bad = takeovers.stream().filter(t -> !t.check().equals("ok")).toList();
    if (!bad.isEmpty()) {
      throw new IllegalStateException("hand-overs whose rows or state did not check: " + bad);
    }
  }

  static double median(List<Takeover> ts, ToLongFunction<Takeover> f) {
    return EndToEnd.median(ts.stream().mapToDouble(t -> (double) f.applyAsLong(t)).toArray());
  }
}
