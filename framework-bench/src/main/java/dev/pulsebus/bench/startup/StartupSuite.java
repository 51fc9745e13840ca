package dev.pulsebus.bench.startup;

import dev.pulsebus.bench.harness.BenchMain;
import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.bench.http.NoopServer;
import dev.pulsebus.bench.http.RawHttp;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The {@code startup} suite, each round a fresh JVM: {@code jvm_floor} (a JVM that does nothing),
 * {@code cold_to_ready} (the server jar launched as {@code ./pulsebus} launches it, until {@code /health}
 * answers), the same from the startup cache {@code ./pulsebus} keeps ({@code cold_to_ready_archived}: a JDK
 * 25 AOT cache, or on older JDKs an AppCDS archive, made by a first run that answered a few requests), and
 * {@code init} (building a bot in-process until it answered its first command, timed inside the JVM), and
 * {@code rss_idle} (the memory of a server {@code ./pulsebus} started, idle: {@link RssIdle}).
 *
 * <p>The peer of both server rows, {@code bare_netty}, is a bare Netty HTTP server (Netty's jars and the
 * benchmark's do-nothing handler, nothing else) launched and timed the same way, with the same flags and
 * the same kind of cache, in turn with the server round by round. The targets were set where
 * bare Netty was ready in 253 ms (151 ms with an archive); each row states its target both as written
 * and scaled by the peer of this run. Startup rows report starts per second (1 / p50) as their
 * throughput, so the peer ratio reads like every other.
 *
 * <p>With {@code --against JAR}, another build's server jar is a second peer, {@code against}: launched
 * the same way in the same rounds (its own cache in the archived row), and {@code init}'s probe is run
 * on both jars' classes in turn. A jar that does not start, or writes no cache, is left out with a note.
 */
public final class StartupSuite implements Suite {

    /** Where the targets were set: bare Netty ready in 253 ms plain, 151 ms with an archive. */
    private static final double NETTY_THEN_MS = 253;
    private static final double NETTY_ARCHIVED_THEN_MS = 151;

    @Override
    public String name() {
        return "startup";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        int rounds = options.quick() ? 3 : 20; // each round of the server rows launches the server, bare Netty (and --against)
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path dir = Files.createDirectories(options.dataDir().resolve("startup"));
        String own = Path.of(Nothing.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        Context ctx = new Context(rounds, java, dir, own);
        List<Row> rows = new ArrayList<>();
        rows.add(jvmFloor(ctx));
        Path jar = serverJar();
        if (jar == null) {
            String note = "skipped: no framework-http/target/pulsebus-server.jar (run mvn package first)";
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready", "ms", null, null, null, ServerFixture.peers(), note));
            rows.add(ServerFixture.row("startup", "startup.cold_to_ready_archived", "ms", null, null, null,
                    ServerFixture.peers(), note));
        } else {
            Servers servers = servers(ctx, jar, options.against());
            rows.add(coldToReady(ctx, servers));
            rows.add(coldToReadyArchived(ctx, servers));
        }
        rows.add(init(ctx, jar, options.against()));
        rows.add(jar == null ? ServerFixture.row("startup", "startup.rss_idle", "B", null, null, null,
                ServerFixture.peers(), "skipped: no framework-http/target/pulsebus-server.jar (./pulsebus would build it)")
                : RssIdle.run(options.quick() ? 1 : 5, dir, bareNettyClassPath(dir)));
        return rows;
    }

    /** What every row of a run shares: its rounds, the {@code java} launched, its folder, this module's classes. */
    private record Context(int rounds, String java, Path dir, String own) {
    }

    /**
     * The server rows' launches: the server as {@code ./pulsebus} runs it from {@code root} (null: the jar
     * is elsewhere), bare Netty, and the {@code --against} jar ({@code other}, null when not given or when
     * it did not start, {@code againstNote} then saying why).
     */
    private record Servers(Path root, List<String> server, List<String> bare, List<String> other, String againstNote) {
    }

    /** {@code startup.jvm_floor}: a JVM that starts and exits, one warm-up round then the timed ones. */
    private static Row jvmFloor(Context ctx) throws Exception {
        Histogram floor = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int i = 0; i < ctx.rounds() + 1; i++) {
            Progress.print("startup.jvm_floor: round " + (i + 1));
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(ctx.java(), "-cp", ctx.own(), Nothing.class.getName()).inheritIO().start();
            p.waitFor();
            if (i > 0) {
                floor.recordValue(System.nanoTime() - t0);
            }
        }
        return ServerFixture.row("startup", "startup.jvm_floor", "ms", null, floor, null, ServerFixture.peers(),
                "a JVM starting and exiting, printing nothing: the floor of the rows below");
    }

    /** The server's, bare Netty's and {@code --against}'s commands; the last after a first launch that worked. */
    private static Servers servers(Context ctx, Path jar, Path against) throws Exception {
        Path root = checkout(jar); // ./pulsebus runs from there (null: the jar is elsewhere)
        List<String> server = serverCommand(ctx.java(), root, jar);
        List<String> bare = new ArrayList<>(jvm(ctx.java()));
        bare.addAll(List.of("-cp", bareNettyClassPath(ctx.dir()), BareNetty.class.getName()));
        List<String> other = null; // --against: another build's jar, launched as ours is
        String againstNote = ""; // why --against's jar was left out, if it was
        if (against != null) {
            other = serverCommand(ctx.java(), root, against);
            try {
                Progress.print("startup: a first launch of the --against jar");
                coldToReady(other, root, ctx.dir().resolve("against"), false);
            } catch (IOException e) {
                againstNote = "; the --against jar left out: " + e.getMessage();
                other = null;
            }
        }
        return new Servers(root, server, bare, other, againstNote);
    }

    /** {@code startup.cold_to_ready}: each launch in turn, restarting on the database of its first round. */
    private static Row coldToReady(Context ctx, Servers s) throws Exception {
        Path dir = ctx.dir();
        List<Launch> plainLaunches = new ArrayList<>(List.of(new Launch(s.server(), s.root(), dir.resolve("plain")),
                new Launch(s.bare(), null, dir.resolve("bare"))));
        if (s.other() != null) {
            plainLaunches.add(new Launch(s.other(), s.root(), dir.resolve("against")));
        }
        Histogram[] plainRounds = interleaved("startup.cold_to_ready", ctx.rounds(), plainLaunches);
        return startRow("startup.cold_to_ready", plainRounds, NETTY_THEN_MS, 500,
                "java -jar pulsebus-server.jar with ./pulsebus's flags (storage, metrics, modules) until /health"
                        + " answers, restarting on the database of the first round" + s.againstNote());
    }

    /** {@code startup.cold_to_ready_archived}: a first run of each writes its cache, then each starts from it. */
    private static Row coldToReadyArchived(Context ctx, Servers s) throws Exception {
        Path dir = ctx.dir();
        Path root = s.root();
        List<String> other = s.other();
        String againstNote = s.againstNote();
        boolean aot = Runtime.version().feature() >= 25;
        Path serverCache = dir.resolve(aot ? "server.aot" : "server.jsa");
        Path bareCache = dir.resolve(aot ? "bare.aot" : "bare.jsa");
        Progress.print("startup.cold_to_ready_archived: a first run writes the " + (aot ? "AOT cache" : "archive"));
        train(s.server(), aot ? "-XX:AOTCacheOutput=" + serverCache : "-XX:ArchiveClassesAtExit=" + serverCache, root,
                dir.resolve("archive"), true);
        train(s.bare(), aot ? "-XX:AOTCacheOutput=" + bareCache : "-XX:ArchiveClassesAtExit=" + bareCache, null,
                dir.resolve("archive-bare"), false);
        Path otherCache = dir.resolve(aot ? "against.aot" : "against.jsa");
        if (other != null) {
            try {
                train(other, aot ? "-XX:AOTCacheOutput=" + otherCache : "-XX:ArchiveClassesAtExit=" + otherCache,
                        root, dir.resolve("archive-against"), true);
            } catch (IOException e) {
                // no cache: left out below
            }
            if (!Files.exists(otherCache)) {
                againstNote = "; the --against jar wrote no cache: left out of this row";
                other = null;
            }
        }
        if (!Files.exists(serverCache) || !Files.exists(bareCache)) {
            return ServerFixture.row("startup", "startup.cold_to_ready_archived", "ms", null, null, null,
                    ServerFixture.peers(), "the JVM wrote no cache; row skipped");
        }
        String use = aot ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=";
        List<Launch> archivedLaunches = new ArrayList<>(List.of(
                new Launch(withJvmOptions(s.server(), fromCache(use + serverCache)), root, dir.resolve("archived")),
                new Launch(withJvmOptions(s.bare(), fromCache(use + bareCache)), null, dir.resolve("bare-archived"))));
        if (other != null) {
            archivedLaunches.add(new Launch(withJvmOptions(other, fromCache(use + otherCache)), root,
                    dir.resolve("against-archived")));
        }
        Histogram[] archivedRounds = interleaved("startup.cold_to_ready_archived", ctx.rounds(), archivedLaunches);
        return startRow("startup.cold_to_ready_archived", archivedRounds, NETTY_ARCHIVED_THEN_MS, 270,
                "the same from the startup cache ./pulsebus keeps: " + (aot
                        ? "a JDK 25 AOT cache (-XX:AOTCacheOutput)" : "an AppCDS archive (-XX:ArchiveClassesAtExit)")
                        + " written by a first run that answered /health, a say and /metrics" + againstNote);
    }

    /**
     * {@code startup.init}: the in-process probe in fresh JVMs, from an AOT cache too where the JDK has
     * them, and with {@code --against} on both server jars' classes in turn.
     */
    @SuppressWarnings("StringSplitter") // a class path has no empty entries to keep
    private static Row init(Context ctx, Path jar, Path against) throws Exception {
        String java = ctx.java();
        Path dir = ctx.dir();
        int rounds = ctx.rounds();
        // The probe in a jar of its own, with the rest of this JVM's class path but the benchmark's own
        // classes (`own`, often a folder: a JVM archives no class path with a non-empty folder in it).
        List<String> cp = new ArrayList<>(List.of(jarOf(dir.resolve("init-probe.jar"), InitProbe.class).toString()));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!Path.of(e).toString().equals(ctx.own())) {
                cp.add(e);
            }
        }
        boolean archivable = cp.stream().noneMatch(e -> Files.isDirectory(Path.of(e)));
        String probeJar = cp.get(0);
        List<String> probe = probeOn(java, String.join(File.pathSeparator, cp));
        Histogram[] plainInit = initRounds("startup.init", rounds, probe);
        String archived = "";
        if (Runtime.version().feature() >= 25 && archivable) {
            Path cache = dir.resolve("init.aot");
            Progress.print("startup.init: a first run writes an AOT cache");
            initRounds("startup.init: training", 1, withJvmOptions(probe, List.of("-XX:AOTCacheOutput=" + cache)));
            if (Files.exists(cache)) {
                Histogram fromCache = initRounds("startup.init from the AOT cache", rounds,
                        withJvmOptions(probe, fromCache("-XX:AOTCache=" + cache)))[0];
                archived = String.format("; started from a JDK 25 AOT cache a run of the probe wrote (as an"
                        + " embedding application can): p50 %.1f ms", fromCache.getValueAtPercentile(50) / 1e6);
            }
        }
        String ab = "";
        if (against != null && jar != null) {
            // The probe on each build's classes (its server jar holds them and their dependencies), in turn.
            try {
                Histogram[][] both = initRoundsInTurn("startup.init: this build and --against in turn", rounds, List.of(
                        probeOn(java, probeJar + File.pathSeparator + jar),
                        probeOn(java, probeJar + File.pathSeparator + against)));
                double ours50 = both[0][0].getValueAtPercentile(50) / 1e6;
                double other50 = both[1][0].getValueAtPercentile(50) / 1e6;
                ab = String.format("; on the server jars' classes, in turn with the --against jar: p50 %.1f ms,"
                        + " --against %.1f ms (ours %+.1f ms)", ours50, other50, ours50 - other50);
            } catch (IllegalStateException e) { // the other build's classes do not fit this probe
                ab = "; --against left out of startup.init: " + e.getMessage();
            }
        } else if (against != null) {
            ab = "; --against left out: this build has no server jar to compare it with";
        }
        double i50 = plainInit[0].getValueAtPercentile(50) / 1e6;
        return ServerFixture.row("startup", "startup.init", "ms", null, plainInit[0], null, ServerFixture.peers(),
                String.format("in a fresh JVM whose logging is already up and has logged (the embedding application's), main() to"
                        + " a bot (bus, router, pipeline, module host, a module) that answered its first command;"
                        + " target <= 30 ms: %s (p50 %.1f ms). The same again in that JVM, its classes loaded: p50"
                        + " %.2f ms (the rest of the first is loading, linking and first running those classes)%s",
                        i50 <= 30 ? "met" : "MISSED", i50, plainInit[1].getValueAtPercentile(50) / 1e6, archived)
                        + ab);
    }

    /** The init probe's command on {@code classPath} (the probe's jar first, then PulseBus and its dependencies). */
    private static List<String> probeOn(String java, String classPath) {
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", classPath, InitProbe.class.getName());
    }

    /** {@code rounds} runs of the init probe: its first bot's time, and the second's. */
    private static Histogram[] initRounds(String label, int rounds, List<String> command) throws Exception {
        return initRoundsInTurn(label, rounds, List.of(command))[0];
    }

    /**
     * {@code rounds} runs of each init probe in turn, the order reversed every other round; per probe, in
     * the order given: its first bot's times, and the second's.
     */
    private static Histogram[][] initRoundsInTurn(String label, int rounds, List<List<String>> commands) throws Exception {
        int n = commands.size();
        Histogram[][] h = new Histogram[n][2];
        for (Histogram[] pair : h) {
            pair[0] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            pair[1] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        }
        Pattern times = Pattern.compile("init_ns (\\d+) again_ns (\\d+)");
        for (int i = 0; i < rounds; i++) {
            Progress.print(label + ": round " + (i + 1));
            for (int k = 0; k < n; k++) {
                int c = i % 2 == 0 ? k : n - 1 - k;
                Process p = new ProcessBuilder(commands.get(c)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                Thread watchdog = watchdog(p); // a probe that hangs would block readAllBytes
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor();
                watchdog.interrupt();
                Matcher m = times.matcher(out);
                if (!m.find()) {
                    throw new IllegalStateException("the init probe printed no time: " + out);
                }
                h[c][0].recordValue(Long.parseLong(m.group(1)));
                h[c][1].recordValue(Long.parseLong(m.group(2)));
            }
        }
        return h;
    }

    /**
     * {@code java} and the flags {@code ./pulsebus} gives the server on this JDK (keep the two in step):
     * native access for SQLite's driver, and on JDK 24+ the flag that keeps Netty on its {@code Unsafe}
     * buffer paths.
     */
    static List<String> jvm(String java) {
        List<String> flags = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 24) {
            flags.add(BenchMain.ALLOW_UNSAFE);
        }
        return flags;
    }

    /**
     * The options of a start from a cache, as {@code ./pulsebus} gives them: on JDK 25 with two cores or
     * fewer, without the replay of the training run's method profiles (see the launcher).
     */
    static List<String> fromCache(String cacheOption) {
        List<String> options = new ArrayList<>(List.of(cacheOption));
        if (Runtime.version().feature() == 25 && Runtime.getRuntime().availableProcessors() <= 2) {
            options.addAll(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTReplayTraining"));
        }
        return options;
    }

    /**
     * A bare Netty server: a jar of the do-nothing server ({@link BareNetty}, {@link NoopServer}) and
     * Netty's jars from this JVM's class path.
     */
    @SuppressWarnings("StringSplitter") // a class path has no empty entries to keep
    static String bareNettyClassPath(Path dir) throws IOException {
        List<String> cp = new ArrayList<>(List.of(jarOf(dir.resolve("bare-netty.jar"), BareNetty.class, NoopServer.class)
                .toString()));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (Path.of(e).getFileName().toString().startsWith("netty-")) {
                cp.add(e);
            }
        }
        return String.join(File.pathSeparator, cp);
    }

    /**
     * A jar at {@code jar} of {@code classes} and their nested classes, taken from this JVM's class files.
     * A jar, not the classes folder: the JVM archives no class path with a non-empty directory in it.
     */
    private static Path jarOf(Path jar, Class<?>... classes) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> c : classes) {
                String folder = c.getPackageName().replace('.', '/') + "/";
                try (var files = Files.list(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
                        .resolve(folder))) {
                    for (Path f : files.filter(f -> f.getFileName().toString().startsWith(c.getSimpleName())).toList()) {
                        out.putNextEntry(new JarEntry(folder + f.getFileName()));
                        Files.copy(f, out);
                        out.closeEntry();
                    }
                } catch (java.net.URISyntaxException | java.nio.file.FileSystemNotFoundException e) {
                    throw new IOException("cannot find the classes of " + c, e);
                }
            }
        }
        return jar;
    }

    /** One thing to launch: its command ({@code java} first), where it runs (null: here) and its data. */
    private record Launch(List<String> command, Path workDir, Path dataDir) {
    }

    /**
     * One warm-up launch of each, then {@code rounds} timed rounds of all of them in turn, in the order
     * given and reversed every other round (so that what one leaves behind, a flush or a cold cache, does
     * not always fall on the same one): on a machine whose speed drifts from minute to minute, a drift
     * touches both alike rather than whichever was measured during it. One histogram per launch, in the
     * order given.
     */
    private static Histogram[] interleaved(String label, int rounds, List<Launch> launches) throws Exception {
        int n = launches.size();
        Histogram[] h = new Histogram[n];
        for (int l = 0; l < n; l++) {
            h[l] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        }
        for (int i = 0; i < rounds + 1; i++) {
            Progress.print(label + ": round " + (i + 1) + " of " + (rounds + 1) + " (" + n + " launches in turn)");
            for (int k = 0; k < n; k++) {
                int l = i % 2 == 0 ? k : n - 1 - k; // every other round the other way round
                Launch launch = launches.get(l);
                // A restart: the warm-up round made the database.
                long t = coldToReady(launch.command(), launch.workDir(), launch.dataDir(), false);
                if (i > 0) {
                    h[l].recordValue(t);
                }
            }
        }
        return h;
    }

    /** A first run with {@code option}: answers /health (with {@code exercise} a say and a scrape too), exits, writes its cache. */
    private static void train(List<String> command, String option, Path workDir, Path dataDir, boolean exercise)
            throws Exception {
        coldToReady(withJvmOptions(command, List.of(option)), workDir, dataDir, exercise);
    }

    /** {@code command} ({@code java} first) with {@code options} after {@code java}, before -jar or the main class. */
    private static List<String> withJvmOptions(List<String> command, List<String> options) {
        List<String> cmd = new ArrayList<>(command.subList(0, 1));
        cmd.addAll(options);
        cmd.addAll(command.subList(1, command.size()));
        return cmd;
    }

    /** {@code java -jar jar} with the flags {@code ./pulsebus} gives it, run from {@code root} (null: here). */
    private static List<String> serverCommand(String java, Path root, Path jar) {
        List<String> cmd = new ArrayList<>(jvm(java));
        if (root != null) {
            cmd.add("-Dlogback.configurationFile=config/logback.xml"); // as ./pulsebus passes it
        }
        cmd.addAll(List.of("-jar", jar.toString()));
        return cmd;
    }

    /** A server row from its rounds: ours, bare Netty's and, with {@code --against}, the other build's. */
    private static Row startRow(String name, Histogram[] rounds, double nettyThenMs, double targetMs, String what) {
        Histogram ours = rounds[0];
        double p50 = ours.getValueAtPercentile(50) / 1e6;
        double bare50 = rounds[1].getValueAtPercentile(50) / 1e6;
        double scaled = targetMs * bare50 / nettyThenMs;
        String note = String.format(
                "%s; p50 %.0f ms, bare Netty %.0f ms (%.2fx). Target <= %.0f ms where bare Netty took %.0f ms"
                        + " (%.2fx): as written %s; scaled by this run's bare Netty (<= %.0f ms) %s",
                what, p50, bare50, p50 / bare50, targetMs, nettyThenMs, targetMs / nettyThenMs,
                p50 <= targetMs ? "met" : "MISSED", scaled, p50 <= scaled ? "met" : "MISSED");
        Map<String, Double> peers = ServerFixture.peers("bare_netty", 1e3 / bare50);
        if (rounds.length > 2) {
            double other50 = rounds[2].getValueAtPercentile(50) / 1e6;
            peers.put("against", 1e3 / other50);
            note += String.format("; the --against jar in the same rounds: p50 %.0f ms (ours %+.0f ms)", other50,
                    p50 - other50);
        }
        return ServerFixture.row("startup", name, "ms", 1e3 / p50, ours, null, peers, note);
    }

    /**
     * Launches the command and returns the nanoseconds until /health answered 200; with {@code exercise},
     * also a say and a scrape (a training run). Then stops it with SIGTERM and waits for it to exit (a
     * training run writes its cache on the way out).
     */
    private static long coldToReady(List<String> command, Path workDir, Path dataDir, boolean exercise) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--port", "0", "--data-dir", dataDir.toString())); // bare Netty ignores them
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        if (workDir != null) {
            pb.directory(workDir.toFile());
        }
        long t0 = System.nanoTime();
        Process p = pb.start();
        Thread watchdog = watchdog(p); // a server that hangs before it prints its URL would block readLine
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            URI url = null;
            for (String line; url == null && (line = out.readLine()) != null; ) {
                Matcher m = ServerFixture.LISTENING.matcher(line);
                if (m.find()) {
                    url = URI.create(m.group(1));
                }
            }
            if (url == null) {
                throw new IOException("the server did not start: " + String.join(" ", cmd));
            }
            long ready;
            try (RawHttp http = new RawHttp(url.getHost(), url.getPort())) {
                if (http.exchange("GET", "/health", null).status() != 200) {
                    throw new IOException("/health did not answer 200");
                }
                ready = System.nanoTime() - t0;
                if (exercise) {
                    http.exchange("POST", "/api/rooms/startup/messages", "{\"user\":\"bench\",\"text\":\"/roll 6\"}");
                    http.exchange("GET", "/api/rooms/startup/messages?limit=10", null);
                    http.exchange("GET", "/metrics", null);
                }
            }
            Thread drain = Thread.ofVirtual().start(() -> { // keeps a chatty child from blocking on a full pipe
                try {
                    out.transferTo(java.io.Writer.nullWriter());
                } catch (IOException ignored) {
                    // the process went away
                }
            });
            p.destroy();
            if (!p.waitFor(exercise ? 120 : 30, TimeUnit.SECONDS)) {
                throw new IOException("the process did not exit after SIGTERM: " + String.join(" ", cmd));
            }
            drain.join();
            return ready;
        } finally {
            watchdog.interrupt();
            p.destroyForcibly();
        }
    }

    /** Stops {@code p} after 2 minutes unless it exits first or the returned thread is interrupted. */
    private static Thread watchdog(Process p) {
        return Thread.ofVirtual().start(() -> {
            try {
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException ignored) {
                // done in time
            }
        });
    }

    /** The checkout holding {@code <checkout>/framework-http/target/pulsebus-server.jar}, or null. */
    private static Path checkout(Path jar) {
        Path target = jar.getParent();
        Path module = target == null ? null : target.getParent();
        Path root = module == null ? null : module.getParent();
        return root != null && Files.isDirectory(root.resolve("config")) ? root : null;
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
