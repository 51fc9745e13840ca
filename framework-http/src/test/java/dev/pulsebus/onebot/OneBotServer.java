package dev.pulsebus.onebot;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import dev.pulsebus.testing.Await;
import dev.pulsebus.transcript.TranscriptRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The real server on a free port, configured with {@code toml} (OneBot sections), its data in a directory. */
final class OneBotServer implements AutoCloseable {

    final PulseBusServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    OneBotServer(Path dir, String toml) throws Exception {
        this(dir, "", toml);
    }

    /** {@code serverToml}: settings of {@code [server]} besides its port. */
    OneBotServer(Path dir, String serverToml, String toml) throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, """
                [server]
                port = 0
                """ + serverToml + """

                [storage]
                data_dir = "%s"

                """.formatted(dir.resolve("data").toString().replace("\\", "/")) + toml);
        server = PulseBusServer.start(ServerConfig.load(file, false, Map.of()));
    }

    URI ws(String path) {
        return URI.create("ws://127.0.0.1:" + server.port() + path);
    }

    URI http(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    OneBotAdapter adapter() {
        return server.adapters(OneBotAdapter.class).get(0);
    }

    String get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(http(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    int status(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(http(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }


    List<TranscriptRecord> history(ChatRef chat) throws Exception {
        return server.pipeline().history(chat, 100, Long.MAX_VALUE);
    }

    /** Whether the bot's message {@code messageId} (the platform's id) is recorded in {@code chat}, waiting up to 10 s. */
    boolean sent(ChatRef chat, String messageId) throws Exception {
        return Await.until(Duration.ofSeconds(10), () -> history(chat).stream()
                .anyMatch(r -> r.outbound() && r.messageId().equals(messageId)));
    }

    @Override
    public void close() {
        server.close();
    }
}
