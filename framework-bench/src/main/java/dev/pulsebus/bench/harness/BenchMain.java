package dev.pulsebus.bench.harness;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The run of a benchmark: the command line, the chosen suites in turn, then {@code results.json}, the
 * HTML report and the printed table. {@link dev.pulsebus.bench.Bench} names the suites and is the entry
 * point ({@code mvn verify -Pbench [-Dbench.args="..."]}, with the JDK the build selected).
 *
 * <p>Exit status: 0 done, 1 a benchmark failed (the other suites' rows are still written), 2 a bad command
 * line, 3 a row regressed against {@code --compare}.
 */
public final class BenchMain {

    /** The forks' system property naming the storage backend ({@code --backend}). */
    static final String BACKEND_PROPERTY = "pulsebus.bench.backend";
    /** The forks' system property naming the run's temporary data directory. */
    static final String DIR_PROPERTY = "pulsebus.bench.dir";

    /** The JVM option (JDK 23+) that lets {@code sun.misc.Unsafe}'s memory access go unwarned; ./pulsebus gives it. */
    public static final String ALLOW_UNSAFE = "--sun-misc-unsafe-memory-access=allow";

    private BenchMain() {
    }

    /**
     * Puts Netty in this JVM on its {@code Unsafe} buffers, as a server started by ./pulsebus is: on JDK 24+ Netty
     * leaves {@code Unsafe} alone unless the JVM was given {@link #ALLOW_UNSAFE}, which Maven cannot pass (JDK 21
     * does not know it), and reads every byte of a direct buffer through checked ByteBuffer access. The servers of
     * the http, adapter, longpoll and cluster suites run in this JVM. Call before any Netty class loads; the JDK
     * then warns once that {@code Unsafe}'s memory access is deprecated.
     */
    public static void nettyAsTheServerRunsIt() {
        if (Runtime.version().feature() >= 24 && !Meta.hostVmArgs().contains(ALLOW_UNSAFE)) {
            System.setProperty("io.netty.noUnsafe", "false");
        }
    }

    /** The forks measure with this JVM's own flags plus a fixed heap, so runs compare. */
    static List<String> forkArgs(BenchOptions options) {
        List<String> args = forkArgs();
        args.add("-D" + BACKEND_PROPERTY + "=" + options.backend);
        if (options.dataDir != null) {
            args.add("-D" + DIR_PROPERTY + "=" + options.dataDir);
        }
        return args;
    }

    static List<String> forkArgs() {
        List<String> args = new ArrayList<>(Meta.hostVmArgs());
        args.removeIf(a -> a.startsWith("-Xms") || a.startsWith("-Xmx"));
        args.add("-Xms1g");
        args.add("-Xmx1g");
        if (Runtime.version().feature() >= 23) {
            args.add(ALLOW_UNSAFE); // JMH's own Unsafe use, and Netty's as in the server: no warning
        }
        return args;
    }

    /**
     * The whole command over {@code suites} (by name, in run order); returns the exit status (0 done, 1
     * failed, 2 bad command line, 3 regression).
     */
    public static int run(String[] args, Map<String, Suite> suites) {
        BenchOptions options;
        Results baseline = null;
        try {
            options = BenchOptions.parse(args, suites.keySet());
            if (options.compare != null) {
                baseline = readBaseline(options.compare);
            }
        } catch (BenchOptions.UsageException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("bench: " + e.getMessage());
            }
            System.err.printf(BenchOptions.USAGE, String.join(", ", suites.keySet()));
            return e.getMessage().isEmpty() ? 0 : 2;
        }
        Results results;
        List<String> failed = new ArrayList<>();
        try {
            results = options.reports.isEmpty() ? run(options, suites, failed) : saved(options.reports);
        } catch (Exception e) {
            System.err.println("bench: failed: " + e);
            e.printStackTrace();
            return 1;
        }
        int status = report(options, results, baseline);
        if (!failed.isEmpty()) {
            System.err.println("bench: " + failed.size() + " suite(s) failed, their rows are missing: "
                    + String.join(", ", failed));
            return 1;
        }
        return status;
    }

    /** The rows of {@code files} in the order given, with the first file's meta. */
    static Results saved(List<Path> files) throws BenchOptions.UsageException {
        Meta meta = null;
        List<Row> rows = new ArrayList<>();
        for (Path file : files) {
            Results r = readBaseline(file);
            meta = meta == null ? r.meta() : meta;
            rows.addAll(r.results());
        }
        return new Results(meta, rows);
    }

    static Results readBaseline(Path file) throws BenchOptions.UsageException {
        try {
            return Results.read(file);
        } catch (java.io.IOException e) {
            throw new BenchOptions.UsageException("cannot read results " + file + ": " + e.getMessage());
        }
    }

    /** Writes the JSON and HTML, prints the table (and the comparison); the exit status. */
    static int report(BenchOptions options, Results results, Results baseline) {
        Comparison comparison = baseline == null ? null : Comparison.of(baseline, results);
        List<Results> kept = List.of();
        try {
            if (options.history != null) {
                History history = new History(options.history);
                history.append(results);
                kept = history.runs();
            }
            Path file = options.out.resolve("results.json");
            results.write(file);
            if (options.json != null) {
                results.write(options.json);
            }
            List<String> graphs = FlameGraphs.render(options.out.resolve("profile")).stream()
                    .map(g -> options.out.relativize(g).toString()).toList();
            String html = HtmlReport.render(results, baseline, comparison, History.series(kept), graphs);
            Path htmlFile = options.out.resolve("results.html");
            java.nio.file.Files.writeString(htmlFile, html);
            if (options.html != null) {
                java.nio.file.Files.writeString(options.html, html);
            }
            for (java.nio.file.Path md : options.markdown) {
                MarkdownTable.write(md, results);
            }
            System.out.println();
            System.out.print(Table.render(results));
            if (comparison != null) {
                System.out.print(comparison.render());
            }
            if (options.trend) {
                System.out.print(History.render(History.trends(kept), kept.size()));
            }
            System.out.println("results: " + file.toAbsolutePath() + ", " + htmlFile.toAbsolutePath()
                    + (options.json != null ? ", " + options.json.toAbsolutePath() : "")
                    + (options.html != null ? ", " + options.html.toAbsolutePath() : "")
                    + options.markdown.stream().map(md -> ", " + md.toAbsolutePath()).collect(
                            java.util.stream.Collectors.joining()));
        } catch (java.io.IOException e) {
            System.err.println("bench: cannot write results: " + e);
            return 1;
        }
        if (comparison != null && comparison.anyRegression()) {
            System.err.println("bench: a row regressed against " + options.compare);
            return 3;
        }
        if (options.allocBudget != null) {
            List<String> over;
            try {
                over = AllocBudget.read(options.allocBudget).violations(results);
            } catch (java.io.IOException e) {
                System.err.println("bench: cannot read the allocation budget: " + e.getMessage());
                return 1;
            }
            if (!over.isEmpty()) {
                over.forEach(line -> System.err.println("bench: over the allocation budget: " + line));
                return 5;
            }
            System.out.println("allocation: every budgeted row within " + options.allocBudget);
        }
        List<String> unstable = results.results().stream().filter(Row::unstable).map(Row::name).toList();
        if (!unstable.isEmpty()) {
            System.err.println("bench: UNSTABLE (rounds more than " + Spread.UNSTABLE_RATIO + "x apart, not judged): "
                    + String.join(", ", unstable));
            return 4;
        }
        return 0;
    }

    /**
     * Runs the chosen suites in a temporary data directory of their own (never a real one), removed
     * afterwards unless {@code --keep}. A suite that fails is reported and named in {@code failed}; the
     * others still run and keep their rows.
     */
    static Results run(BenchOptions options, Map<String, Suite> suites, List<String> failed) throws Exception {
        Meta meta = Meta.current(options, forkArgs());
        List<Row> rows = new ArrayList<>();
        options.dataDir = java.nio.file.Files.createTempDirectory("pulsebus-bench-");
        try {
            int n = 0;
            long started = System.nanoTime();
            for (String name : options.suites) {
                n++;
                long left = 0;
                for (String rest : options.suites.subList(n - 1, options.suites.size())) {
                    left += estimateSeconds(rest, options.quick);
                }
                System.out.printf("%n=== suite %s (%d of %d)%s, about %d min left ===%n", name, n, options.suites.size(),
                        options.quick ? ", quick" : "", Math.max(1, Math.round(left / 60.0)));
                long t0 = System.nanoTime();
                try (Profile profile = Profile.start(options, name)) {
                    rows.addAll(suites.get(name).run(options));
                } catch (Exception e) {
                    System.err.println("bench: suite " + name + " failed: " + e);
                    e.printStackTrace();
                    failed.add(name);
                }
                System.out.printf("=== suite %s done in %d s (%d s so far) ===%n", name,
                        (System.nanoTime() - t0) / 1_000_000_000L, (System.nanoTime() - started) / 1_000_000_000L);
            }
        } finally {
            if (options.keep) {
                System.out.println("data kept in " + options.dataDir);
            } else {
                deleteTree(options.dataDir);
            }
        }
        return new Results(meta, rows);
    }

    /** Rough run time of a suite on the reference machine, for the progress line. */
    static long estimateSeconds(String suite, boolean quick) {
        long full = switch (suite) {
            case "config", "send", "module" -> 40;
            case "event" -> 130;
            case "router", "bridge" -> 90;
            case "storage" -> 170;
            case "http" -> 80;
            case "adapter" -> 150;
            case "longpoll", "overall", "startup" -> 45;
            case "cluster" -> 90;
            default -> 60;
        };
        return quick ? full / 3 : full;
    }

    /** A JFR recording of this JVM while a suite runs ({@code --profile}); JMH's forks record their own. */
    private static final class Profile implements AutoCloseable {
        private final jdk.jfr.Recording recording;
        private final Path file;

        private Profile(jdk.jfr.Recording recording, Path file) {
            this.recording = recording;
            this.file = file;
        }

        static Profile start(BenchOptions options, String suite) throws Exception {
            if (!options.profile) {
                return new Profile(null, null);
            }
            Path file = options.out.resolve("profile").resolve(suite + ".jfr");
            java.nio.file.Files.createDirectories(file.getParent());
            jdk.jfr.Recording r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            r.setName("pulsebus-" + suite);
            r.start();
            return new Profile(r, file);
        }

        @Override
        public void close() throws java.io.IOException {
            if (recording != null) {
                recording.stop();
                recording.dump(file);
                recording.close();
                System.out.println("profile: " + file.toAbsolutePath());
                for (Path graph : FlameGraphs.render(file.getParent())) {
                    System.out.println("flame graph: " + graph.toAbsolutePath());
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
        }
    }
}
