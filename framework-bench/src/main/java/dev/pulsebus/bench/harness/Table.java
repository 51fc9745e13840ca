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
        Set<String> peers = peerColumns(results);
        boolean floors = anyFloor(results);
        int w = results.results().stream().mapToInt(r -> r.name().length()).max().orElse(3) + 1;
        String row = "%-" + w + "s %10s %13s %9s %9s %9s %9s %8s";
        String head = String.format(Locale.ROOT, row, "row", "ops/s", "spread",
                "p50 us", "p99 us", "p99.9 us", "max us", "B/op");
        StringBuilder line = new StringBuilder(head);
        for (String p : peers) {
            line.append(String.format(Locale.ROOT, " %22s", p));
        }
        if (floors) {
            line.append(String.format(Locale.ROOT, " %-36s", " floor (ours/floor)"));
        }
        sb.append(line).append(System.lineSeparator());
        sb.append("-".repeat(line.length())).append(System.lineSeparator());
        for (Row r : results.results()) {
            sb.append(String.format(Locale.ROOT, row, r.name(), si(r.opsPerSec()), spread(r),
                    us(r.p50Us()), us(r.p99Us()), us(r.p999Us()), us(r.maxUs()), bytes(r.allocBytesPerOp())));
            for (String p : peers) {
                sb.append(String.format(Locale.ROOT, " %22s", peer(r, p)));
            }
            if (floors) {
                sb.append("  ").append(floor(r));
            }
            sb.append(System.lineSeparator());
        }
        sb.append(System.lineSeparator());
        sb.append(LEGEND + "; spread = ± half the range of the row's rounds around their "
                + "median, UNSTABLE where they lie more than 2x apart").append(System.lineSeparator());
        for (Row r : results.results()) {
            if (!r.note().isEmpty()) {
                sb.append("  ").append(r.name()).append(": ").append(r.note()).append(System.lineSeparator());
            }
        }
        return sb.toString();
    }

    /** What the tables say of their peers' ratios and figures. */
    static final String LEGEND = "(NNx) = our figure divided by the peer's in this run: ops/s where the row has"
            + " them (higher is better), else p99 latency or, for a memory row, bytes (lower is better); a row's"
            + " floor is what the same load costs without PulseBus (a do-nothing server or bot, bare Netty);"
            + " latency in microseconds, '-' where one operation is too short to time alone";

    /** The peers that get a column of their own: all but the rows' floors, which share one. */
    static Set<String> peerColumns(Results results) {
        Set<String> peers = new LinkedHashSet<>();
        results.results().forEach(r -> r.peers().keySet().stream().filter(p -> !Row.isFloor(p)).forEach(peers::add));
        return peers;
    }

    /** Whether any row has a floor, and so the tables a floor column. */
    static boolean anyFloor(Results results) {
        return results.results().stream().anyMatch(r -> r.floorPeer() != null);
    }

    /** The row's floor beside ours, with the ratio: "noop_floor 159.0 k (0.25x)", "-" without one. */
    static String floor(Row r) {
        String f = r.floorPeer();
        return f == null ? "-" : f + " " + peer(r, f);
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

    /**
     * A peer's figure with our ratio to it: "11.0 M (4.64x)" (throughput), "p99 812 µs (1.90x)" (a latency
     * row), "41.2 MB (2.10x)" (a memory row); "-" where the peer has none.
     */
    static String peer(Row r, String peer) {
        Double theirs = r.peers().get(peer);
        Double ratio = r.ratioTo(peer);
        Row.Kind kind = r.kind();
        if (theirs == null) {
            return "-";
        }
        String figure = kind == Row.Kind.P99 ? "p99 " + MarkdownTable.duration(theirs)
                : kind == Row.Kind.BYTES ? String.format(Locale.ROOT, "%.1f MB", theirs / (1 << 20)) : si(theirs);
        return figure + (ratio == null ? "" : String.format(Locale.ROOT, " (%.2fx)", ratio));
    }

    static String us(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.0f", v);
    }

    /** Bytes per operation as "1224.0"; a memory row's bytes (a MB or more) as "103.2 MB" (MB = 2^20 B). */
    static String bytes(Double v) {
        if (v != null && v >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MB", v / (1 << 20));
        }
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }
}
