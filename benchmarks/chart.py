#!/usr/bin/env python3
"""Turns a JMH JSON result of the Lowwater benchmarks into the chart and the tables of docs/benchmarks.md.

Python 3 standard library only. From the repository root:

    python3 benchmarks/chart.py benchmarks/results/full.json \
        --svg docs/benchmarks-sources.svg --update docs/benchmarks.md

It writes the SVG (cost per event against the number of sources, log-log, one line per contender),
prints the Markdown (every benchmark with its error and gc.alloc.rate.norm, then the target ratios
with met / not met), and with --update replaces the part of the Markdown file between
the markers <!-- BEGIN chart.py --> and <!-- END chart.py --> with it. Nothing is typed in by hand:
every figure comes from the JSON.

Ratios are computed from the medians of the measurement iterations (robust to one noisy
iteration); the means with JMH's 99.9% error are in the table.
"""

import argparse
import json
import math
import statistics
import sys

PREFIX = "io.github.lowwater.bench."

# Display order, label, colour, dash pattern of each contender on the chart.
WATERMARK_CONTENDERS = [
    ("WatermarkBenchmark.lowwaterHandle", "Lowwater observe(handle), clock per poll", "#00441b", None),
    ("WatermarkBenchmark.lowwaterCachedClock", "Lowwater observe, clock per poll", "#1b7837", None),
    ("WatermarkBenchmark.lowwaterSystemClock", "Lowwater observe, clock per event", "#5aae61", None),
    ("WatermarkBenchmark.straightforwardScan", "straightforward O(sources) scan", "#762a83", None),
    ("WatermarkBenchmark.flinkImmediate", "Flink multiplexer, immediate outputs", "#d73027", None),
    ("WatermarkBenchmark.flinkPeriodic", "Flink periodic (200 ms stale)", "#fc8d59", None),
    ("WatermarkBenchmark.keyLookupOnly", "diagnostic: source-key HashMap.get alone", "#bdbdbd", "1,3"),
]
WINDOW_CONTENDERS = [
    ("WindowsBenchmark.windowsAdd", "1000", "Lowwater windows add, 1,000 keys", "#2166ac", "6,3"),
    ("WindowsBenchmark.windowsAdd", "100000", "Lowwater windows add, 100,000 keys", "#053061", "6,3"),
    ("WindowsBenchmark.windowsAddHandle", "1000", "Lowwater windows add(handle), 1,000 keys", "#4393c3", "2,2"),
    ("WindowsBenchmark.windowsAddHandle", "100000", "Lowwater windows add(handle), 100,000 keys", "#2d004b", "2,2"),
]
# The windows matrix (WindowsMatrixBenchmark): (method, label, is a Lowwater contender). A new
# contender of the class (for example an allocation-free drain) is one more line here; every
# Lowwater contender gets its rows in the matrix ratio table.
MATRIX = "WindowsMatrixBenchmark."
WINDOWS_MATRIX = [
    ("windowsAdd", "`TumblingWindows.add`, `pollFinalized()` per poll", True),
    ("windowsAddDrain", "`TumblingWindows.add`, `drainFinalized(visitor)` per poll", True),
    ("byHandMap", "by hand: `TreeMap` of `HashMap<String, long[]>` per window, min over partitions", False),
    ("byHandGlobalMax", "by hand, drained when the global max - lateness passes the end", False),
    ("keyedSumFloor", "floor: one `HashMap<String, long[]>` sum, no windows", False),
]
MATRIX_CELLS = [("sparse", 1000), ("sparse", 100000), ("dense", 1000), ("dense", 100000)]
MATRIX_FLOOR = MATRIX + "keyedSumFloor"
MATRIX_BY_HAND = MATRIX + "byHandMap"
ALIGNER = "AlignerBenchmark.alignerPushRelease"
NAIVE = "AlignerBenchmark.naiveSortedList"
FLOOR = "WindowsBenchmark.keyedSumFloor"


