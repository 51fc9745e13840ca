package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "What you see" commands, run as a newcomer pastes them into bash, against a server whose data
 * directory has been used already: the poll must answer with the bot's reply to the say, not older messages.
 */
class ReadmeCurlTest {

    @TempDir
    Path dir;

    @Test
    void theReadmesCurlsShowTheRollsReplyOnAUsedDataDirectory() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")) && onPath("curl"), "needs bash and curl");
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher block = Pattern.compile("## What you see\\n.*?```\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("README.md has its 'What you see' commands").isTrue();
        try (TestServer t = new TestServer(dir, "")) {
            for (int i = 0; i < 3; i++) { // a data directory that has been used
                assertThat(t.say("lobby", "bob", "older message " + i).statusCode()).isEqualTo(201);
            }
            String script = block.group(1).replace("http://127.0.0.1:8080", t.server.url().toString().replaceAll("/$", ""));
            // to a file, not a pipe: /metrics alone can pass a pipe's 64 KB buffer, and bash would block on it
            Path output = dir.resolve("readme-curls.out");
            Process p = new ProcessBuilder("/bin/bash", "-eo", "pipefail", "-c", script).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String out = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).contains("\"status\":\"UP\"").contains("You rolled").doesNotContain("older message")
                    .contains("pulsebus_");
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
