package dev.pulsebus.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A run set against a baseline, row by row. Throughput is compared as the median of each run's measured
 * rounds; a change within {@link #NOISE} (±5 %) is noise. Bytes per operation, which a shared machine
 * does not disturb, count as a regression when they grow by more than 5 % and at least one byte.
 */
record Comparison(List<Change> changes) {

    static final double NOISE = 0.05;

    enum Verdict {
        IMPROVEMENT, NOISE, REGRESSION, NEW;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One row's change; {@code opsChange} is relative ((now - then) / then), null when not comparable. */
    record Change(String row, Double opsThen, Double opsNow, Double opsChange, Double allocThen, Double allocNow,
                  Verdict verdict) {
    }

    static Comparison of(Results baseline, Results now) {
        Map<String, Row> then = new HashMap<>();
        baseline.results().forEach(r -> then.put(r.name(), r));
        List<Change> changes = new ArrayList<>();
        for (Row r : now.results()) {
            Row b = then.get(r.name());
            if (b == null) {
                changes.add(new Change(r.name(), null, r.opsPerSec(), null, null, r.allocBytesPerOp(), Verdict.NEW));
                continue;
            }
            Double change = r.opsPerSec() == null || b.opsPerSec() == null || b.opsPerSec() == 0 ? null
                    : (r.opsPerSec() - b.opsPerSec()) / b.opsPerSec();
            changes.add(new Change(r.name(), b.opsPerSec(), r.opsPerSec(), change, b.allocBytesPerOp(),
                    r.allocBytesPerOp(), verdict(change, b.allocBytesPerOp(), r.allocBytesPerOp())));
        }
        return new Comparison(changes);
    }

    private static Verdict verdict(Double opsChange, Double allocThen, Double allocNow) {
        boolean moreAlloc = allocThen != null && allocNow != null
                && allocNow - allocThen >= 1.0 && allocNow > allocThen * (1 + NOISE);
        if (moreAlloc || opsChange != null && opsChange < -NOISE) {
            return Verdict.REGRESSION;
        }
        boolean lessAlloc = allocThen != null && allocNow != null
                && allocThen - allocNow >= 1.0 && allocNow < allocThen * (1 - NOISE);
        if (lessAlloc || opsChange != null && opsChange > NOISE) {
            return Verdict.IMPROVEMENT;
        }
        return Verdict.NOISE;
    }

    boolean anyRegression() {
        return changes.stream().anyMatch(c -> c.verdict() == Verdict.REGRESSION);
    }

    String render() {
        StringBuilder sb = new StringBuilder("Compared with the baseline (±5 % is noise):")
                .append(System.lineSeparator());
        for (Change c : changes) {
            sb.append(String.format(Locale.ROOT, "  %-40s %12s -> %-12s %8s  %s%n", c.row(), Table.si(c.opsThen()),
                    Table.si(c.opsNow()), percent(c.opsChange()), c.verdict().label().toUpperCase(Locale.ROOT)));
        }
        return sb.toString();
    }

    static String percent(Double change) {
        return change == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", change * 100);
    }
}
