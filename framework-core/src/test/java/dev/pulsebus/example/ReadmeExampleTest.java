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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The documentation's examples are this package's classes, compiled by the build: the README shows
 * {@link EmbeddingExample}, {@code docs/COMMANDS.md} {@link CommandExample} and {@code docs/MODULES.md}
 * {@link ModuleExample}, each verbatim (from its first import on), and they must run as the pages say.
 */
class ReadmeExampleTest {

    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "pulsebus", "example");

    @ParameterizedTest
    @CsvSource({"EmbeddingExample.java, README.md", "CommandExample.java, docs/COMMANDS.md",
            "ModuleExample.java, docs/MODULES.md"})
    void documentationShowsTheCompiledExampleVerbatim(String file, String page) throws IOException {
        String source = Files.readString(SOURCES.resolve(file));
        String body = source.substring(source.indexOf("import ")).strip();
        String text = Files.readString(Path.of("..").resolve(page));

        assertThat(text).as(page).contains("```java\n" + body + "\n```");
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
