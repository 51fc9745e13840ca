package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryTest {

    @TempDir
    Path dir;

    private static Results run(int n, double ops, double p50) {
        Meta meta = new Meta(String.format("2026-12-01T00:%02d:00Z", n), "0.1.0", "c" + n, "25.0.3", List.of(),
                "Linux", "EPYC", 2, "sqlite", false);
        return new Results(meta, List.of(
                new Row("event", "event.leaking", "ops/s", ops, null, null, null, null, null, 0.0, 5, Map.of(), ""),
                new Row("startup", "startup.slower", "us", null, p50, null, null, null, null, null, 5, Map.of(), "")));
    }

    @Test
    void threeMovesOfThreePercentTheSameWayAreATrendAndTwoAreNot() throws Exception {
        History history = new History(dir.resolve("history"));
        double[] ops = {100, 100, 96.5, 93.0, 89.9}; // steady, then three moves of about -3.5 %
        double[] p50 = {1000, 1000, 1000, 1040, 1080}; // two moves of +4 %: not yet
        for (int i = 0; i < ops.length; i++) {
            history.append(run(i, ops[i], p50[i]));
        }

        List<Results> kept = history.runs();
        List<History.Trend> trends = History.trends(kept);

        assertThat(kept).hasSize(5);
        assertThat(trends).singleElement().satisfies(t -> {
            assertThat(t.row()).isEqualTo("event.leaking");
            assertThat(t.worse()).isTrue();
            assertThat(t.series()).containsExactly(100.0, 96.5, 93.0, 89.9);
        });
        assertThat(History.render(trends, kept.size())).contains("event.leaking", "WORSE", "-3.5%");

        history.append(run(5, 89.0, 1125)); // a third +4 % start: now it is a trend too, getting worse
        assertThat(History.trends(history.runs())).extracting(History.Trend::row).containsExactly("startup.slower");
    }

    @Test
    void aRunWithHistoryKeepsItselfAndTheHtmlDrawsEachRowsLine() throws Exception {
        Path historyDir = dir.resolve("history");
        new History(historyDir).append(run(0, 100, 1000));
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.resolve("out").toString(),
            "--history", historyDir.toString(), "--trend"}, BenchOptionsTest.SUITES);

        assertThat(BenchMain.report(options, run(1, 101, 990), null)).isZero();

        List<Path> files = new ArrayList<>();
        try (var s = Files.list(historyDir)) {
            s.forEach(files::add);
        }
        assertThat(files).hasSize(2);
        assertThat(Files.readString(dir.resolve("out").resolve("results.html")))
                .contains("class=\"history\"", "over the last 2 runs kept", "<polyline");
    }
}
