package dev.pulsebus.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The documentation's code is the tests' code: a page shows an example source verbatim, from its first import on,
 * in a {@code java} block, so what a reader copies is what the build compiled and ran.
 */
public final class DocExamples {

    /** An example's {@code main}. */
    @FunctionalInterface
    public interface Main {
        void main(String[] args) throws Exception;
    }

    private DocExamples() {
    }

    /** Asserts that {@code page} (relative to the repository's root, the module's parent) shows {@code source}. */
    public static void assertShown(Path source, String page) throws IOException {
        String text = Files.readString(source);
        String body = text.substring(text.indexOf("import ")).strip();

        assertThat(Files.readString(Path.of("..").resolve(page))).as(page).contains("```java\n" + body + "\n```");
    }

    /** Runs an example's {@code main} with {@code args}, on this thread, and returns the lines it printed. */
    public static List<String> printed(Main main, String... args) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            main.main(args);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
