package dev.pulsebus.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's entry point: {@code mvn verify -Pbench [-Dbench.args="..."]} runs it with the JDK the
 * build selected. Writes {@code results.json} (the format of BENCH.md) and prints the table.
 *
 * <p>Exit status: 0 done, 1 a benchmark failed, 2 a bad command line.
 */
public final class BenchMain {

    private BenchMain() {
    }

    /** Every suite this build has, in run order. */
    static Map<String, Suite> suites() {
        Map<String, Suite> all = new LinkedHashMap<>();
        for (Suite suite : List.of(EventSuite.create(), RouterSuite.create(), BridgeSuite.bridge(),
                BridgeSuite.send())) {
            all.put(suite.name(), suite);
        }
        return all;
    }

    /** The forks measure with this JVM's own flags plus a fixed heap, so runs compare. */
    static List<String> forkArgs() {
        List<String> args = new ArrayList<>(Meta.hostVmArgs());
        args.removeIf(a -> a.startsWith("-Xms") || a.startsWith("-Xmx"));
        args.add("-Xms1g");
        args.add("-Xmx1g");
        if (Runtime.version().feature() >= 23) {
            args.add("--sun-misc-unsafe-memory-access=allow"); // JMH's own Unsafe use, not ours: no warning
        }
        return args;
    }

    public static void main(String[] args) {
        Map<String, Suite> suites = suites();
        BenchOptions options;
        try {
            options = BenchOptions.parse(args, suites.keySet());
        } catch (BenchOptions.UsageException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("bench: " + e.getMessage());
            }
            System.err.printf(BenchOptions.USAGE, String.join(", ", suites.keySet()));
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        try {
            Results results = run(options, suites);
            Path file = options.out.resolve("results.json");
            results.write(file);
            if (options.json != null) {
                results.write(options.json);
            }
            System.out.println();
            System.out.print(Table.render(results));
            System.out.println("results: " + file.toAbsolutePath()
                    + (options.json != null ? " and " + options.json.toAbsolutePath() : ""));
        } catch (Exception e) {
            System.err.println("bench: failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    static Results run(BenchOptions options, Map<String, Suite> suites) throws Exception {
        Meta meta = Meta.current(options, forkArgs());
        List<Row> rows = new ArrayList<>();
        int n = 0;
        for (String name : options.suites) {
            n++;
            System.out.printf("%n=== suite %s (%d of %d)%s ===%n", name, n, options.suites.size(),
                    options.quick ? ", quick" : "");
            rows.addAll(suites.get(name).run(options));
        }
        return new Results(meta, rows);
    }
}
