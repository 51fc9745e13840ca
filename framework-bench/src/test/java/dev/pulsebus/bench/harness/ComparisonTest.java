package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ComparisonTest {

    @TempDir
    Path dir;

    private static Row row(String name, double ops, double alloc, Double p50) {
        return new Row("event", name, "ops/s", ops, p50, p50 == null ? null : p50 * 2, p50 == null ? null : p50 * 4,
                p50 == null ? null : p50 * 8, p50 == null ? null : p50 * 16, alloc, 5,
                Map.of("guava_eventbus", ops / 5), "a <note> & more");
    }

    private static Results results(Row... rows) {
        Meta meta = new Meta("2026-11-30T06:00:00Z", "0.1.0", "abc1234", "25.0.3", List.of(), "Linux", "EPYC", 2,
                "sqlite", false);
        return new Results(meta, List.of(rows));
    }

    private static final Results BASELINE = results(
            row("event.steady", 100e6, 0, null),
            row("event.slower", 100e6, 0, null),
            row("event.faster", 100e6, 0, null),
            row("event.allocates", 100e6, 0, null),
            row("event.edge", 100e6, 0, 10.0));

    @Test
    void changesWithinFivePercentAreNoiseAndBeyondAreVerdicts() {
        Results now = results(
                row("event.steady", 104e6, 0, null),     // +4 %: noise
                row("event.slower", 90e6, 0, null),      // -10 %: regression
                row("event.faster", 120e6, 0, null),     // +20 %: improvement
                row("event.allocates", 100e6, 24, null), // same speed, 24 B/op more: regression
                row("event.edge", 95.5e6, 0, 10.0),      // -4.5 %: noise
                row("event.brand_new", 1e6, 0, null));

        Comparison c = Comparison.of(BASELINE, now);

        assertThat(c.changes()).extracting(Comparison.Change::verdict).containsExactly(
                Comparison.Verdict.NOISE, Comparison.Verdict.REGRESSION, Comparison.Verdict.IMPROVEMENT,
                Comparison.Verdict.REGRESSION, Comparison.Verdict.NOISE, Comparison.Verdict.NEW);
        assertThat(c.changes().get(1).measure(Comparison.Figure.OPS).change())
                .isCloseTo(-0.10, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(c.anyRegression()).isTrue();
        assertThat(c.render()).contains("event.slower").contains("-10.0%").contains("REGRESSION");
    }

    /** A duration row as the startup, e2e and long-poll suites write it: no ops/s, latency in us. */
    private static Row duration(String name, Double p50Us, Double p99Us, Double bytes) {
        return new Row("startup", name, "ms", null, p50Us, null, p99Us, null, null, bytes, 20, Map.of(), "");
    }

    private static final Results DURATIONS = results(
            duration("startup.init", 24_000.0, 30_000.0, null),
            duration("startup.jvm_floor", 40_000.0, 45_000.0, null),
            duration("overall.e2e_roundtrip", 300.0, 1_200.0, 900.0),
            duration("longpoll.fanout_1000", 12_000.0, 15_000.0, null),
            duration("startup.quicker", 24_000.0, 30_000.0, null),
            duration("longpoll.memory_per_waiter", null, null, 2_400.0));

    @Test
    void rowsWithoutThroughputCompareOnTheirLatencyAndBytesLowerBeingBetter() {
        Results now = results(
                duration("startup.init", 30_000.0, 31_000.0, null),          // p50 +25 %: regression
                duration("startup.jvm_floor", 41_000.0, 46_000.0, null),     // +2.5 %, +2.2 %: noise
                duration("overall.e2e_roundtrip", 305.0, 1_500.0, 900.0),    // p99 +25 %: regression
                duration("longpoll.fanout_1000", 12_100.0, 15_000.0, 0.5),   // bytes only now: noise
                duration("startup.quicker", 20_000.0, 25_000.0, null),       // -17 %: improvement
                duration("longpoll.memory_per_waiter", null, null, 3_000.0)); // +25 % bytes: regression

        Comparison c = Comparison.of(DURATIONS, now);

        assertThat(c.changes()).extracting(Comparison.Change::verdict).containsExactly(
                Comparison.Verdict.REGRESSION, Comparison.Verdict.NOISE, Comparison.Verdict.REGRESSION,
                Comparison.Verdict.NOISE, Comparison.Verdict.IMPROVEMENT, Comparison.Verdict.REGRESSION);
        assertThat(c.changes().get(0).measure(Comparison.Figure.P50).change())
                .isCloseTo(0.25, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(c.changes().get(2).headline().figure()).isEqualTo(Comparison.Figure.P99);
        assertThat(c.render()).contains("startup.init").contains("p50 24000.0 us -> 30000.0 us +25.0%");
    }

    @Test
    void aSlowerStartFailsTheExitStatusAsAThroughputRegressionDoes() throws Exception {
        Path baselineFile = dir.resolve("baseline.json");
        DURATIONS.write(baselineFile);
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.toString(), "--compare",
            baselineFile.toString()}, BenchOptionsTest.SUITES);
        Results slowerStart = results(duration("startup.init", 26_000.0, 30_000.0, null));

        assertThat(BenchMain.report(options, slowerStart, BenchMain.readBaseline(baselineFile))).isEqualTo(3);
        assertThat(BenchMain.report(options, DURATIONS, BenchMain.readBaseline(baselineFile))).isZero();
    }

    @Test
    void noRegressionWhenEverythingHolds() {
        assertThat(Comparison.of(BASELINE, BASELINE).anyRegression()).isFalse();
    }

    @Test
    void reportExitsWithThreeOnARegressionAndWritesBothFiles() throws Exception {
        Path baselineFile = dir.resolve("baseline.json");
        BASELINE.write(baselineFile);
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.toString(), "--compare",
            baselineFile.toString(), "--html", dir.resolve("copy.html").toString()}, BenchOptionsTest.SUITES);
        Results worse = results(row("event.steady", 50e6, 0, null));

        int status = BenchMain.report(options, worse, BenchMain.readBaseline(baselineFile));

        assertThat(status).isEqualTo(3);
        assertThat(Results.read(dir.resolve("results.json"))).isEqualTo(worse);
        assertThat(Files.readString(dir.resolve("results.html"))).isEqualTo(Files.readString(dir.resolve("copy.html")));
        assertThat(BenchMain.report(options, BASELINE, BenchMain.readBaseline(baselineFile))).isZero();
    }

    /** A row whose five rounds lie around {@code median}, {@code spread} apart from lowest to highest (relative). */
    private static Row rounds(String name, double median, double spread) {
        double half = median * spread / 2;
        return row(name, median, 0, null).withRounds(List.of(median - half, median - half / 2, median,
                median + half / 2, median + half));
    }

    @Test
    void aTenPercentMoveWithinAThirtyPercentSpreadIsNoise() {
        Comparison c = Comparison.of(results(rounds("event.a", 100e6, 0.30)), results(rounds("event.a", 90e6, 0.30)));

        assertThat(c.changes()).singleElement().satisfies(ch -> {
            assertThat(ch.verdict()).isEqualTo(Comparison.Verdict.NOISE);
            assertThat(ch.headline().render()).contains("-10.0%").contains("spread ±15% -> ±15%");
        });
    }

    @Test
    void aTenPercentMoveWithATwoPercentSpreadIsARegression() {
        Comparison c = Comparison.of(results(rounds("event.a", 100e6, 0.02)), results(rounds("event.a", 90e6, 0.02)));

        assertThat(c.changes()).singleElement().extracting(Comparison.Change::verdict)
                .isEqualTo(Comparison.Verdict.REGRESSION);
    }

    @Test
    void aRowWhoseRoundsLieThreeTimesApartIsUnstableAndExitsWithFour() throws Exception {
        Row wild = row("event.a", 100e6, 0, null).withRounds(List.of(50e6, 80e6, 100e6, 120e6, 150e6));
        Path baselineFile = dir.resolve("baseline.json");
        results(rounds("event.a", 100e6, 0.02)).write(baselineFile);
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.toString(), "--compare",
            baselineFile.toString()}, BenchOptionsTest.SUITES);

        Comparison c = Comparison.of(BenchMain.readBaseline(baselineFile), results(wild));

        assertThat(wild.spread().max() / wild.spread().min()).isEqualTo(3.0);
        assertThat(c.changes()).singleElement().extracting(Comparison.Change::verdict)
                .isEqualTo(Comparison.Verdict.UNSTABLE);
        assertThat(Table.render(results(wild))).contains("UNSTABLE");
        assertThat(HtmlReport.render(results(wild), null, null)).contains("class=\"unstable\"");
        assertThat(BenchMain.report(options, results(wild), BenchMain.readBaseline(baselineFile))).isEqualTo(4);
    }

    @Test
    void roundsAndTheirSpreadAreKeptInTheJson() throws Exception {
        Row r = row("event.a", 100e6, 0, null).withRounds(List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0));
        Path file = dir.resolve("r.json");
        results(r).write(file);

        Row back = Results.read(file).results().get(0);
        assertThat(back.rounds()).hasSize(10);
        assertThat(back.spread()).isEqualTo(new Spread(1.0, 5.5, 10.0, 1.0, 10.0));
        assertThat(Results.JSON.readTree(file.toFile()).at("/results/0/spread/median").asDouble()).isEqualTo(5.5);
        assertThat(Spread.of(List.of(1.0, 2.0, 3.0)).ciLow()).as("too few rounds for an interval").isNull();
    }

    @Test
    void aMissingBaselineIsAUsageError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchMain.readBaseline(dir.resolve("nope.json")))
                .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("cannot read results");
    }

    @Test
    void htmlReportIsWellFormedAndSelfContained() throws Exception {
        Results then = results(row("event.slower", 100e6, 0, 10.0), row("event.steady", 100e6, 0, null));
        Results now = results(row("event.slower", 90e6, 0, 12.0), row("event.steady", 100e6, 0, null));
        String html = HtmlReport.render(now, then, Comparison.of(then, now));

        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));

        NodeList rows = doc.getElementsByTagName("tr");
        assertThat(rows.getLength()).isEqualTo(3); // header + two rows
        assertThat(((Element) rows.item(1)).getAttribute("class")).isEqualTo("regression");
        assertThat(((Element) rows.item(2)).getAttribute("class")).isEqualTo("noise");
        assertThat(doc.getElementsByTagName("svg").getLength()).isEqualTo(3); // 2 throughput + 1 latency
        assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(2); // ours and the baseline's
        assertThat(html).doesNotContain("http://cdn").doesNotContain("<script").contains("a &lt;note&gt; &amp; more");
    }
}
