package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The run's table as Markdown ({@code --markdown FILE}): the same rows, figures and notes as {@link Table},
 * for a document to show the current results. In a file that has the markers {@link #START} and
 * {@link #END}, only what lies between them is replaced, so the prose around the table (as in
 * {@code docs/BENCHMARKS.md}) stays; between {@link #HEADLINE_START} and {@link #HEADLINE_END} go the
 * headline rows ({@link #renderHeadline}, as at the top of {@code docs/BENCHMARKS.md}), drawn from the same
 * figures; a file with neither is written whole, the table between the markers, so the next run replaces it in
 * place. One results file written into several documents ({@code --report FILE --markdown A --markdown B})
 * makes them show the same figures.
 */
final class MarkdownTable {

    static final String START = "<!-- bench:table:start -->";
    static final String END = "<!-- bench:table:end -->";
    static final String HEADLINE_START = "<!-- bench:headline:start -->";
    static final String HEADLINE_END = "<!-- bench:headline:end -->";

    /** What a headline row shows: its throughput, its latency, or both. */
    enum Show { OPS, LATENCY, BOTH }

    /** The headline rows, in their order, and what each shows. */
    static final Map<String, Show> HEADLINE = headline();

    private static Map<String, Show> headline() {
        Map<String, Show> m = new LinkedHashMap<>();
        m.put("event.single_handler", Show.OPS);
        m.put("event.blocking_handler", Show.OPS);
        m.put("router.command_hit", Show.OPS);
        m.put("router.command_miss", Show.OPS);
        m.put("bridge.single_handler", Show.OPS);
        m.put("storage.kv_set", Show.BOTH);
        m.put("storage.kv_get_hot", Show.OPS);
        m.put("module.call", Show.OPS);
        m.put("http.health", Show.OPS);
        m.put("http.say", Show.LATENCY);
        m.put("overall.e2e_roundtrip", Show.LATENCY);
        m.put("longpoll.fanout_1000", Show.LATENCY);
        m.put("startup.cold_to_ready", Show.LATENCY);
        m.put("startup.cold_to_ready_archived", Show.LATENCY);
        return Collections.unmodifiableMap(m);
    }

    private MarkdownTable() {
    }

    /** The line that says where and when the figures were measured, first in both tables. */
    static String metaLine(Meta m) {
        return String.format(Locale.ROOT, "PulseBus %s (%s) on JDK %s, %s, %d cores, %s, backend %s%s, %s",
                m.pulsebus(), m.commit(), m.jdk(), m.cpu(), m.cores(), m.os(), m.backend(),
                m.quick() ? ", QUICK run" : "", m.timestamp());
    }

    /**
     * The headline rows ({@link #HEADLINE}) of {@code results}: each row's figure as the full table writes it
     * ({@link Table#si}, {@link Table#us}, {@link Table#bytes}), and its peers with our ratio to them. Rows
     * the results lack are left out.
     */
    static String renderHeadline(Results results) {
        String nl = "\n";
        StringBuilder sb = new StringBuilder();
        sb.append(metaLine(results.meta())).append(nl).append(nl);
        sb.append("| row | PulseBus | peers in the same run |").append(nl).append("|:---|:---|:---|").append(nl);
        for (Map.Entry<String, Show> h : HEADLINE.entrySet()) {
            Row r = results.results().stream().filter(x -> x.name().equals(h.getKey())).findFirst().orElse(null);
            if (r == null) {
                continue;
            }
            List<String> figures = new ArrayList<>();
            if (h.getValue() != Show.LATENCY) {
                figures.add(Table.si(r.opsPerSec()) + " ops/s");
            }
            if (h.getValue() != Show.OPS) {
                figures.add("p50 " + duration(r.p50Us()));
                if (h.getValue() == Show.LATENCY) {
                    figures.add("p99 " + duration(r.p99Us()));
                }
            }
            if (h.getValue() != Show.LATENCY && r.allocBytesPerOp() != null) {
                figures.add(Table.bytes(r.allocBytesPerOp()) + " B/op");
            }
            List<String> peers = new ArrayList<>();
            if (h.getValue() != Show.LATENCY) { // a latency row's peers are rates: its note compares them
                r.peers().keySet().forEach(p -> peers.add(p + " " + Table.peer(r, p)));
            }
            sb.append("| `").append(r.name()).append("` | ").append(String.join(", ", figures)).append(" | ")
                    .append(String.join("; ", peers)).append(" |").append(nl);
        }
        return sb.toString();
    }

    /** A latency in microseconds, in the unit a reader takes in at a glance: 73 µs, 1.25 ms, 1.87 s. */
    static String duration(@Nullable Double us) {
        if (us == null) {
            return "-";
        }
        if (us >= 1e6) {
            return String.format(Locale.ROOT, "%.2f s", us / 1e6);
        }
        if (us >= 1e3) {
            return String.format(Locale.ROOT, us >= 1e4 ? "%.1f ms" : "%.2f ms", us / 1e3);
        }
        return Table.us(us) + " µs";
    }

    static String render(Results results) {
        String nl = "\n";
        StringBuilder sb = new StringBuilder();
        sb.append(metaLine(results.meta())).append(nl).append(nl);
        Set<String> peers = Table.peerColumns(results);
        boolean floors = Table.anyFloor(results);
        sb.append("| row | ops/s | p50 µs | p99 µs | p99.9 µs | max µs | B/op |");
        peers.forEach(p -> sb.append(' ').append(cell(p)).append(" |"));
        if (floors) {
            sb.append(" floor (ours/floor) |");
        }
        sb.append(nl).append("|:---|").append("---:|".repeat(6 + peers.size() + (floors ? 1 : 0))).append(nl);
        for (Row r : results.results()) {
            sb.append("| `").append(r.name()).append("` | ").append(Table.si(r.opsPerSec()))
                    .append(" | ").append(Table.us(r.p50Us())).append(" | ").append(Table.us(r.p99Us()))
                    .append(" | ").append(Table.us(r.p999Us())).append(" | ").append(Table.us(r.maxUs()))
                    .append(" | ").append(Table.bytes(r.allocBytesPerOp())).append(" |");
            for (String p : peers) {
                sb.append(' ').append(Table.peer(r, p)).append(" |");
            }
            if (floors) {
                sb.append(' ').append(Table.floor(r)).append(" |");
            }
            sb.append(nl);
        }
        sb.append(nl).append(Table.LEGEND).append('.').append(nl);
        boolean first = true;
        for (Row r : results.results()) {
            if (!r.note().isEmpty()) {
                sb.append(first ? nl : "").append("- `").append(r.name()).append("`: ").append(cell(r.note())).append(nl);
                first = false;
            }
        }
        return sb.toString();
    }

    /**
     * Writes the table into {@code file}: between the markers where the file has both (start first),
     * else the whole file. Atomically: a reader never sees half a file.
     */
    static void write(Path file, Results results) throws IOException {
        String whole = START + "\n" + render(results) + END + "\n";
        String text = whole;
        if (Files.isRegularFile(file)) {
            String old = Files.readString(file, StandardCharsets.UTF_8);
            String table = between(old, START, END, () -> render(results));
            String headline = between(table == null ? old : table, HEADLINE_START, HEADLINE_END,
                    () -> renderHeadline(results));
            if (headline != null || table != null) {
                text = headline != null ? headline : table;
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * {@code text} with what lies between {@code start} and {@code end} (start first) made anew by
     * {@code made}; null when it lacks them, so that the caller knows nothing was replaced.
     */
    private static @Nullable String between(String text, String start, String end, Supplier<String> made) {
        int from = text.indexOf(start);
        int to = from < 0 ? -1 : text.indexOf(end, from + start.length());
        if (from < 0 || to < 0) {
            return null;
        }
        int after = to + end.length();
        if (text.startsWith("\n", after)) {
            after++;
        }
        return text.substring(0, from) + start + "\n" + made.get() + end + "\n" + text.substring(after);
    }

    /** Text safe in a table cell or a list item: no column break, no line break. */
    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\r", " ").replace("\n", " ");
    }
}