class Result:
    def __init__(self, entry):
        self.name = entry["benchmark"][len(PREFIX):] if entry["benchmark"].startswith(PREFIX) else entry["benchmark"]
        self.params = entry.get("params", {})
        pm = entry["primaryMetric"]
        self.mean = pm["score"]
        self.error = pm["scoreError"]
        self.unit = pm["scoreUnit"]
        raw = [x for fork in pm.get("rawData", []) for x in fork]
        self.iterations = len(raw)
        self.median = statistics.median(raw) if raw else pm["score"]
        self.alloc = None
        sec = entry.get("secondaryMetrics", {})
        for key in ("gc.alloc.rate.norm", "\u00b7gc.alloc.rate.norm"):
            if key in sec:
                self.alloc = sec[key]["score"]
                self.alloc_error = sec[key]["scoreError"]
        self.sources = int(self.params["sources"]) if "sources" in self.params else None
        self.keys = int(self.params["keys"]) if "keys" in self.params else None
        self.density = self.params.get("density")


def load(paths):
    """Loads and concatenates one or more JMH JSON files."""
    if isinstance(paths, str):
        paths = [paths]
    data = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data.extend(json.load(f))
    return [Result(e) for e in data], data


def find(results, name, sources=None, keys=None, density=None):
    for r in results:
        if r.name == name and r.sources == sources and r.keys == keys and r.density == density:
            return r
    return None


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, str):
        return x
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.1f}"
    if abs(x) >= 10:
        return f"{x:.2f}"
    return f"{x:.{digits}f}"


def fmt_alloc(x):
    if x is None:
        return "n/a"
    if x < 0.01:
        return "< 0.01"
    return fmt(x)


