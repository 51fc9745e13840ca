package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.testing.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A say in a cluster is stored by the instance holding its room: when that instance cannot store it (the database
 * does not answer), the instance that took it answers 503 ("not stored": the client may send it again), not 202
 * ("will be stored": do not send it again). Skipped, saying why, when a server is absent.
 */
@Timeout(120)
class ClusterSayTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void aSayTheHolderCannotStoreIsRefusedNotAccepted() throws Exception {
        try (TestCluster cluster = new TestCluster("ClusterSayTest"); TcpProxy database = new TcpProxy(5432)) {
            PulseBusServer a = cluster.start(dir, "a", "", database.port());
            assertThat(say(a, "/echo 1").statusCode()).isEqualTo(201);
            database.cut();
            Thread.sleep(300); // the seqs it took ahead have aged: the next one needs the database
            HttpResponse<String> refused = say(a, "/echo 2");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.body()).contains("not stored");
            database.restore();
        }
    }

    private static HttpResponse<String> say(PulseBusServer server, String text) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/api/rooms/lobby/messages"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"ann\",\"text\":\"" + text + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
