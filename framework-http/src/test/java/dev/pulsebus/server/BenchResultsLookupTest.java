package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which results file the console's Benchmark view shows for a server started in a checkout. */
class BenchResultsLookupTest {

    @TempDir
    Path checkout;

    private Path write(String name, Instant when) throws Exception {
        Path p = checkout.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "{\"results\": []}");
        Files.setLastModifiedTime(p, FileTime.from(when));
        return p;
    }

    @Test
    void noneWhenNeitherARunNorTheDocsLeftOne() {
        assertThat(AdminApi.latestBench(checkout)).isNull();
    }

    @Test
    void theDocsResultsUntilARunWritesNewerOnes() throws Exception {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        Path docs = write("docs/bench/results.json", t);
        assertThat(AdminApi.latestBench(checkout)).isEqualTo(docs);
        Path run = write("framework-bench/target/bench/results.json", t.plusSeconds(60));
        assertThat(AdminApi.latestBench(checkout)).isEqualTo(run);
        Files.setLastModifiedTime(docs, FileTime.from(t.plusSeconds(120))); // the docs' updated since
        assertThat(AdminApi.latestBench(checkout)).isEqualTo(docs);
    }

    @Test
    void aFolderOfThatNameIsNoResults() throws Exception {
        Files.createDirectories(checkout.resolve("docs/bench/results.json"));
        assertThat(AdminApi.latestBench(checkout)).isNull();
    }
}
