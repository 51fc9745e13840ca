package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage page's example (docs/STORAGE.md) is {@link StorageExample}: shown verbatim, and it runs as shown. */
class StorageReadmeExampleTest {

    @TempDir
    Path dir;

    @Test
    void theStoragePageShowsTheCompiledExampleVerbatim() throws IOException {
        String source = Files.readString(Path.of("src/test/java/dev/pulsebus/example/StorageExample.java"));
        String body = source.substring(source.indexOf("import ")).strip();
        assertThat(Files.readString(Path.of("..", "docs", "STORAGE.md"))).contains("```java\n" + body + "\n```");
    }

    @Test
    void storageExampleRunsAsTheReadmeSays() {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            StorageExample.main(new String[] {dir.toString()});
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "hits stored", "last city: Tokyo", "swapped: true", "keys: [hits, last-city, session]");
        assertThat(dir.resolve("pulsebus.db")).exists();
    }
}
