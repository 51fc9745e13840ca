package dev.pulsebus.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A real server on a free port with its data in {@code dir}, and a real HTTP client to talk to it. */
final class TestServer implements AutoCloseable {

    final PulseBusServer server;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    TestServer(Path dir, String extraToml) throws Exception {
        this(dir, extraToml, "");
    }

    /** {@code extraToml} goes after {@code [server]}'s port; {@code storageToml} into {@code [storage]}. */
    TestServer(Path dir, String extraToml, String storageToml) throws Exception {
        this(dir, extraToml, storageToml, UnaryOperator.identity());
    }

    /** The same, with the config read from the file then {@code adjusted} (for what no setting reaches). */
    TestServer(Path dir, String extraToml, String storageToml, UnaryOperator<ServerConfig> adjusted) throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, """
                [server]
                port = 0
                """ + extraToml + """

                [storage]
                data_dir = "%s"
                """.formatted(dir.resolve("data").toString().replace("\\", "/")) + storageToml);
        server = PulseBusServer.start(adjusted.apply(ServerConfig.load(file, false, Map.of())));
    }

    URI uri(String path) {
        return URI.create(server.url() + path);
    }

    /** {@code headers}: names and values, in turn. */
    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)), headers);
    }

    HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), headers);
    }

    HttpResponse<String> say(String room, String user, String text, String... headers)
            throws IOException, InterruptedException {
        return post("/api/rooms/" + room + "/messages", "{\"user\": \"" + user + "\", \"text\": \"" + text + "\"}",
                headers);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers)
            throws IOException, InterruptedException {
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Everything {@code in} gives until its end, as UTF-8 (a raw socket's answer, read until the server closes). */
    static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] b = new byte[4096];
        for (int n; (n = in.read(b)) >= 0; ) {
            buf.write(b, 0, n);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.close();
    }
}
