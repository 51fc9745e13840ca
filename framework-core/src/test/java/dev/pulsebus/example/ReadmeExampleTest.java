package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's examples are this package's {@link EmbeddingExample} and {@link CommandExample}, compiled
 * by the build: the README must show them verbatim (from their first import on), and they must run as
 * the README says.
 */
class ReadmeExampleTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "pulsebus", "example");

    @ParameterizedTest
    @ValueSource(strings = {"EmbeddingExample.java", "CommandExample.java", "ModuleExample.java"})
    void readmeShowsTheCompiledExampleVerbatim(String file) throws IOException {
        String source = Files.readString(SOURCES.resolve(file));
        String body = source.substring(source.indexOf("import ")).strip();
        String readme = Files.readString(README);

        assertThat(readme).contains("```java\n" + body + "\n```");
    }

    @Test
    void embeddingExampleRunsAsTheReadmeSays() {
        assertThat(run(EmbeddingExample::main)).containsExactlyInAnyOrder("ann says hello", "stored: hello",
                "nobody handled: a string no one subscribed to");
    }

    @Test
    void commandExampleRunsAsTheReadmeSays() {
        assertThat(run(CommandExample::main)).containsExactly(
                "bot> Sunny in Tokyo",
                "/weather Tokyo -> OK",
                "bot> Slow down: try /weather again in 10 s.",
                "!W Paris -> COOLDOWN",
                "bot> argument 1: expected a number, got 'abc'. Usage: /roll <sides>",
                "/roll abc -> BAD_ARGS",
                "hello there -> NOT_COMMAND");
    }

    @Test
    void moduleExampleRunsAsTheReadmeSays() {
        assertThat(run(ModuleExample::main)).containsExactly("loaded weather", "loaded greeter",
                "Hello ann! Sunny in Tokyo", "still loaded: [weather]");
    }

    private static List<String> run(Consumer<String[]> main) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            main.accept(new String[0]);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
