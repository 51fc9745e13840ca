package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's embedding example is this package's {@link EmbeddingExample}, compiled by the build: the
 * README must show it verbatim (from its first import on), and it must run as the README says.
 */
class ReadmeExampleTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCE = Path.of("src", "test", "java", "dev", "pulsebus", "example",
            "EmbeddingExample.java");

    @Test
    void readmeShowsTheCompiledExampleVerbatim() throws IOException {
        String source = Files.readString(SOURCE);
        String body = source.substring(source.indexOf("import ")).strip();
        String readme = Files.readString(README);

        assertThat(readme).contains("```java\n" + body + "\n```");
    }

    @Test
    void exampleRunsAsTheReadmeSays() {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            EmbeddingExample.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8).lines())
                .containsExactlyInAnyOrder("ann says hello", "stored: hello",
                        "nobody handled: a string no one subscribed to");
    }
}
