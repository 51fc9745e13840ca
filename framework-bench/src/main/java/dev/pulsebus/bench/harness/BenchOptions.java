package dev.pulsebus.bench.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The benchmark's command line. */
public final class BenchOptions {

    static final Set<String> BACKENDS = Set.of("sqlite", "postgres", "mysql");

    static final String USAGE = """
            usage: BenchMain [--quick] [--suite NAME]... [--json FILE] [--compare FILE] [--html FILE]
                             [--markdown FILE] [--out DIR] [--backend NAME] [--keep] [--profile] [--against JAR]
                             [--report FILE]... [--alloc-budget FILE] [--history DIR [--trend]]
              --quick          about a quarter of the samples: a smoke run
              --suite NAME     run this suite (repeatable; default: all). Suites: %s
              --json FILE      also write the results to FILE (a baseline to keep)
              --compare FILE   compare with a baseline saved by --json; exit status 3 if a row regressed
              --html FILE      also write the HTML report to FILE (it always goes to DIR/results.html)
              --markdown FILE  also write the table as Markdown to FILE (repeatable); where FILE has the lines
                               <!-- bench:table:start --> and <!-- bench:table:end -->, only what is
                               between them is replaced (e.g. ../docs/BENCHMARKS.md); between
                               <!-- bench:headline:start --> and <!-- bench:headline:end -->, the
                               headline rows (as at the top of ../docs/BENCHMARKS.md); a file with
                               neither is written whole
              --out DIR        where results.json goes (default: target/bench)
              --backend NAME   storage backend for storage rows: sqlite (default), postgres, mysql
              --keep           keep the temporary data directory (its path is printed) for inspection
              --profile        record a JFR profile per suite in DIR/profile (open with JDK Mission Control)
              --against JAR    startup suite: another build's pulsebus-server.jar, launched in turn with
                               this one (same flags, its own cache) and reported beside it as the peer
                               'against'; startup.init runs its probe on both jars' classes in turn too
              --report FILE    run nothing: report the rows saved in FILE (repeatable: the files' rows in
                               the order given, e.g. one per suite) as a run would, with --compare,
                               --html and --markdown
              --alloc-budget FILE  fail (exit status 5) when a row allocates more per operation than FILE
                               allows (alloc-budget.json: 0 = nothing; else bytes with 10 %% headroom)
              --history DIR    keep this run in DIR (one file per run); the HTML draws each row's history
              --trend          with --history: flag rows that moved >= 3%% the same way in each of the
                               last 3 runs kept, with their series
              --help           this text
            """;

    final boolean quick;
    final List<String> suites;
    final Path json;
    final Path compare;
    final Path html;
    /** Where the table goes as Markdown ({@code --markdown}); empty for nowhere. */
    final List<Path> markdown;
    /** Saved results to report instead of running ({@code --report}); empty for a run. */
    final List<Path> reports;
    /** The allocation budget to hold the rows to ({@code --alloc-budget}), or null. */
    final Path allocBudget;
    /** Where runs are kept ({@code --history}), or null. */
    final Path history;
    /** Whether to report trends across the runs kept ({@code --trend}). */
    final boolean trend;
    final Path out;
    final String backend;
    final boolean keep;
    final boolean profile;
    /** Another build's server jar for the startup suite to compare with, or null. */
    final Path against;
    /**
     * The run's temporary data directory, set by
     * {@link BenchMain#run(BenchOptions, java.util.Map, java.util.List)}.
     */
    Path dataDir;

    /** A smoke run ({@code --quick}): fewer samples. */
    public boolean quick() {
        return quick;
    }

    /** The run's temporary data directory: each suite keeps its data under it. */
    public Path dataDir() {
        return dataDir;
    }

    /** Another build's server jar for the startup suite ({@code --against}), or null. */
    public Path against() {
        return against;
    }

    private BenchOptions(boolean quick, List<String> suites, Path json, Path compare, Path html, List<Path> markdown,
                         List<Path> reports, Path allocBudget, Path history, boolean trend, Path out,
                         String backend, boolean keep, boolean profile, Path against) {
        this.quick = quick;
        this.suites = List.copyOf(suites);
        this.json = json;
        this.compare = compare;
        this.html = html;
        this.markdown = List.copyOf(markdown);
        this.reports = List.copyOf(reports);
        this.allocBudget = allocBudget;
        this.history = history;
        this.trend = trend;
        this.out = out;
        this.backend = backend;
        this.keep = keep;
        this.profile = profile;
        this.against = against;
    }

    /** Thrown for a command line that cannot run; its message is meant for the user, with the usage. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static BenchOptions parse(String[] args, Set<String> knownSuites) throws UsageException {
        boolean quick = false;
        List<String> suites = new ArrayList<>();
        Path json = null;
        Path compare = null;
        Path html = null;
        List<Path> markdown = new ArrayList<>();
        List<Path> reports = new ArrayList<>();
        Path allocBudget = null;
        Path history = null;
        boolean trend = false;
        Path out = Path.of("target", "bench");
        String backend = "sqlite";
        boolean keep = false;
        boolean profile = false;
        Path against = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> quick = true;
                case "--trend" -> trend = true;
                case "--history" -> history = Path.of(value(args, ++i, a));
                case "--keep" -> keep = true;
                case "--profile" -> profile = true;
                case "--suite" -> {
                    String s = value(args, ++i, a);
                    if (!knownSuites.contains(s)) {
                        throw new UsageException("unknown suite '" + s + "'; this build has: "
                                + String.join(", ", knownSuites));
                    }
                    if (!suites.contains(s)) {
                        suites.add(s);
                    }
                }
                case "--json" -> json = Path.of(value(args, ++i, a));
                case "--compare" -> compare = Path.of(value(args, ++i, a));
                case "--html" -> html = Path.of(value(args, ++i, a));
                case "--markdown" -> markdown.add(Path.of(value(args, ++i, a)));
                case "--report" -> reports.add(Path.of(value(args, ++i, a)));
                case "--alloc-budget" -> {
                    allocBudget = Path.of(value(args, ++i, a));
                    if (!Files.isRegularFile(allocBudget)) {
                        throw new UsageException("--alloc-budget " + allocBudget + ": no such file");
                    }
                }
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--backend" -> {
                    backend = value(args, ++i, a);
                    if (!BACKENDS.contains(backend)) {
                        throw new UsageException("unknown backend '" + backend + "'; use sqlite, postgres or mysql");
                    }
                }
                case "--against" -> {
                    Path jar = Path.of(value(args, ++i, a));
                    if (!Files.isRegularFile(jar)) {
                        throw new UsageException("--against " + jar + ": no such file (a pulsebus-server.jar)");
                    }
                    against = jar.toAbsolutePath();
                }
                case "--help", "-h" -> throw new UsageException("");
                default -> throw new UsageException("unknown argument '" + a + "'");
            }
        }
        if (suites.isEmpty()) {
            suites.addAll(knownSuites);
        }
        if (against != null && !suites.contains("startup")) {
            throw new UsageException("--against is for the startup suite: add --suite startup");
        }
        if (!reports.isEmpty() && (quick || against != null || keep || profile)) {
            throw new UsageException("--report runs nothing: --quick, --keep, --profile and --against do not apply");
        }
        if (trend && history == null) {
            throw new UsageException("--trend reads the runs kept by --history DIR: add it");
        }
        return new BenchOptions(quick, suites, json, compare, html, markdown, reports, allocBudget, history, trend, out,
                backend, keep, profile, against);
    }

    private static String value(String[] args, int i, String flag) throws UsageException {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(flag + " needs a value");
        }
        return args[i];
    }
}
