package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.testing.OpenFiles;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A start that fails part way closes what it had opened: nothing of it stays open in the process. */
class FailedStartTest {

    @TempDir
    Path dir;

    @Test
    void aStartThatCannotListenLeavesNoDatabaseFileOpen() throws Exception {
        assumeTrue(OpenFiles.supported(), "open files are read from /proc/self/fd (Linux)");
        Path data = dir.resolve("data");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path file = Files.writeString(dir.resolve("pulsebus.toml"), """
                    [server]
                    port = %d
                    [storage]
                    data_dir = "%s"
                    """.formatted(taken.getLocalPort(), data.toString().replace("\\", "/")));
            ServerConfig config = ServerConfig.load(file, false, Map.of());

            assertThatThrownBy(() -> PulseBusServer.start(config)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
        assertThat(data.resolve("pulsebus.db")).as("storage was opened").exists();
        assertThat(OpenFiles.under(data)).as("files under the data directory still open").isEmpty();
    }

    /**
     * A failure after storage opened and before the listener (here: the configuration file turned
     * unreadable between reading the settings and the start) closes the storage too: it stayed open before.
     */
    @Test
    void aStartThatFailsBeforeListeningLeavesNoDatabaseFileOpen() throws Exception {
        assumeTrue(OpenFiles.supported(), "open files are read from /proc/self/fd (Linux)");
        Path data = dir.resolve("data");
        Path file = Files.writeString(dir.resolve("pulsebus.toml"), """
                [server]
                port = 0
                [storage]
                data_dir = "%s"
                """.formatted(data.toString().replace("\\", "/")));
        ServerConfig config = ServerConfig.load(file, false, Map.of());
        Files.writeString(file, "[server\nport = 0\n"); // broken once the settings were read

        assertThatThrownBy(() -> PulseBusServer.start(config)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 1");
        assertThat(data.resolve("pulsebus.db")).as("storage was opened").exists();
        assertThat(OpenFiles.under(data)).as("files under the data directory still open").isEmpty();
    }
}
