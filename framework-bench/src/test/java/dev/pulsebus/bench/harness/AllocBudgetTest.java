package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllocBudgetTest {

    @TempDir
    Path dir;

    private static Row row(String name, Double alloc) {
        return new Row("event", name, "ops/s", 1e6, null, null, null, null, null, alloc, 5, Map.of(), "");
    }

    private static Results results(Row... rows) {
        Meta meta = new Meta("2026-12-01T00:00:00Z", "0.1.0", "abc1234", "25.0.3", List.of(), "Linux", "EPYC", 2,
                "sqlite", true);
        return new Results(meta, List.of(rows));
    }

    private Path budget() throws Exception {
        Path file = dir.resolve("alloc-budget.json");
        Files.writeString(file, """
                {"rows": {"event.single_handler": 0, "router.command_hit": 88.0}}
                """);
        return file;
    }

    @Test
    void rowsWithinTheirBudgetPassAndTheProfilersRoundingIsNothing() throws Exception {
        AllocBudget b = AllocBudget.read(budget());

        assertThat(b.violations(results(row("event.single_handler", 0.0002), row("router.command_hit", 80.0),
                row("not.budgeted", 1e6), row("router.command_hit_no_alloc_figure", null)))).isEmpty();
    }

    @Test
    void anAllocationOverBudgetFailsTheQuickRunWithStatusFive() throws Exception {
        Path file = budget();
        AllocBudget b = AllocBudget.read(file);
        Results over = results(row("event.single_handler", 24.0), row("router.command_hit", 96.0));

        assertThat(b.violations(over)).containsExactly(
                "event.single_handler allocates 24.0 B/op, budget 0 (nothing)",
                "router.command_hit allocates 96.0 B/op, budget 88.0 B");
        BenchOptions options = BenchOptions.parse(new String[] {"--out", dir.resolve("out").toString(),
            "--alloc-budget", file.toString()}, BenchOptionsTest.SUITES);
        assertThat(BenchMain.report(options, over, null)).isEqualTo(5);
        assertThat(BenchMain.report(options, results(row("router.command_hit", 80.0)), null)).isZero();
    }

    @Test
    void theShippedBudgetHoldsTheZeroAllocationRowsAtNothing() throws Exception {
        AllocBudget shipped = AllocBudget.read(Path.of("alloc-budget.json"));

        assertThat(shipped.bytesPerOp()).containsEntry("event.single_handler", 0.0).containsEntry("event.flood_1000", 0.0)
                .containsEntry("event.ten_handlers", 0.0).containsEntry("router.command_miss", 0.0)
                .containsEntry("router.command_unknown", 0.0).containsEntry("storage.kv_get_hot", 0.0)
                .containsEntry("module.call", 0.0).containsEntry("config.get_hot", 0.0);
        assertThat(shipped.bytesPerOp().values()).allMatch(b -> b >= 0);
    }
}
