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
 *
 * <p>A change is real only when it is outside both the ±{@link #NOISE} band and the two runs' combined
 * spread (half the range of each run's rounds, added): a 10 % move between runs whose rounds each spread
 * 30 % is NOISE, the same move with 2 % spreads is a REGRESSION. A row whose rounds in this run lie more
 * than 2x apart is UNSTABLE: it cannot be judged at all. Bytes (per operation, or per waiter for memory
 * rows), which a shared machine does not disturb, have no spread and count as a regression when they
 * grow by more than 5 % and at least one byte, UNSTABLE or not. A row regresses when any figure does.
 */
record Comparison(List<Change> changes) {

    static final double NOISE = 0.05;

    enum Verdict {
        IMPROVEMENT, NOISE, REGRESSION, UNSTABLE, NEW;

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

    /** One figure of a row, then and now, with the spread of each run's rounds where the figure has them. */
    record Measure(Figure figure, Double then, Double now, Spread thenSpread, Spread nowSpread) {

        Measure(Figure figure, Double then, Double now) {
            this(figure, then, now, null, null);
        }

        /** Half the range of each run's rounds, added (in the figure's unit); 0 without rounds. */
        double combinedSpread() {
            double a = thenSpread == null ? 0 : (thenSpread.max() - thenSpread.min()) / 2;
            double b = nowSpread == null ? 0 : (nowSpread.max() - nowSpread.min()) / 2;
            return a + b;
        }

        /** Relative ((now - then) / then), null when not comparable. */
        Double change() {
            return then == null || now == null || then == 0 ? null : (now - then) / then;
        }

        /**
         * Beyond ±{@link #NOISE} of the baseline and beyond the combined spread (for bytes: at least one
         * byte), else noise.
         */
        Verdict verdict() {
            if (then == null || now == null) {
                return Verdict.NOISE;
            }
            double worse = figure.lowerIsBetter ? now - then : then - now;
            boolean beyond = Math.abs(worse) > NOISE * Math.abs(then)
                    && Math.abs(worse) > combinedSpread()
                    && (figure != Figure.BYTES || Math.abs(worse) >= 1.0);
            if (!beyond) {
                return Verdict.NOISE;
            }
            return worse > 0 ? Verdict.REGRESSION : Verdict.IMPROVEMENT;
        }

        String render() {
            String spread = thenSpread == null && nowSpread == null ? ""
                    : " (spread " + spreadText(thenSpread) + " -> " + spreadText(nowSpread) + ")";
            return String.format(Locale.ROOT, "%s %s -> %s %s%s", figure.label, figure.show(then), figure.show(now),
                    percent(change()), spread);
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
            boolean bytesGrew = measures.stream()
                    .anyMatch(m -> m.figure() == Figure.BYTES && m.verdict() == Verdict.REGRESSION);
            // bytes that grew count even so: no spread disturbs them
            Verdict v = r.unstable() && !bytesGrew ? Verdict.UNSTABLE : verdict(measures);
            changes.add(new Change(r.name(), measures, v));
        }
        return new Comparison(changes);
    }

    /** The figures both rows have: throughput where it is measured, else the latency; and the bytes. */
    private static List<Measure> measures(Row then, Row now) {
        List<Measure> m = new ArrayList<>();
        if (then.opsPerSec() != null && now.opsPerSec() != null) {
            m.add(new Measure(Figure.OPS, then.opsPerSec(), now.opsPerSec(), then.spread(), now.spread()));
        } else {
            if (then.p50Us() != null && now.p50Us() != null) { // a latency row's rounds are its p50s
                m.add(new Measure(Figure.P50, then.p50Us(), now.p50Us(), then.spread(), now.spread()));
            }
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

    boolean anyUnstable() {
        return changes.stream().anyMatch(c -> c.verdict() == Verdict.UNSTABLE);
    }

    String render() {
        StringBuilder sb = new StringBuilder("Compared with the baseline (a change is real outside both the 5 per cent band and the"
                + " runs' combined spread; ops/s where the row has it, else p50 and p99 latency; and bytes;"
                + " UNSTABLE: this run's rounds lie more than 2x apart):").append(System.lineSeparator());
        for (Change c : changes) {
            sb.append(String.format(Locale.ROOT, "  %-40s %-11s %s%n", c.row(),
                    c.verdict().label().toUpperCase(Locale.ROOT),
                    c.measures().stream().map(Measure::render).collect(Collectors.joining("; "))));
        }
        return sb.toString();
    }

    /** A spread as ± half its range, relative to its median: "±12%", "-" without rounds. */
    static String spreadText(Spread s) {
        return s == null ? "-" : String.format(Locale.ROOT, "±%.0f%%", s.relativeRange() * 50);
    }

    static String percent(Double change) {
        return change == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", change * 100);
    }
}
