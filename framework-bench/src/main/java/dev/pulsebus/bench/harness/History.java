package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs kept one file each in a folder ({@code --history DIR}: {@code <time>-<commit>.json}, the run's
 * {@code results.json}), oldest first by name, and the trends across them: a row whose headline figure
 * (ops/s, else p50, else bytes per operation) moved at least {@link #TREND} the same way in each of the
 * last {@link #MOVES} runs is flagged, with its series. A slow leak of 3 % a run hides in any single
 * comparison's noise band; three of them in a row do not.
 */
final class History {

    static final double TREND = 0.03;
    static final int MOVES = 3;

    /** One row's trend: its last {@link #MOVES} + 1 figures, oldest first, and whether lower is better. */
    record Trend(String row, String figure, List<Double> series, boolean worse) {

        String render() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "  %-40s %s %s: ", row,
                    worse ? "WORSE" : "better", figure));
            for (int i = 0; i < series.size(); i++) {
                sb.append(i == 0 ? "" : " -> ").append(String.format(Locale.ROOT, "%.4g", series.get(i)));
                if (i > 0) {
                    sb.append(" (").append(Comparison.percent((series.get(i) - series.get(i - 1)) / series.get(i - 1)))
                            .append(')');
                }
            }
            return sb.toString();
        }
    }

    private final Path dir;

    History(Path dir) {
        this.dir = dir;
    }

    /** Keeps {@code results} as the newest run. */
    Path append(Results results) throws IOException {
        Files.createDirectories(dir);
        String time = results.meta().timestamp().replace(":", "").replace("-", "");
        String commit = results.meta().commit().replaceAll("[^A-Za-z0-9._-]", "_");
        Path file = dir.resolve(time + "-" + commit + ".json");
        results.write(file);
        return file;
    }

    /** Every run kept, oldest first. */
    List<Results> runs() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
        List<Results> runs = new ArrayList<>();
        for (Path f : files) {
            runs.add(Results.read(f));
        }
        return runs;
    }

    /** Each row's figures across {@code runs}, oldest first, where the row has its headline figure. */
    static Map<String, List<Double>> series(List<Results> runs) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Results run : runs) {
            for (Row r : run.results()) {
                Double v = headline(r);
                if (v != null) {
                    series.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(v);
                }
            }
        }
        return series;
    }

    /** The rows that moved at least 3 % the same way in each of the last three runs. */
    static List<Trend> trends(List<Results> runs) {
        Map<String, Row> last = new LinkedHashMap<>();
        runs.forEach(run -> run.results().forEach(r -> last.put(r.name(), r)));
        List<Trend> trends = new ArrayList<>();
        series(runs).forEach((row, values) -> {
            if (values.size() < MOVES + 1) {
                return;
            }
            List<Double> tail = values.subList(values.size() - MOVES - 1, values.size());
            int direction = 0;
            for (int i = 1; i < tail.size(); i++) {
                double before = tail.get(i - 1);
                double move = before == 0 ? 0 : (tail.get(i) - before) / Math.abs(before);
                int sign = move >= TREND ? 1 : move <= -TREND ? -1 : 0;
                if (sign == 0 || (direction != 0 && sign != direction)) {
                    return;
                }
                direction = sign;
            }
            Row r = last.get(row);
            boolean lowerIsBetter = r.opsPerSec() == null;
            trends.add(new Trend(row, figureName(r), List.copyOf(tail), lowerIsBetter == (direction > 0)));
        });
        return trends;
    }

    static String render(List<Trend> trends, int runs) {
        if (trends.isEmpty()) {
            return String.format(Locale.ROOT, "Trends over the last %d of %d runs kept: none (no row moved %.0f%% "
                    + "the same way %d times in a row)%n", MOVES + 1, runs, TREND * 100, MOVES);
        }
        return String.format(Locale.ROOT, "Trends over the last %d of %d runs kept (each move >= %.0f%%, the same "
                + "way):%n", MOVES + 1, runs, TREND * 100)
                + trends.stream().map(Trend::render).collect(Collectors.joining(System.lineSeparator()))
                + System.lineSeparator();
    }

    /** ops/s where the row has it, else its p50, else its bytes per operation. */
    static Double headline(Row r) {
        return r.opsPerSec() != null ? r.opsPerSec() : r.p50Us() != null ? r.p50Us() : r.allocBytesPerOp();
    }

    private static String figureName(Row r) {
        return r.opsPerSec() != null ? "ops/s" : r.p50Us() != null ? "p50 us" : "B/op";
    }
}
