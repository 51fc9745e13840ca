package dev.pulsebus.telegram;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The real server on a free port, its data in {@code dir}, with an {@code [adapters.telegram]} section. */
final class TelegramServers {

    private TelegramServers() {
    }

    /** {@code telegram}: the section's lines, after {@code [adapters.telegram]}. */
    static PulseBusServer start(Path dir, String telegram) throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, """
                [server]
                port = 0

                [storage]
                data_dir = "%s"

                [adapters.telegram]
                """.formatted(dir.resolve("data").toString().replace("\\", "/")) + telegram);
        return PulseBusServer.start(ServerConfig.load(file, false, Map.of()));
    }
}
