package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The run's table as Markdown ({@code --markdown FILE}): the same rows, figures and notes as {@link Table},
 * for a document to show the current results. In a file that has the markers {@link #START} and
 * {@link #END}, only what lies between them is replaced, so the prose around the table (as in
 * {@code docs/BENCHMARKS.md}) stays; any other file is written whole, the table between the markers,
 * so the next run replaces it in place.
 */
final class MarkdownTable {

    static final String START = "<!-- bench:table:start -->";
    static final String END = "<!-- bench:table:end -->";

    private MarkdownTable() {
    }

    static String render(Results results) {
        Meta m = results.meta();
        String nl = "\n";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "PulseBus %s (%s) on JDK %s, %s, %d cores, %s, backend %s%s, %s",
                m.pulsebus(), m.commit(), m.jdk(), m.cpu(), m.cores(), m.os(), m.backend(),
                m.quick() ? ", QUICK run" : "", m.timestamp())).append(nl).append(nl);
        Set<String> peers = new LinkedHashSet<>();
        results.results().forEach(r -> peers.addAll(r.peers().keySet()));
        sb.append("| row | ops/s | p50 µs | p99 µs | p99.9 µs | max µs | B/op |");
        peers.forEach(p -> sb.append(' ').append(cell(p)).append(" |"));
        sb.append(nl).append("|:---|").append("---:|".repeat(6 + peers.size())).append(nl);
        for (Row r : results.results()) {
            sb.append("| `").append(r.name()).append("` | ").append(Table.si(r.opsPerSec()))
                    .append(" | ").append(Table.us(r.p50Us())).append(" | ").append(Table.us(r.p99Us()))
                    .append(" | ").append(Table.us(r.p999Us())).append(" | ").append(Table.us(r.maxUs()))
                    .append(" | ").append(Table.bytes(r.allocBytesPerOp())).append(" |");
            for (String p : peers) {
                sb.append(' ').append(Table.peer(r, p)).append(" |");
            }
            sb.append(nl);
        }
        sb.append(nl).append("(NNx) = our ops/s divided by the peer's in this run; latency in microseconds, '-' where"
                + " one operation is too short to time alone.").append(nl);
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
        String table = START + "\n" + render(results) + END + "\n";
        String text = table;
        if (Files.isRegularFile(file)) {
            String old = Files.readString(file, StandardCharsets.UTF_8);
            int start = old.indexOf(START);
            int end = start < 0 ? -1 : old.indexOf(END, start + START.length());
            if (start >= 0 && end >= 0) {
                int after = end + END.length();
                if (old.startsWith("\n", after)) {
                    after++;
                }
                text = old.substring(0, start) + table + old.substring(after);
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Text safe in a table cell or a list item: no column break, no line break. */
    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\r", " ").replace("\n", " ");
    }
}
