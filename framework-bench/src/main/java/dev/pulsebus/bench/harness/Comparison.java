package dev.pulsebus.bench.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A run set against a baseline, row by row, on each figure both runs have. A row with throughput is
 * compared on its ops/s (the median of each run's measured rounds), higher is better; a row without
 * (startup, end-to-end, long-poll rows: durations) on its median latency and its p99, lower is better.
 * A change within {@link #NOISE} (±5 %) is noise. Bytes (per operation, or per waiter for memory rows),
 * which a shared machine does not disturb, count as a regression when they grow by more than 5 % and at
 * least one byte. A row regresses when any of its figures does.
 */
record Comparison(List<Change> changes) {

    static final double NOISE = 0.05;

    enum Verdict {
        IMPROVEMENT, NOISE, REGRESSION, NEW;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a figure is: its name, whether lower is better, and how its values print. */
    enum Figure {
        OPS("ops/s", false), P50("p50", true), P99("p99", true), BYTES("B/op", true);

        private final String label;
        private final boolean lowerIsBetter;

        Figure(String label, boolean lowerIsBetter) {
            this.label = label;
            this.lowerIsBetter = lowerIsBetter;
        }

        String label() {
            return label;
        }

        String show(Double v) {
            if (v == null) {
                return "-";
            }
            return switch (this) {
                case OPS -> Table.si(v);
                case P50, P99 -> String.format(Locale.ROOT, "%.1f us", v);
                case BYTES -> String.format(Locale.ROOT, "%.1f B", v);
            };
        }
    }

    /** One figure of a row, then and now. */
    record Measure(Figure figure, Double then, Double now) {

        /** Relative ((now - then) / then), null when not comparable. */
        Double change() {
            return then == null || now == null || then == 0 ? null : (now - then) / then;
        }

        /** Beyond ±{@link #NOISE} of the baseline (and for bytes at least one byte), else noise. */
        Verdict verdict() {
            if (then == null || now == null) {
                return Verdict.NOISE;
            }
            double worse = figure.lowerIsBetter ? now - then : then - now;
            boolean beyond = Math.abs(worse) > NOISE * Math.abs(then)
                    && (figure != Figure.BYTES || Math.abs(worse) >= 1.0);
            if (!beyond) {
                return Verdict.NOISE;
            }
            return worse > 0 ? Verdict.REGRESSION : Verdict.IMPROVEMENT;
        }

        String render() {
            return String.format(Locale.ROOT, "%s %s -> %s %s", figure.label, figure.show(then), figure.show(now),
                    percent(change()));
        }
    }

    /** One row's change: the figures compared and the verdict they make. */
    record Change(String row, List<Measure> measures, Verdict verdict) {

        Change {
            measures = List.copyOf(measures);
        }

        /** The figure to show first: one that made the verdict, else the first compared. */
        Measure headline() {
            return measures.stream().filter(m -> m.verdict() == verdict).findFirst()
                    .orElse(measures.isEmpty() ? null : measures.get(0));
        }

        Measure measure(Figure figure) {
            return measures.stream().filter(m -> m.figure() == figure).findFirst().orElse(null);
        }
    }

    static Comparison of(Results baseline, Results now) {
        Map<String, Row> then = new HashMap<>();
        baseline.results().forEach(r -> then.put(r.name(), r));
        List<Change> changes = new ArrayList<>();
        for (Row r : now.results()) {
            Row b = then.get(r.name());
            if (b == null) {
                changes.add(new Change(r.name(), measures(r, r).stream()
                        .map(m -> new Measure(m.figure(), null, m.now())).toList(), Verdict.NEW));
                continue;
            }
            List<Measure> measures = measures(b, r);
            changes.add(new Change(r.name(), measures, verdict(measures)));
        }
        return new Comparison(changes);
    }

    /** The figures both rows have: throughput where it is measured, else the latency; and the bytes. */
    private static List<Measure> measures(Row then, Row now) {
        List<Measure> m = new ArrayList<>();
        if (then.opsPerSec() != null && now.opsPerSec() != null) {
            m.add(new Measure(Figure.OPS, then.opsPerSec(), now.opsPerSec()));
        } else {
            addIfBoth(m, Figure.P50, then.p50Us(), now.p50Us());
            addIfBoth(m, Figure.P99, then.p99Us(), now.p99Us());
        }
        addIfBoth(m, Figure.BYTES, then.allocBytesPerOp(), now.allocBytesPerOp());
        return m;
    }

    private static void addIfBoth(List<Measure> into, Figure figure, Double then, Double now) {
        if (then != null && now != null) {
            into.add(new Measure(figure, then, now));
        }
    }

    private static Verdict verdict(List<Measure> measures) {
        List<Verdict> each = measures.stream().map(Measure::verdict).toList();
        if (each.contains(Verdict.REGRESSION)) {
            return Verdict.REGRESSION;
        }
        return each.contains(Verdict.IMPROVEMENT) ? Verdict.IMPROVEMENT : Verdict.NOISE;
    }

    boolean anyRegression() {
        return changes.stream().anyMatch(c -> c.verdict() == Verdict.REGRESSION);
    }

    String render() {
        StringBuilder sb = new StringBuilder("Compared with the baseline (±5 % is noise; ops/s where the row has it,"
                + " else p50 and p99 latency; and bytes):").append(System.lineSeparator());
        for (Change c : changes) {
            sb.append(String.format(Locale.ROOT, "  %-40s %-11s %s%n", c.row(),
                    c.verdict().label().toUpperCase(Locale.ROOT),
                    c.measures().stream().map(Measure::render).collect(Collectors.joining("; "))));
        }
        return sb.toString();
    }

    static String percent(Double change) {
        return change == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", change * 100);
    }
}