def results_table(results):
    lines = [
        "| Benchmark | density | keys | sources | mean ns/op | ± error (99.9%) | median ns/op "
        "| gc.alloc.rate.norm B/op |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def order(r):
        names = [c[0] for c in WATERMARK_CONTENDERS] + [
            "WindowsBenchmark.windowsAdd", "WindowsBenchmark.windowsAddHandle", FLOOR] + [
            MATRIX + m for m, _, _ in WINDOWS_MATRIX] + [ALIGNER, NAIVE]
        i = names.index(r.name) if r.name in names else len(names)
        return (i, r.density != "sparse", r.keys or 0, r.sources or 0)

    for r in sorted(results, key=order):
        err = r.error if isinstance(r.error, (int, float)) else float("nan")
        lines.append(
            f"| `{r.name}` | {r.density or ''} | {r.keys if r.keys is not None else ''} | "
            f"{r.sources if r.sources is not None else ''} | {fmt(r.mean)} | {fmt(err)} | "
            f"{fmt(r.median)} | {fmt_alloc(r.alloc)} |"
        )
    return "\n".join(lines)


def ratio_rows(results):
    """Yields (target, measured expression, ratio, bound, met) for each watermark and keyed-add target."""
    rows = []

    def med(name, sources=None, keys=None):
        r = find(results, name, sources, keys)
        return r.median if r else None

    lw = {
        "handle, clock per poll": "WatermarkBenchmark.lowwaterHandle",
        "clock per poll": "WatermarkBenchmark.lowwaterCachedClock",
        "clock per event": "WatermarkBenchmark.lowwaterSystemClock",
    }
    # 1. At 1,024 sources at least 20x faster than Flink's immediate combiner.
    for label, name in lw.items():
        a, b = med("WatermarkBenchmark.flinkImmediate", 1024), med(name, 1024)
        if a and b:
            rows.append(("1,024 sources: Flink immediate / Lowwater (" + label + ")",
                         f"{fmt(a)} / {fmt(b)}", a / b, ">= 20", a / b >= 20))
    # 2. At 16,384 sources, with the clock per poll, at most 1.5x Flink's periodic path (stretch 1.2x).
    for label, name in lw.items():
        a, b = med(name, 16384), med("WatermarkBenchmark.flinkPeriodic", 16384)
        if a and b:
            per_poll = "per poll" in label
            rows.append((("" if per_poll else "(for reference) ")
                         + "16,384 sources: Lowwater (" + label + ") / Flink periodic",
                         f"{fmt(a)} / {fmt(b)}", a / b, "<= 1.5 (stretch 1.2)" if per_poll else "—",
                         a / b <= 1.5 if per_poll else None))
    # 3. Flat: 16,384 sources at most 2x 6 sources.
    for label, name in lw.items():
        a, b = med(name, 16384), med(name, 6)
        if a and b:
            rows.append(("flat: Lowwater (" + label + ") 16,384 / 6 sources",
                         f"{fmt(a)} / {fmt(b)}", a / b, "<= 2", a / b <= 2))
    # 4. System clock per event: at most 1.2x the straightforward scan at 6 sources.
    a, b = med("WatermarkBenchmark.lowwaterSystemClock", 6), med("WatermarkBenchmark.straightforwardScan", 6)
    if a and b:
        rows.append(("6 sources: Lowwater (clock per event) / straightforward scan",
                     f"{fmt(a)} / {fmt(b)}", a / b, "<= 1.2", a / b <= 1.2))
    # 5. add at 100,000 keys at most 2x the bare keyed sum (stretch 1.5x).
    adds = (("add", "WindowsBenchmark.windowsAdd"), ("add(handle)", "WindowsBenchmark.windowsAddHandle"))
    floor = med(FLOOR, None, 100000)
    for label, name in adds:
        for s in (6, 1024, 16384):
            a = med(name, s, 100000)
            if a and floor:
                rows.append((f"{label}, 100,000 keys, {s:,} sources / keyed-sum floor",
                             f"{fmt(a)} / {fmt(floor)}", a / floor, "<= 2 (stretch 1.5)", a / floor <= 2))
    floor1k = med(FLOOR, None, 1000)
    for label, name in adds:
        for s in (6, 1024, 16384):
            a = med(name, s, 1000)
            if a and floor1k:
                rows.append((f"(for reference) {label}, 1,000 keys, {s:,} sources / keyed-sum floor",
                             f"{fmt(a)} / {fmt(floor1k)}", a / floor1k, "—", None))
    return rows


def alloc_rows(results):
    rows = []
    for r in results:
        if r.name in ("WatermarkBenchmark.lowwaterHandle", "WatermarkBenchmark.lowwaterCachedClock",
                      "WatermarkBenchmark.lowwaterSystemClock", "WindowsBenchmark.windowsAdd",
                      "WindowsBenchmark.windowsAddHandle") and r.alloc is not None:
            label = f"`{r.name}`" + (f" keys={r.keys}" if r.keys else "") + f" sources={r.sources}"
            rows.append(((r.name, r.keys or 0, r.sources), label, r.alloc, r.alloc < 1.0))
    rows.sort()
    return [row[1:] for row in rows]


def ratio_lines(rows):
    """The Markdown rows of (target, medians, ratio, bound, met) tuples, with the verdict."""
    lines = []
    for target, expr, ratio, bound, met in rows:
        verdict = "—" if met is None else ("**met**" if met else "**not met**")
        if met and "stretch" in bound:
            stretch = float(bound.split("stretch ")[1].rstrip(")"))
            verdict += f" (stretch {stretch}x: " + ("met" if ratio <= stretch else "not met") + ")"
        lines.append(f"| {target} | {expr} | {ratio:.2f}x | {bound} | {verdict} |")
    return lines


def ratios_markdown(results):
    lines = [
        "| Target | medians, ns/op | ratio | bound | verdict |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    lines.extend(ratio_lines(ratio_rows(results)))
    lines.append("")
    lines.append("| Zero allocation in steady state (`gc.alloc.rate.norm` < 1 B/op) | B/op | verdict |")
    lines.append("| --- | ---: | --- |")
    for label, alloc, ok in alloc_rows(results):
        lines.append(f"| {label} | {fmt_alloc(alloc)} | {'**met**' if ok else '**not met**'} |")
    return "\n".join(lines)


def aligner_markdown(results):
    """The ordered-release table: naive sorted list / EventAligner, per source count."""
    lines = [
        "| sources | `alignerPushRelease` median ns/op | B/op | `naiveSortedList` median ns/op | B/op "
        "| naive / aligner |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    found = False
    for s in (6, 1024, 16384):
        a, n = find(results, ALIGNER, s), find(results, NAIVE, s)
        if not a or not n:
            continue
        found = True
        lines.append(f"| {s:,} | {fmt(a.median)} | {fmt_alloc(a.alloc)} | {fmt(n.median)} | "
                     f"{fmt_alloc(n.alloc)} | {n.median / a.median:.2f}x |")
    return "\n".join(lines) if found else None


def matrix_markdown(results):
    """The windows matrix: median ns/op and B/op of each contender in each (density, keys) cell."""
    if not any(r.name.startswith(MATRIX) for r in results):
        return None
    head = "| Contender | " + " | ".join(f"{d}, {k:,} keys" for d, k in MATRIX_CELLS) + " |"
    lines = [head, "| --- |" + " ---: |" * len(MATRIX_CELLS)]
    for method, label, _ in WINDOWS_MATRIX:
        cells = []
        for d, k in MATRIX_CELLS:
            r = find(results, MATRIX + method, None, k, d)
            cells.append(f"{fmt(r.median)} ns, {fmt_alloc(r.alloc)} B" if r else "n/a")
        lines.append(f"| `{method}`: {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Each cell: median ns per event, `gc.alloc.rate.norm` bytes per event.")
    return "\n".join(lines)


def matrix_ratio_rows(results):
    """(target, medians, ratio, bound, met) of every Lowwater contender of the matrix."""
    rows = []

    def med(method, density, keys):
        r = find(results, MATRIX + method, None, keys, density)
        return r.median if r else None

    for method, _, lowwater in WINDOWS_MATRIX:
        if not lowwater:
            continue
        for d, k in MATRIX_CELLS:
            a = med(method, d, k)
            target = k == 100000
            for base, what, bound, ok in (
                ("keyedSumFloor", "keyed-sum floor", "<= 2 (stretch 1.5)", lambda x: x <= 2),
                ("byHandMap", "by-hand per-window map", "<= 0.5", lambda x: x <= 0.5),
            ):
                b = med(base, d, k)
                if a and b:
                    rows.append((f"{'' if target else '(for reference) '}`{method}`, {d}, {k:,} keys / {what}",
                                 f"{fmt(a)} / {fmt(b)}", a / b, bound if target else "—",
                                 ok(a / b) if target else None))
            b = med("byHandGlobalMax", d, k)
            if a and b:
                rows.append((f"(for reference) `{method}`, {d}, {k:,} keys / by hand, global max",
                             f"{fmt(a)} / {fmt(b)}", a / b, "—", None))
    return rows


def matrix_ratios_markdown(results):
    rows = matrix_ratio_rows(results)
    if not rows:
        return None
    lines = [
        "| Target | medians, ns/op | ratio | bound | verdict |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    lines.extend(ratio_lines(rows))
    lines.append("")
    lines.append("| Zero allocation in steady state (`gc.alloc.rate.norm` < 1 B/op) | B/op | verdict |")
    lines.append("| --- | ---: | --- |")
    for method, _, lowwater in WINDOWS_MATRIX:
        if not lowwater:
            continue
        for d, k in MATRIX_CELLS:
            r = find(results, MATRIX + method, None, k, d)
            if r and r.alloc is not None:
                lines.append(f"| `{method}` {d}, keys={k} | {fmt_alloc(r.alloc)} | "
                             f"{'**met**' if r.alloc < 1.0 else '**not met**'} |")
    return "\n".join(lines)


def overlap_verdict(then, now):
    """Compares the JMH 99.9% intervals: slower or faster only if they do not overlap."""
    def interval(r):
        e = r.error if isinstance(r.error, (int, float)) and not math.isnan(r.error) else 0.0
        return r.mean - e, r.mean + e
    t_lo, t_hi = interval(then)
    n_lo, n_hi = interval(now)
    if n_lo > t_hi:
        return "**slower** (intervals apart)"
    if n_hi < t_lo:
        return "faster (intervals apart)"
    return "same within error"


def before_after_markdown(before, after):
    lines = [
        "| Benchmark | keys | sources | then (e095ba6) median ns/op ± error | now median ns/op ± error "
        "| now / then (medians) | B/op then → now | verdict |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]

    def key(r):
        return (r.name, r.keys or 0, r.sources or 0)

    for t in sorted(before, key=key):
        n = find(after, t.name, t.sources, t.keys)
        if not n:
            continue
        lines.append(
            f"| `{t.name}` | {t.keys if t.keys is not None else ''} | {t.sources} | "
            f"{fmt(t.median)} ± {fmt(t.error)} | {fmt(n.median)} ± {fmt(n.error)} | "
            f"{n.median / t.median:.2f}x | {fmt_alloc(t.alloc)} → {fmt_alloc(n.alloc)} | "
            f"{overlap_verdict(t, n)} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# SVG

def svg_chart(results, path):
    width, height = 960, 560
    left, right, top, bottom = 80, 390, 40, 60
    pw, ph = width - left - right, height - top - bottom
    xs = [6, 1024, 16384]
    series = []
    for name, label, colour, dash in WATERMARK_CONTENDERS:
        pts = [(s, find(results, name, s)) for s in xs]
        pts = [(s, r) for s, r in pts if r]
        if pts:
            series.append((label, colour, dash, pts))
    for name, keys, label, colour, dash in WINDOW_CONTENDERS:
        pts = [(s, find(results, name, s, int(keys))) for s in xs]
        pts = [(s, r) for s, r in pts if r]
        if pts:
            series.append((label, colour, dash, pts))
    floors = []
    for keys, colour in (("1000", "#969696"), ("100000", "#525252")):
        r = find(results, FLOOR, None, int(keys))
        if r:
            floors.append((f"keyed HashMap sum floor, {int(keys):,} keys", colour, "2,4", r))

    values = [r.mean for _, _, _, pts in series for _, r in pts] + [r.mean for *_, r in floors]
    errs = [r.error for _, _, _, pts in series for _, r in pts if isinstance(r.error, (int, float))]
    lo = min(v for v in values if v > 0)
    hi = max(values) + (max(errs) if errs else 0)
    ymin = 10 ** math.floor(math.log10(lo))
    ymax = 10 ** math.ceil(math.log10(hi))
    xmin, xmax = math.log10(4), math.log10(25000)

    def X(s):
        return left + (math.log10(s) - xmin) / (xmax - xmin) * pw

    def Y(v):
        v = max(v, ymin)
        return top + ph - (math.log10(v) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin)) * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="22" font-size="15" font-weight="bold">Cost per event against the number '
        f'of sources (JMH, mean ns/op, log-log)</text>',
    ]
    # Grid and axes.
    d = ymin
    while d <= ymax * 1.0001:
        y = Y(d)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{fmt(d) if d < 1 else f"{d:,.0f}"}</text>')
        d *= 10
    for s in xs:
        x = X(s)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{s:,}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 15}" text-anchor="middle">sources (partitions)</text>')
    out.append(f'<text x="20" y="{top + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 20 {top + ph / 2})">ns per event</text>')
    # Floors: horizontal lines.
    for label, colour, dash, r in floors:
        y = Y(r.mean)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="{colour}" '
                   f'stroke-width="1.5" stroke-dasharray="{dash}"/>')
    # Series with error bars.
    for label, colour, dash, pts in series:
        path_d = " ".join(("M" if i == 0 else "L") + f"{X(s):.1f},{Y(r.mean):.1f}" for i, (s, r) in enumerate(pts))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        for s, r in pts:
            x, y = X(s), Y(r.mean)
            if isinstance(r.error, (int, float)) and not math.isnan(r.error):
                y1, y2 = Y(r.mean + r.error), Y(max(r.mean - r.error, ymin))
                out.append(f'<line x1="{x:.1f}" y1="{y1:.1f}" x2="{x:.1f}" y2="{y2:.1f}" stroke="{colour}"/>')
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"><title>{label}, '
                       f'{s:,} sources: {fmt(r.mean)} ± {fmt(r.error)} ns/op</title></circle>')
    # Legend.
    lx, ly = left + pw + 20, top + 10
    for label, colour, dash, _ in series + [(l, c, d, None) for l, c, d, _ in floors]:
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 28}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{lx + 36}" y="{ly + 4}">{label}</text>')
        ly += 22
    out.append(f'<text x="{lx}" y="{ly + 12}" fill="#555">Error bars: JMH 99.9% interval.</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def run_description(data):
    e = data[0]
    return (f"JMH {e['jmhVersion']}, {e['vmName']} {e['vmVersion']} (JDK {e['jdkVersion']}), "
            f"{e['forks']} fork, {e['warmupIterations']} x {e['warmupTime']} warm-up, "
            f"{e['measurementIterations']} x {e['measurementTime']} measurement, "
            f"JVM args {' '.join(e['jvmArgs'])}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="JMH result(s), from -rf json -rff FILE")
    parser.add_argument("--svg", help="write the chart to this file")
    parser.add_argument("--update", help="replace the generated part of this Markdown file")
    parser.add_argument("--marker", default="chart.py",
                        help="with --update, the part between <!-- BEGIN MARKER --> and <!-- END MARKER -->")
    parser.add_argument("--ratios-only", action="store_true", help="print only the target ratios")
    parser.add_argument("--before-after", action="store_true",
                        help="the JSON files are THEN... -- NOW...: print the before/after table "
                             "(files whose name contains 'then' are the before side)")
    args = parser.parse_args(argv)
    sources_label = " ".join(args.json)
    if args.before_after:
        before, bdata = load([p for p in args.json if "then" in p.rsplit("/", 1)[-1]])
        after, _ = load([p for p in args.json if "then" not in p.rsplit("/", 1)[-1]])
        md = "\n".join([
            "<!-- Generated by benchmarks/chart.py --before-after from " + sources_label
            + "; do not edit by hand. -->",
            "",
            "Run: " + run_description(bdata) + ".",
            "",
            before_after_markdown(before, after),
        ])
        return emit(md, args)
    results, data = load(args.json)
    if args.svg:
        svg_chart(results, args.svg)
    if args.ratios_only:
        md = "\n".join([
            "<!-- Generated by benchmarks/chart.py --ratios-only from " + sources_label + "; do not edit by hand. -->",
            "",
            "Run: " + run_description(data) + ".",
            "",
            ratios_markdown(results),
        ])
        aligner = aligner_markdown(results)
        if aligner:
            md += "\n\n" + aligner
        matrix = matrix_ratios_markdown(results)
        if matrix:
            md += "\n\n" + matrix
    else:
        md = "\n".join([
            "<!-- Generated by benchmarks/chart.py from " + sources_label + "; do not edit by hand. -->",
            "",
            "Run: " + run_description(data) + ".",
            "",
            "### Every benchmark",
            "",
            results_table(results),
            "",
            "### Watermark and keyed-add targets (ratios of medians, one run)",
            "",
            ratios_markdown(results),
            ])
        aligner = aligner_markdown(results)
        if aligner:
            md += "\n".join([
                "",
                "",
                "### Ordered release: naive sorted list / `EventAligner` (ratios of medians, one run)",
                "",
                aligner,
            ])
        matrix = matrix_markdown(results)
        if matrix:
            md += "\n".join([
                "",
                "",
                "### Windows matrix: sparse and dense, 1,000 and 100,000 keys",
                "",
                matrix,
                "",
                "### Windows matrix: targets (ratios of medians, one run)",
                "",
                matrix_ratios_markdown(results),
            ])
    return emit(md, args)


def emit(md, args):
    print(md)
    if args.update:
        begin, end = f"<!-- BEGIN {args.marker} -->", f"<!-- END {args.marker} -->"
        with open(args.update, encoding="utf-8") as f:
            text = f.read()
        i, j = text.find(begin), text.find(end)
        if i < 0 or j < i:
            sys.exit(f"{args.update}: markers {begin} ... {end} not found")
        text = text[: i + len(begin)] + "\n" + md + "\n" + text[j:]
        with open(args.update, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
