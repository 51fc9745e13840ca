package dev.pulsebus.bench.harness;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** The readable form of a run: one line per row, ours beside each peer with the ratio, then the notes. */
final class Table {

    private Table() {
    }

    static String render(Results results) {
        Meta m = results.meta();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "PulseBus %s (%s) on JDK %s, %s, %d cores, %s%s%n",
                m.pulsebus(), m.commit(), m.jdk(), m.cpu(), m.cores(), m.os(), m.quick() ? ", QUICK run" : ""));
        Set<String> peers = new LinkedHashSet<>();
        results.results().forEach(r -> peers.addAll(r.peers().keySet()));
        int w = results.results().stream().mapToInt(r -> r.name().length()).max().orElse(3) + 1;
        String row = "%-" + w + "s %10s %13s %9s %9s %9s %9s %8s";
        String head = String.format(Locale.ROOT, row, "row", "ops/s", "spread",
                "p50 us", "p99 us", "p99.9 us", "max us", "B/op");
        StringBuilder line = new StringBuilder(head);
        for (String p : peers) {
            line.append(String.format(Locale.ROOT, " %22s", p));
        }
        sb.append(line).append(System.lineSeparator());
        sb.append("-".repeat(line.length())).append(System.lineSeparator());
        for (Row r : results.results()) {
            sb.append(String.format(Locale.ROOT, row, r.name(), si(r.opsPerSec()), spread(r),
                    us(r.p50Us()), us(r.p99Us()), us(r.p999Us()), us(r.maxUs()), bytes(r.allocBytesPerOp())));
            for (String p : peers) {
                sb.append(String.format(Locale.ROOT, " %22s", peer(r, p)));
            }
            sb.append(System.lineSeparator());
        }
        sb.append(System.lineSeparator());
        sb.append("(NNx) = our ops/s divided by the peer's in this run; latency in microseconds, '-' where one "
                + "operation is too short to time alone; spread = ± half the range of the row's rounds around their "
                + "median, UNSTABLE where they lie more than 2x apart").append(System.lineSeparator());
        for (Row r : results.results()) {
            if (!r.note().isEmpty()) {
                sb.append("  ").append(r.name()).append(": ").append(r.note()).append(System.lineSeparator());
            }
        }
        return sb.toString();
    }

    /** "±12%", "UNSTABLE ±80%", or "-" for a row measured once. */
    static String spread(Row r) {
        String s = Comparison.spreadText(r.spread());
        return r.unstable() ? "UNSTABLE " + s : s;
    }

    /** 52100000 -> "52.1 M". */
    static String si(Double v) {
        if (v == null) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1e9) {
            return String.format(Locale.ROOT, "%.2f G", v / 1e9);
        }
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.1f M", v / 1e6);
        }
        if (a >= 1e3) {
            return String.format(Locale.ROOT, "%.1f k", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A peer's throughput with our ratio to it: "11.0 M (4.64x)", "-" where the peer has none. */
    static String peer(Row r, String peer) {
        Double theirs = r.peers().get(peer);
        Double ratio = r.ratioTo(peer);
        return theirs == null ? "-"
                : si(theirs) + (ratio == null ? "" : String.format(Locale.ROOT, " (%.2fx)", ratio));
    }

    static String us(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.0f", v);
    }

    static String bytes(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }
}
