package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server as a process: started by its main class with --port 0 (it prints the chosen URL), stopped
 * with SIGTERM while polls wait and says are in flight. It answers the polls, keeps every acknowledged
 * say, and exits 0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShutdownTest {

    @TempDir
    Path dir;

    @Test
    void sigtermReleasesPollsKeepsAcknowledgedSaysAndExitsZero() throws Exception {
        Path config = Files.writeString(dir.resolve("pulsebus.toml"), "[server]\nport = 8080\n");
        try (ServerProcess server = new ServerProcess(ProcessBuilder.Redirect.DISCARD, "--config", config.toString(),
                "--port", "0", "--data-dir", dir.resolve("data").toString())) {
            Process p = server.process;
            assertThat(server.url).as("the server printed its URL").isNotNull();
            URI url = server.url;

            HttpClient client = HttpClient.newHttpClient();
            CompletableFuture<HttpResponse<String>> poll = client.sendAsync(HttpRequest.newBuilder(
                    url.resolve("/api/rooms/lobby/poll?after=1000000&timeout_ms=60000")).build(),
                    HttpResponse.BodyHandlers.ofString());
            // parked before the SIGTERM: a poll still connecting then would only find the port closed
            assertThat(Await.until(Duration.ofSeconds(10), () -> waitingPolls(client, url) >= 1)).isTrue();
            List<CompletableFuture<HttpResponse<String>>> says = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                says.add(client.sendAsync(HttpRequest.newBuilder(url.resolve("/api/rooms/lobby/messages"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"ann\",\"text\":\"m" + i + "\"}")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            says.get(0).get(10, TimeUnit.SECONDS);
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            HttpResponse<String> released = poll.get(10, TimeUnit.SECONDS);
            assertThat(released.statusCode()).isIn(200, 204);

            Set<String> acknowledged = new HashSet<>();
            for (CompletableFuture<HttpResponse<String>> say : says) {
                try {
                    HttpResponse<String> r = say.get(10, TimeUnit.SECONDS);
                    if (r.statusCode() == 201) {
                        acknowledged.add(Json.MAPPER.readTree(r.body()).get("text").asText());
                    }
                } catch (Exception refusedOrCut) {
                    // not acknowledged: may or may not be stored
                }
            }
            assertThat(acknowledged).isNotEmpty();

            try (TestServer again = new TestServer(dir, "")) {
                Set<String> stored = new HashSet<>();
                for (JsonNode m : Json.MAPPER.readTree(again.get("/api/rooms/lobby/messages?limit=1000").body())
                        .get("messages")) {
                    stored.add(m.get("text").asText());
                }
                assertThat(stored).containsAll(acknowledged);
            }
        }
    }

    /** {@code pulsebus_longpoll_waiters} on the server's {@code /metrics}. */
    private static double waitingPolls(HttpClient client, URI url) throws Exception {
        String metrics = client.send(HttpRequest.newBuilder(url.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(l -> l.startsWith("pulsebus_longpoll_waiters"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
