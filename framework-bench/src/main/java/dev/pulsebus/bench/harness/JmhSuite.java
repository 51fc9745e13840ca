package dev.pulsebus.bench.harness;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;
import org.openjdk.jmh.profile.LinuxPerfNormProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Mode;

/**
 * Runs an in-process suite through JMH, by a naming convention on the benchmark class's methods:
 * {@code <row>__pulsebus} is our throughput, {@code <row>__<peer>} a peer's on the same work, and
 * {@code <row>__pulsebus_round} the single operation whose latency distribution the row reports.
 *
 * <p>Throughput runs with JMH's GC profiler, whose {@code gc.alloc.rate.norm} (the median of the rounds') is
 * the row's bytes per operation. Latency runs in JMH's sample mode (every invocation timed, in microseconds).
 */
public final class JmhSuite implements Suite {

    static final String OURS = "pulsebus";
    private static final String ROUND = "__" + OURS + "_round";
    private static final String ALLOC = "gc.alloc.rate.norm";

    /**
     * A target from the issue that set it, checked (never asserted) and written into the row's note. Built
     * from {@link #atLeast} or {@link #ratioTo}, then narrowed by the bounds a row also has.
     */
    public static final class Target {
        private static final double NONE = -1; // a bound the target does not have

        /** At least {@code ratio} times {@code peer}'s throughput. */
        private record Ratio(String peer, double ratio) {
        }

        private final double minOpsPerSec;
        private final List<Ratio> ratios;
        private final double maxAllocBytes;
        private final double maxP99Us;

        private Target(double minOpsPerSec, List<Ratio> ratios, double maxAllocBytes, double maxP99Us) {
            this.minOpsPerSec = minOpsPerSec;
            this.ratios = List.copyOf(ratios);
            this.maxAllocBytes = maxAllocBytes;
            this.maxP99Us = maxP99Us;
        }

        /** At least {@code opsPerSec} of our throughput. */
        public static Target atLeast(double opsPerSec) {
            return new Target(opsPerSec, List.of(), NONE, NONE);
        }

        /** At least {@code ratio} times {@code peer}'s throughput in the same run, whatever ours is. */
        public static Target ratioTo(String peer, double ratio) {
            return atLeast(0).andRatioTo(peer, ratio);
        }

        /** This target, and at least {@code ratio} times {@code peer}'s throughput (each ratio added is checked). */
        public Target andRatioTo(String peer, double ratio) {
            List<Ratio> all = new ArrayList<>(ratios);
            all.add(new Ratio(peer, ratio));
            return new Target(minOpsPerSec, all, maxAllocBytes, maxP99Us);
        }

        /** This target, and at most {@code bytes} allocated per operation (1 B or less shown as ~0 B/op). */
        public Target allocAtMost(double bytes) {
            return new Target(minOpsPerSec, ratios, bytes, maxP99Us);
        }

        /** This target, and a p99 latency of at most {@code us} microseconds. */
        public Target p99AtMost(double us) {
            return new Target(minOpsPerSec, ratios, maxAllocBytes, us);
        }

        String check(Row row) {
            List<String> missed = new ArrayList<>();
            if (row.opsPerSec() == null || row.opsPerSec() < minOpsPerSec) {
                missed.add("ops/s");
            }
            StringBuilder wanted = new StringBuilder("target >= " + Table.si(minOpsPerSec) + " ops/s");
            for (Ratio r : ratios) {
                Double ratio = row.opsPerSec() == null ? null : row.ratioTo(r.peer()); // throughput only
                if (ratio == null || ratio < r.ratio()) {
                    missed.add("ratio to " + r.peer());
                }
                wanted.append(String.format(java.util.Locale.ROOT, r.ratio() * 10 % 1 == 0 ? ", >= %.1fx %s"
                        : ", >= %.2fx %s", r.ratio(), r.peer()));
            }
            if (maxAllocBytes >= 0 && (row.allocBytesPerOp() == null || row.allocBytesPerOp() > maxAllocBytes)) {
                missed.add("B/op");
            }
            if (maxP99Us >= 0 && (row.p99Us() == null || row.p99Us() > maxP99Us)) {
                missed.add("p99");
            }
            if (maxAllocBytes >= 0) {
                wanted.append(maxAllocBytes <= 1 ? ", ~0 B/op" : String.format(java.util.Locale.ROOT, ", <= %.0f B/op",
                        maxAllocBytes));
            }
            if (maxP99Us >= 0) {
                wanted.append(String.format(java.util.Locale.ROOT, ", p99 <= %.0f us", maxP99Us));
            }
            return wanted + (missed.isEmpty() ? ": met" : ": MISSED (" + String.join(", ", missed) + ")");
        }
    }

    /** One row: its short name (the method prefix), whether it has a latency method, its note, target. */
    public record RowSpec(String row, boolean latency, String note, Target target) {
    }

    private final String name;
    private final Class<?> benchmarks;
    private final List<String> peers;
    private final List<RowSpec> rows;

