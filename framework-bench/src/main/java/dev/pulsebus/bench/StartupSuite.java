package dev.pulsebus.bench;

import dev.pulsebus.bench.http.RawHttp;
import dev.pulsebus.bench.startup.InitProbe;
import dev.pulsebus.bench.startup.Nothing;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The {@code startup} suite, each round a fresh JVM: {@code jvm_floor} (a JVM that does nothing),
 * {@code cold_to_ready} (the server jar launched until {@code /health} answers), the same with an AppCDS
 * archive the suite makes first ({@code cold_to_ready_archived}, same flags at archive and run time), and
 * {@code init} (building a bot in-process until it answered its first command, timed inside the JVM).
 */
final class StartupSuite implements Suite {

    static final Pattern LISTENING = Pattern.compile("is listening on (http://\\S+)");

    @Override
    public String name() {
        return "startup";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        int rounds = options.quick ? 3 : 10;
        List<Row> rows = new ArrayList<>();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path dir = Files.createDirectories(options.dataDir.resolve("startup"));

        Histogram floor = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        String own = Path.of(Nothing.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        for (int i = 0; i < rounds + 1; i++) {
            HttpSuite.progress("startup.jvm_floor: round " + (i + 1));
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(java, "-cp", own, Nothing.class.getName()).inheritIO().start();
            p.waitFor();
            if (i > 0) {
                floor.recordValue(System.nanoTime() - t0);
            }
        }
        rows.add(ServerFixture.row("startup", "startup.jvm_floor", "ms", null, floor, null, ServerFixture.peers(),
                "a JVM starting and exiting, printing nothing: the floor of the rows below"));

        Path jar = serverJar();
        if (jar == null) {
            String note = "skipped: no framework-http/target/pulsebus-server.jar (run mvn package first)";
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready", "ms", null, null, null, ServerFixture.peers(), note));
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready_archived", "ms", null, null, null,
                    ServerFixture.peers(), note));
        } else {
            Histogram plain = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            for (int i = 0; i < rounds + 1; i++) {
                HttpSuite.progress("startup.cold_to_ready: round " + (i + 1));
                long t = coldToReady(List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString()),
                        dir.resolve("plain")); // a restart: the first (warm-up) round made the database
                if (i > 0) {
                    plain.recordValue(t);
                }
            }
            double p50 = plain.getValueAtPercentile(50) / 1e6;
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready", "ms", null, plain, null, ServerFixture.peers(),
                    String.format("java -jar pulsebus-server.jar (storage, metrics, modules) until /health answers,"
                            + " restarting on the database of the first round; target <= 500 ms: %s (p50 %.0f ms)",
                            p50 <= 500 ? "met" : "MISSED", p50)));

            Path archive = dir.resolve("server.jsa");
            HttpSuite.progress("startup.cold_to_ready_archived: making the archive");
            coldToReady(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:ArchiveClassesAtExit=" + archive,
                    "-jar", jar.toString()), dir.resolve("archive"));
            Histogram archived = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            boolean haveArchive = Files.exists(archive);
            for (int i = 0; haveArchive && i < rounds + 1; i++) {
                HttpSuite.progress("startup.cold_to_ready_archived: round " + (i + 1));
                long t = coldToReady(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:SharedArchiveFile=" + archive,
                        "-jar", jar.toString()), dir.resolve("archived"));
                if (i > 0) {
                    archived.recordValue(t);
                }
            }
            double a50 = haveArchive ? archived.getValueAtPercentile(50) / 1e6 : Double.NaN;
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready_archived", "ms", null,
                    haveArchive ? archived : null, null, ServerFixture.peers(), haveArchive
                            ? String.format("the same with an AppCDS archive made by a first run (-XX:ArchiveClassesAtExit);"
                            + " target <= 270 ms: %s (p50 %.0f ms)", a50 <= 270 ? "met" : "MISSED", a50)
                            : "the JVM wrote no archive; row skipped"));
        }

        Histogram init = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int i = 0; i < rounds; i++) {
            HttpSuite.progress("startup.init: round " + (i + 1));
            Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                    System.getProperty("java.class.path"), InitProbe.class.getName())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            Matcher m = Pattern.compile("init_ns (\\d+)").matcher(out);
            if (!m.find()) {
                throw new IllegalStateException("the init probe printed no time: " + out);
            }
            init.recordValue(Long.parseLong(m.group(1)));
        }
        double i50 = init.getValueAtPercentile(50) / 1e6;
        rows.add(ServerFixture.row("startup", "startup.init", "ms", null, init, null, ServerFixture.peers(),
                String.format("in a fresh JVM, main() to a bot (bus, router, pipeline, module host, a module) that"
                        + " answered its first command; target <= 30 ms: %s (p50 %.1f ms)", i50 <= 30 ? "met" : "MISSED", i50)));
        return rows;
    }

    /** Launches the server and returns the nanoseconds until /health answered; then stops it with SIGTERM. */
    private static long coldToReady(List<String> command, Path dataDir) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--port", "0", "--data-dir", dataDir.toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            URI url = null;
            for (String line; url == null && (line = out.readLine()) != null; ) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    url = URI.create(m.group(1));
                }
            }
            if (url == null) {
                throw new IOException("the server did not start: " + String.join(" ", cmd));
            }
            try (RawHttp http = new RawHttp(url.getHost(), url.getPort())) {
                if (http.exchange("GET", "/health", null).status() != 200) {
                    throw new IOException("/health did not answer 200");
                }
            }
            long ready = System.nanoTime() - t0;
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            return ready;
        } finally {
            p.destroyForcibly();
        }
    }

    /** The shaded server jar beside this module, or null. */
    static Path serverJar() {
        String configured = System.getProperty("pulsebus.bench.serverJar");
        for (Path p : configured != null ? List.of(Path.of(configured))
                : List.of(Path.of("..", "framework-http", "target", "pulsebus-server.jar"),
                        Path.of("framework-http", "target", "pulsebus-server.jar"))) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
        }
        return null;
    }
}
