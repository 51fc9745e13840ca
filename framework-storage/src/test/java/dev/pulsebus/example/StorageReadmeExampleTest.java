package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.testing.DocExamples;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage page's example (docs/STORAGE.md) is {@link StorageExample}: shown verbatim, and it runs as shown. */
class StorageReadmeExampleTest {

    @TempDir
    Path dir;

    @Test
    void theStoragePageShowsTheCompiledExampleVerbatim() throws IOException {
        DocExamples.assertShown(Path.of("src/test/java/dev/pulsebus/example/StorageExample.java"), "docs/STORAGE.md");
    }

    @Test
    void storageExampleRunsAsTheReadmeSays() throws Exception {
        assertThat(DocExamples.printed(StorageExample::main, dir.toString())).containsExactly(
                "hits stored", "last city: Tokyo", "swapped: true", "keys: [hits, last-city, session]");
        assertThat(dir.resolve("pulsebus.db")).exists();
    }
}
