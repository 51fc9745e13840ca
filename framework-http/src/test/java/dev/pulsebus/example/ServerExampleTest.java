package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.testing.DocExamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code docs/MODULES.md} shows {@link ServerExample} verbatim, and it starts a server from a configuration file. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerExampleTest {

    @TempDir
    Path dir;

    @Test
    void modulesPageShowsTheCompiledExampleVerbatim() throws Exception {
        DocExamples.assertShown(Path.of("src/test/java/dev/pulsebus/example/ServerExample.java"), "docs/MODULES.md");
    }

    @Test
    void serverExampleStartsFromTheFileItIsGiven() throws Exception {
        Path toml = dir.resolve("pulsebus.toml");
        Files.writeString(toml, "[server]\nport = 0\n[storage]\ndata_dir = \""
                + dir.resolve("data").toString().replace("\\", "\\\\") + "\"\n");

        assertThat(DocExamples.printed(ServerExample::main, toml.toString()))
                .anySatisfy(line -> assertThat(line).matches("listening on http://[^:]+:(?!8080)\\d+"));
        assertThat(Files.exists(dir.resolve("data"))).as("the file's data_dir was used").isTrue();
    }
}
