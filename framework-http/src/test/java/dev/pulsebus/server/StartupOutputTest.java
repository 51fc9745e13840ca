package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the server process prints on stderr while it starts and stops: nothing of SLF4J's own. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StartupOutputTest {

    @TempDir
    Path dir;

    @Test
    void aStartPrintsNoSlf4jReplayWarnings() throws Exception {
        Path stderr = dir.resolve("stderr.txt");
        for (int run = 1; run <= 2; run++) { // it was a race, which a cold start lost every time here
            try (ServerProcess server = new ServerProcess(ProcessBuilder.Redirect.to(stderr.toFile()),
                    "--port", "0", "--data-dir", dir.resolve("data").toString())) {
                assertThat(server.url).as("the server printed its URL").isNotNull();
                server.process.destroy();
                assertThat(server.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(Files.readString(stderr)).as("stderr of start " + run).doesNotContain("SLF4J");
        }
    }
}
