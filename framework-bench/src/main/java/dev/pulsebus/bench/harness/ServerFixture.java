package dev.pulsebus.bench.harness;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Shared by the socket suites: a real server in this JVM with its data in the run's temporary directory,
 * how to find a launched server's URL and a say's seq, rows from latency histograms, and the bytes this
 * process allocates (all threads) for per-request figures.
 */
public final class ServerFixture {

    /** The line a server prints once it listens, with its URL: how a suite finds a server it launched. */
    public static final Pattern LISTENING = Pattern.compile("is listening on (http://\\S+)");

    private ServerFixture() {
    }

    /** A server on a free port, data under {@code options.dataDir/name}, with {@code extra} TOML in [server]. */
    public static PulseBusServer start(BenchOptions options, String name, String extra) throws Exception {
        return PulseBusServer.start(ServerConfig.load(config(options, name, extra), false, Map.of()));
    }

    /** A config file for a server on a free port with room for 20 k connections, data under the run's folder. */
    public static Path config(BenchOptions options, String name, String extra) throws IOException {
        Path dir = Files.createDirectories(options.dataDir.resolve(name));
        return Files.writeString(dir.resolve("pulsebus.toml"), """
                [server]
                port = 0
                max_connections = 20000
                max_connections_per_client = 20000
                %s
                [storage]
                data_dir = "%s"
                """.formatted(extra, dir.resolve("data").toString().replace("\\", "/")));
    }

    /** A row whose latency comes from {@code nanos} (in ns), reported in microseconds. */
    public static Row row(String suite, String name, String unit, Double opsPerSec, Histogram nanos, Double bytesPerOp,
                   Map<String, Double> peers, String note) {
        boolean any = nanos != null && nanos.getTotalCount() > 0;
        return new Row(suite, name, unit, opsPerSec,
                any ? nanos.getValueAtPercentile(50) / 1e3 : null,
                any ? nanos.getValueAtPercentile(90) / 1e3 : null,
                any ? nanos.getValueAtPercentile(99) / 1e3 : null,
                any ? nanos.getValueAtPercentile(99.9) / 1e3 : null,
                any ? nanos.getMaxValue() / 1e3 : null,
                bytesPerOp, any ? (int) Math.min(Integer.MAX_VALUE, nanos.getTotalCount()) : 0, peers, note);
    }

    /**
     * {@code row} with its percentiles the median of {@code rounds}' (in ns) so that one stalled round does not
     * decide them, its maximum the largest, and its rounds their p50s (what a row without throughput is
     * compared on).
     */
    public static Row medianOfRounds(Row row, List<Histogram> rounds) {
        if (rounds.isEmpty()) {
            return row;
        }
        List<Double> p50s = rounds.stream().map(r -> r.getValueAtPercentile(50) / 1e3).toList();
        Row med = new Row(row.suite(), row.name(), row.unit(), row.opsPerSec(), median(p50s),
                medianUs(rounds, 90), medianUs(rounds, 99), medianUs(rounds, 99.9),
                rounds.stream().mapToLong(Histogram::getMaxValue).max().orElse(0) / 1e3,
                row.allocBytesPerOp(), row.samples(), row.peers(), row.note());
        return med.opsPerSec() == null ? med.withRounds(p50s) : med;
    }

    /** The median of {@code values} (the mean of the middle two for an even count). */
    public static double median(List<Double> values) {
        return Spread.median(values.stream().sorted().toList());
    }

    /** The median over {@code rounds} (in ns) of one percentile, in microseconds. */
    public static double medianUs(List<Histogram> rounds, double percentile) {
        return median(rounds.stream().map(r -> r.getValueAtPercentile(percentile) / 1e3).toList());
    }

    /** Bytes allocated so far by every live thread of this JVM. */
    public static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    public static String us(Histogram h, double percentile) {
        return String.format("%.0f us", h.getValueAtPercentile(percentile) / 1e3);
    }

    public static Map<String, Double> peers(Object... nameValue) {
        Map<String, Double> m = new TreeMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put((String) nameValue[i], (Double) nameValue[i + 1]);
        }
        return m;
    }

}
