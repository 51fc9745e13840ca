package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchMainTest {

    @TempDir
    Path dir;

    private static Suite suite(String name, List<Row> rows, Exception failure) {
        return new Suite() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Row> run(BenchOptions options) throws Exception {
                if (failure != null) {
                    throw failure;
                }
                return rows;
            }
        };
    }

    private static Row row(String name) {
        return new Row("fine", name, "ops/s", 1e6, null, null, null, null, null, 0.0, 5, Map.of(), "");
    }

    @Test
    void aFailingSuiteIsNamedAndTheOtherSuitesKeepTheirRows() throws Exception {
        Map<String, Suite> suites = new LinkedHashMap<>();
        suites.put("before", suite("before", List.of(row("before.a")), null));
        suites.put("broken", suite("broken", List.of(), new SocketException("Too many open files")));
        suites.put("after", suite("after", List.of(row("after.a"), row("after.b")), null));
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.toString()}, suites.keySet());
        List<String> failed = new ArrayList<>();

        Results results = BenchMain.run(options, suites, failed);

        assertThat(results.results()).extracting(Row::name).containsExactly("before.a", "after.a", "after.b");
        assertThat(failed).containsExactly("broken");
    }

    @Test
    void savedResultsAreReportedTogetherInTheOrderGiven() throws Exception {
        Map<String, Suite> suites = new LinkedHashMap<>();
        suites.put("one", suite("one", List.of(row("one.a"), row("one.b")), null));
        suites.put("two", suite("two", List.of(row("two.a")), null));
        Path one = dir.resolve("one.json");
        Path two = dir.resolve("two.json");
        BenchMain.run(BenchOptions.parse(new String[] {"--suite", "one", "--out", dir.toString()}, suites.keySet()),
                suites, new ArrayList<>()).write(one);
        BenchMain.run(BenchOptions.parse(new String[] {"--suite", "two", "--out", dir.toString()}, suites.keySet()),
                suites, new ArrayList<>()).write(two);

        BenchOptions report = BenchOptions.parse(new String[] {"--report", two.toString(), "--report", one.toString()},
                suites.keySet());

        assertThat(BenchMain.saved(report.reports).results()).extracting(Row::name)
                .containsExactly("two.a", "one.a", "one.b");
    }
}
