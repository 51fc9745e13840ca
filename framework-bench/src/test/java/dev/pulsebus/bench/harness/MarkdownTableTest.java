package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownTableTest {

    @TempDir
    Path dir;

    private static Results run(double ops) {
        Row fast = new Row("event", "event.single_handler", "ops/s", ops, null, null, null, null, null, 0.0, 5,
                Map.of("guava_eventbus", 1.1e7), "");
        Row timed = new Row("startup", "startup.init", "ms", null, 9000.0, 9500.0, 12000.0, 13000.0, 14000.0, null, 3,
                Map.of(), "main() to a bot | its first command");
        Meta meta = new Meta("2026-11-30T06:00:00Z", "0.1.0", "abc1234", "25.0.3", List.of("-Xmx1g"),
                "Linux 6.x", "AMD EPYC", 2, "sqlite", false);
        return new Results(meta, List.of(fast, timed));
    }

    @Test
    void rendersEveryRowWithItsPeersRatiosAndNotes() {
        String md = MarkdownTable.render(run(5.1e7));

        assertThat(md).contains("| row | ops/s | p50 µs | p99 µs | p99.9 µs | max µs | B/op | guava_eventbus |")
                .contains("|:---|---:|---:|---:|---:|---:|---:|---:|")
                .contains("| `event.single_handler` | 51.0 M | - | - | - | - | 0.0 | 11.0 M (4.64x) |")
                .contains("| `startup.init` | - | 9000 | 12000 | 13000 | 14000 | - | - |")
                .contains("- `startup.init`: main() to a bot \\| its first command")
                .contains("PulseBus 0.1.0 (abc1234) on JDK 25.0.3");
    }

    @Test
    void betweenTheMarkersOnlyTheTableIsReplaced() throws Exception {
        Path doc = dir.resolve("BENCHMARKS.md");
        String before = "# Benchmarks\n\nHow we measure.\n\n" + MarkdownTable.START + "\nan old table\n"
                + MarkdownTable.END + "\n\n## Peers\n\nGuava's EventBus.\n";
        Files.writeString(doc, before);

        MarkdownTable.write(doc, run(5.1e7));
        String once = Files.readString(doc);
        MarkdownTable.write(doc, run(6.2e7));
        String twice = Files.readString(doc);

        assertThat(once).startsWith("# Benchmarks\n\nHow we measure.\n\n" + MarkdownTable.START + "\n")
                .endsWith(MarkdownTable.END + "\n\n## Peers\n\nGuava's EventBus.\n")
                .contains("51.0 M").doesNotContain("an old table");
        assertThat(twice).isEqualTo(once.replace("51.0 M", "62.0 M").replace("(4.64x)", "(5.64x)"));
        assertThat(Files.list(dir)).containsExactly(doc); // the temp file was moved into place
    }

    @Test
    void betweenTheHeadlineMarkersGoTheHeadlineRowsWithTheTablesFigures() throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, "# PulseBus\n\n" + MarkdownTable.HEADLINE_START + "\nold\n" + MarkdownTable.HEADLINE_END
                + "\n\nMore.\n");

        MarkdownTable.write(readme, run(5.1e7));

        assertThat(readme).hasContent("# PulseBus\n\n" + MarkdownTable.HEADLINE_START + "\n"
                + "PulseBus 0.1.0 (abc1234) on JDK 25.0.3, AMD EPYC, 2 cores, Linux 6.x, backend sqlite, 2026-11-30T06:00:00Z\n\n"
                + "| row | PulseBus | peers in the same run |\n|:---|:---|:---|\n"
                + "| `event.single_handler` | 51.0 M ops/s, 0.0 B/op | guava_eventbus 11.0 M (4.64x) |\n"
                + MarkdownTable.HEADLINE_END + "\n\nMore.\n");
    }

    /**
     * docs/BENCHMARKS.md's headline rows and its table are both generated from the one results file kept in
     * docs/bench (see its "Current figures"): neither can be edited by hand, nor regenerated from another run
     * alone, without this failing.
     */
    @Test
    void theBenchmarksPagesHeadlineAndTableShowTheSameRunsFigures() throws Exception {
        Results kept = Results.read(Path.of("..", "docs", "bench", "results.json"));
        String page = Files.readString(Path.of("..", "docs", "BENCHMARKS.md"));

        assertThat(page).contains(MarkdownTable.HEADLINE_START + "\n" + MarkdownTable.renderHeadline(kept)
                + MarkdownTable.HEADLINE_END);
        assertThat(page).contains(MarkdownTable.START + "\n" + MarkdownTable.render(kept) + MarkdownTable.END);
    }

    @Test
    void aFileWithoutBothMarkersIsWrittenWhole() throws Exception {
        Path absent = dir.resolve("new.md");
        Path noMarkers = dir.resolve("notes.md");
        Path endOnly = dir.resolve("end-first.md");
        Files.writeString(noMarkers, "something else\n");
        Files.writeString(endOnly, MarkdownTable.END + "\n" + MarkdownTable.START + "\n");

        for (Path file : List.of(absent, noMarkers, endOnly)) {
            MarkdownTable.write(file, run(5.1e7));
        }

        String whole = MarkdownTable.START + "\n" + MarkdownTable.render(run(5.1e7)) + MarkdownTable.END + "\n";
        assertThat(absent).hasContent(whole);
        assertThat(noMarkers).hasContent(whole);
        assertThat(endOnly).hasContent(whole);
    }

    @Test
    void theFlagWritesTheFileBesideTheJson() throws Exception {
        Path doc = dir.resolve("docs").resolve("BENCHMARKS.md");
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.toString(), "--markdown", doc.toString()},
                BenchOptionsTest.SUITES);

        assertThat(BenchMain.report(options, run(5.1e7), null)).isZero();
        assertThat(Files.readString(doc)).contains("`event.single_handler`");
    }
}