    public JmhSuite(String name, Class<?> benchmarks, List<String> peers, List<RowSpec> rows) {
        this.name = name;
        this.benchmarks = benchmarks;
        this.peers = List.copyOf(peers);
        this.rows = List.copyOf(rows);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        String cls = Pattern.quote(benchmarks.getName()) + "\\.";
        String who = String.join("|", concat(OURS, peers));
        Map<String, RunResult> byMethod = new HashMap<>();
        ChainedOptionsBuilder throughput = base(options)
                .include(cls + "[a-z0-9_]+__(" + who + ")$")
                .mode(Mode.Throughput).timeUnit(TimeUnit.SECONDS)
                .addProfiler(GCProfiler.class);
        if (PerfCounters.instructions() && !options.quick) {
            throughput.addProfiler(LinuxPerfNormProfiler.class);
        }
        collect(new Runner(throughput.build()).run(), byMethod);
        if (rows.stream().anyMatch(RowSpec::latency)) {
            ChainedOptionsBuilder latency = base(options)
                    .include(cls + "[a-z0-9_]+" + ROUND + "$")
                    .mode(Mode.SampleTime).timeUnit(TimeUnit.MICROSECONDS);
            collect(new Runner(latency.build()).run(), byMethod);
        }
        List<Row> out = new ArrayList<>();
        for (RowSpec spec : rows) {
            out.add(row(spec, byMethod));
        }
        return out;
    }

    private ChainedOptionsBuilder base(BenchOptions options) {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .forks(1)
                .threads(1)
                .shouldFailOnError(true)
                .jvmArgs(BenchMain.forkArgs(options).toArray(String[]::new));
        if (options.profile) {
            // One JFR file per benchmark method under DIR/profile (JMH's own JFR profiler, in the fork).
            b.addProfiler(JavaFlightRecorderProfiler.class,
                    "dir=" + options.out.resolve("profile").resolve(name).toAbsolutePath());
        }
        if (options.quick) {
            b.warmupIterations(2).warmupTime(TimeValue.milliseconds(250))
                    .measurementIterations(3).measurementTime(TimeValue.milliseconds(250));
        } else {
            b.warmupIterations(3).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(1));
        }
        return b;
    }

    private static void collect(Collection<RunResult> results, Map<String, RunResult> byMethod) {
        for (RunResult r : results) {
            BenchmarkParams params = r.getParams();
            String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            byMethod.put(method, r);
        }
    }

    private Row row(RowSpec spec, Map<String, RunResult> byMethod) {
        RunResult ours = byMethod.get(spec.row() + "__" + OURS);
        if (ours == null) {
            throw new IllegalStateException("benchmark " + spec.row() + "__" + OURS + " did not run");
        }
        Map<String, Double> peerOps = new LinkedHashMap<>();
        for (String peer : peers) {
            RunResult theirs = byMethod.get(spec.row() + "__" + peer);
            if (theirs != null) {
                peerOps.put(peer, median(theirs));
            }
        }
        String instructions = instructions(ours);
        Double allocPerOp = allocMedian(ours);
        Double p50 = null;
        Double p90 = null;
        Double p99 = null;
        Double p999 = null;
        Double max = null;
        RunResult round = byMethod.get(spec.row() + ROUND);
        if (spec.latency() && round != null) {
            Statistics s = round.getPrimaryResult().getStatistics();
            p50 = s.getPercentile(50);
            p90 = s.getPercentile(90);
            p99 = s.getPercentile(99);
            p999 = s.getPercentile(99.9);
            max = s.getMax();
        }
        String note = spec.note().isEmpty() ? instructions : spec.note() + "; " + instructions;
        Row row = new Row(name, name + "." + spec.row(), "ops/s", median(ours),
                p50, p90, p99, p999, max, allocPerOp,
                (int) ours.getPrimaryResult().getStatistics().getN(), peerOps, note).withRounds(rounds(ours));
        if (spec.target() == null) {
            return row;
        }
        String verdict = spec.target().check(row);
        return new Row(row.suite(), row.name(), row.unit(), row.opsPerSec(), p50, p90, p99, p999, max,
                allocPerOp, row.samples(), peerOps, note + "; " + verdict, row.rounds(), null);
    }

    /** Instructions per operation from perfnorm, or why there are none. */
    private static String instructions(RunResult r) {
        for (String key : r.getSecondaryResults().keySet()) {
            if (key.startsWith("instructions")) {
                Result<?> counted = r.getSecondaryResults().get(key);
                return String.format(java.util.Locale.ROOT, "%.0f instructions/op", counted.getScore());
            }
        }
        return PerfCounters.instructions() ? "instructions/op not counted in a quick run" : PerfCounters.NOT_COUNTED;
    }

    /** Each measured iteration's score, in the order run (every fork's). */
    private static List<Double> rounds(RunResult r) {
        List<Double> rounds = new ArrayList<>();
        for (BenchmarkResult b : r.getBenchmarkResults()) {
            for (IterationResult i : b.getIterationResults()) {
                rounds.add(i.getPrimaryResult().getScore());
            }
        }
        return rounds;
    }

    /** The median of the measured rounds (JMH iterations): what comparisons of noisy runs should use. */
    private static double median(RunResult r) {
        return r.getPrimaryResult().getStatistics().getPercentile(50);
    }

    /**
     * The median of the measured rounds' {@code gc.alloc.rate.norm}, or null without the GC profiler. Not their
     * mean: JMH counts the trial's tear-down in the last round (the router fixture's close allocates some 7 MB
     * there, 0.9 B/op of a 250 ms round at 34 M ops/s), and a quick run's three rounds would put a third of it on
     * a row that allocates nothing by itself.
     */
    private static @Nullable Double allocMedian(RunResult r) {
        List<Double> perRound = new ArrayList<>();
        for (BenchmarkResult b : r.getBenchmarkResults()) {
            for (IterationResult i : b.getIterationResults()) {
                Result<?> alloc = i.getSecondaryResults().get(ALLOC);
                if (alloc != null) {
                    perRound.add(alloc.getScore());
                }
            }
        }
        if (perRound.isEmpty()) {
            return null;
        }
        perRound.sort(null);
        int n = perRound.size();
        return n % 2 == 1 ? perRound.get(n / 2) : (perRound.get(n / 2 - 1) + perRound.get(n / 2)) / 2;
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
