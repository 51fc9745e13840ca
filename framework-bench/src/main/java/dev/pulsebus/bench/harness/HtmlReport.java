package dev.pulsebus.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run as one self-contained XHTML file (no script, no network): the meta data, the table with each
 * peer and ratio and, with a baseline, the change per row coloured by verdict; then per row an SVG chart
 * of throughput (ours against the peers, log scale) and, where the row has a latency distribution, its
 * percentiles (log scale, with the baseline's when there is one).
 */
final class HtmlReport {

    private static final String OURS_COLOUR = "#2563eb";
    private static final String PEER_COLOUR = "#9ca3af";
    private static final String BASE_COLOUR = "#f59e0b";

    private HtmlReport() {
    }

    static String render(Results results, Results baseline, Comparison comparison) {
        return render(results, baseline, comparison, Map.of(), List.of());
    }

    /** With each row's history ({@link History#series}, oldest first) drawn as a line where it has two points. */
    static String render(Results results, Results baseline, Comparison comparison, Map<String, List<Double>> history,
                         List<String> flameGraphs) {
        Map<String, Comparison.Change> changes = new LinkedHashMap<>();
        if (comparison != null) {
            comparison.changes().forEach(c -> changes.put(c.row(), c));
        }
        Map<String, Row> base = new LinkedHashMap<>();
        if (baseline != null) {
            baseline.results().forEach(r -> base.put(r.name(), r));
        }
        Meta m = results.meta();
        StringBuilder h = new StringBuilder();
        h.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n")
                .append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head><meta charset=\"UTF-8\"/>")
                .append("<title>PulseBus benchmark ").append(esc(m.commit())).append("</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#111}")
                .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ddd;padding:4px 8px;")
                .append("text-align:right}td:first-child,th:first-child{text-align:left}")
                .append(".improvement{background:#dcfce7}.regression{background:#fee2e2}.noise{background:#f3f4f6}")
                .append(".new{background:#e0f2fe}.unstable{background:#fef3c7}figure{display:inline-block;margin:1em}</style></head><body>\n");
        h.append("<h1>PulseBus benchmark</h1>\n<p>").append(esc(String.format(Locale.ROOT,
                "PulseBus %s (%s), JDK %s, %s, %d cores, %s, backend %s%s, %s", m.pulsebus(), m.commit(), m.jdk(),
                m.cpu(), m.cores(), m.os(), m.backend(), m.quick() ? ", QUICK run" : "", m.timestamp())))
                .append("</p>\n");
        List<String> peers = new ArrayList<>(Table.peerColumns(results));
        boolean floors = Table.anyFloor(results);
        h.append("<table><thead><tr><th>row</th><th>ops/s</th><th>spread</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th>")
                .append("<th>max µs</th><th>B/op</th>");
        peers.forEach(p -> h.append("<th>").append(esc(p)).append("</th>"));
        if (floors) {
            h.append("<th>floor (ours/floor)</th>");
        }
        if (comparison != null) {
            h.append("<th>baseline</th><th>change</th><th>verdict</th>");
        }
        h.append("</tr></thead><tbody>\n");
        for (Row r : results.results()) {
            Comparison.Change c = changes.get(r.name());
            String rowClass = c != null ? c.verdict().label() : r.unstable() ? "unstable" : null;
            h.append("<tr").append(rowClass == null ? "" : " class=\"" + rowClass + "\"").append("><td>")
                    .append(esc(r.name())).append("</td><td>").append(Table.si(r.opsPerSec())).append("</td><td>")
                    .append(esc(Table.spread(r))).append("</td>");
            for (Double v : new Double[] {r.p50Us(), r.p99Us(), r.p999Us(), r.maxUs(), r.allocBytesPerOp()}) {
                h.append("<td>").append(v == null ? "-" : String.format(Locale.ROOT, "%.2f", v)).append("</td>");
            }
            for (String p : peers) {
                h.append("<td>").append(esc(Table.peer(r, p))).append("</td>");
            }
            if (floors) {
                h.append("<td>").append(esc(Table.floor(r))).append("</td>");
            }
            if (comparison != null) {
                Comparison.Measure shown = c == null ? null : c.headline();
                h.append("<td>").append(shown == null ? "-"
                                : esc(shown.figure().label() + " " + shown.figure().show(shown.then())))
                        .append("</td><td>").append(shown == null ? "-" : Comparison.percent(shown.change()))
                        .append("</td><td>")
                        .append(c == null ? "-" : c.verdict().label()).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</tbody></table>\n<p>").append(esc(Table.LEGEND)).append(".</p>\n");
        for (Row r : results.results()) {
            h.append("<h2>").append(esc(r.name())).append("</h2>");
            if (!r.note().isEmpty()) {
                h.append("<p>").append(esc(r.note())).append("</p>");
            }
            if (r.opsPerSec() != null) { // a latency or memory row's peers are no rates: its table cells compare them
                h.append("<figure>").append(throughputChart(r))
                        .append("<figcaption>ops/s, log scale</figcaption></figure>");
            }
            if (r.p50Us() != null) {
                h.append("<figure>").append(latencyChart(r, base.get(r.name())))
                        .append("<figcaption>latency percentiles (µs, log scale)</figcaption></figure>");
            }
            List<Double> past = history.get(r.name());
            if (past != null && past.size() >= 2) {
                h.append("<figure class=\"history\">").append(historyChart(past)).append("<figcaption>")
                        .append(r.opsPerSec() != null ? "ops/s" : r.p50Us() != null ? "p50 µs" : "B/op")
                        .append(" over the last ").append(past.size()).append(" runs kept</figcaption></figure>");
            }
            h.append('\n');
        }
        if (!flameGraphs.isEmpty()) {
            h.append("<h2>Flame graphs</h2><ul>");
            for (String g : flameGraphs) {
                h.append("<li><a href=\"").append(esc(g)).append("\">").append(esc(g)).append("</a></li>");
            }
            h.append("</ul>\n");
        }
        h.append("</body></html>\n");
        return h.toString();
    }

    /** A line through {@code values}, oldest left, scaled to their own range. */
    private static String historyChart(List<Double> values) {
        int w = 240;
        int h = 60;
        double lo = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double hi = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double span = hi - lo == 0 ? 1 : hi - lo;
        StringBuilder s = svg(w, h);
        s.append("<polyline fill=\"none\" stroke=\"").append(OURS_COLOUR).append("\" stroke-width=\"2\" points=\"");
        for (int i = 0; i < values.size(); i++) {
            double x = 5 + (w - 10) * (values.size() == 1 ? 0 : i / (double) (values.size() - 1));
            double y = h - 5 - (h - 10) * (values.get(i) - lo) / span;
            s.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        s.append("\"/>");
        return s.append("</svg>").toString();
    }

    private static String throughputChart(Row r) {
        Map<String, Double> bars = new LinkedHashMap<>();
        if (r.opsPerSec() != null) {
            bars.put("pulsebus", r.opsPerSec());
        }
        bars.putAll(r.peers());
        int w = 420;
        int barH = 22;
        int h = bars.size() * (barH + 8) + 10;
        double max = bars.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double min = Math.max(1, bars.values().stream().mapToDouble(Double::doubleValue).min().orElse(1) / 10);
        StringBuilder s = svg(w, h);
        int y = 5;
        for (Map.Entry<String, Double> e : bars.entrySet()) {
            double frac = log(e.getValue(), min, max);
            int len = (int) Math.max(2, frac * (w - 230));
            s.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\" font-size=\"12\">%s</text>", y + 15, esc(e.getKey())))
                    .append(String.format(Locale.ROOT, "<rect x=\"130\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                            y, len, barH, e.getKey().equals("pulsebus") ? OURS_COLOUR : PEER_COLOUR))
                    .append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>",
                            135 + len, y + 15, Table.si(e.getValue())));
            y += barH + 8;
        }
        return s.append("</svg>").toString();
    }

    private static String latencyChart(Row r, Row baseline) {
        String[] labels = {"p50", "p90", "p99", "p99.9", "max"};
        Double[] ours = {r.p50Us(), r.p90Us(), r.p99Us(), r.p999Us(), r.maxUs()};
        Double[] theirs = baseline == null || baseline.p50Us() == null ? null
                : new Double[] {baseline.p50Us(), baseline.p90Us(), baseline.p99Us(), baseline.p999Us(), baseline.maxUs()};
        double max = 1;
        double min = Double.MAX_VALUE;
        for (Double[] series : theirs == null ? new Double[][] {ours} : new Double[][] {ours, theirs}) {
            for (Double v : series) {
                if (v != null && v > 0) {
                    max = Math.max(max, v);
                    min = Math.min(min, v);
                }
            }
        }
        min = min == Double.MAX_VALUE ? 0.1 : min / 2;
        int w = 420;
        int h = 200;
        StringBuilder s = svg(w, h);
        s.append("<line x1=\"40\" y1=\"170\" x2=\"410\" y2=\"170\" stroke=\"#999\"/>")
                .append("<line x1=\"40\" y1=\"10\" x2=\"40\" y2=\"170\" stroke=\"#999\"/>");
        for (int i = 0; i < labels.length; i++) {
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"188\" font-size=\"11\">%s</text>", 45 + i * 85, labels[i]));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"15\" font-size=\"10\">%.3g</text>", max))
                .append(String.format(Locale.ROOT, "<text x=\"0\" y=\"170\" font-size=\"10\">%.3g</text>", min));
        if (theirs != null) {
            s.append(polyline(theirs, min, max, BASE_COLOUR));
        }
        s.append(polyline(ours, min, max, OURS_COLOUR));
        return s.append("</svg>").toString();
    }

    private static String polyline(Double[] values, double min, double max, String colour) {
        StringBuilder pts = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null || values[i] <= 0) {
                continue;
            }
            int x = 50 + i * 85;
            int y = 170 - (int) (log(values[i], min, max) * 160);
            pts.append(x).append(',').append(y).append(' ');
        }
        return "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + colour + "\" points=\"" + pts.toString().trim() + "\"/>";
    }

    private static StringBuilder svg(int w, int h) {
        return new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">", w, h, w, h));
    }

    /** Where {@code v} falls between {@code min} and {@code max} on a log scale, 0 to 1. */
    private static double log(double v, double min, double max) {
        if (max <= min) {
            return 1;
        }
        return Math.max(0, Math.min(1, (Math.log(v) - Math.log(min)) / (Math.log(max) - Math.log(min))));
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
