package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.PostgresSchema;
import dev.pulsebus.testing.TcpProxy;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on PostgreSQL behind a TCP proxy the test cuts: /health turns DOWN (503) with the storage
 * component down (why, only to a client with the token), says fail with 503 instead of being acknowledged, the server keeps serving, and all
 * is UP again once the database is back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StorageDownTest {

    private static final String[] AUTH = {"Authorization", "Bearer s3cret"};

    @TempDir
    Path dir;

    @Test
    void healthReportsStorageDownAndTheServerRecovers() throws Exception {
        try (PostgresSchema schema = PostgresSchema.create("StorageDownTest"); TcpProxy proxy = new TcpProxy(5432)) {
            String url = schema.jdbcUrl(proxy.port());
            try (TestServer t = new TestServer(dir, "token = \"s3cret\"\n", "jdbc_url = \"" + url + "\"\n")) {
                assertThat(t.say("r", "ann", "before", AUTH).statusCode()).isEqualTo(201);
                proxy.cut();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                HttpResponse<String> down;
                do { // the background ping notices within about a second
                    Thread.sleep(100);
                    down = t.get("/health");
                } while (down.statusCode() != 503 && System.nanoTime() < until);
                assertThat(down.statusCode()).isEqualTo(503);
                assertThat(t.get("/health/ready").statusCode()).as("not ready without storage").isEqualTo(503);
                assertThat(t.get("/health/live").statusCode()).as("but alive: no restart for an outage").isEqualTo(200);
                JsonNode h = Json.MAPPER.readTree(down.body());
                assertThat(h.get("status").asText()).isEqualTo("DOWN");
                assertThat(h.at("/components/storage/status").asText()).isEqualTo("DOWN");
                assertThat(h.has("error")).as("no error text without the token: " + h).isFalse();
                assertThat(h.toString()).doesNotContain("127.0.0.1").doesNotContain(schema.name());
                HttpResponse<String> authed = t.get("/health", AUTH);
                assertThat(authed.statusCode()).isEqualTo(503);
                // why, from the last failed call or ping: for the operator, who has the token
                assertThat(Json.MAPPER.readTree(authed.body()).get("error").asText()).isNotBlank();
                assertThat(Json.MAPPER.readTree(authed.body()).at("/components/storage/details/error").asText())
                        .as("Spring Boot's place for it too").isNotBlank();
                assertThat(h.at("/components/storage/details").isMissingNode()).as("no details without the token").isTrue();
                assertThat(t.get("/metrics").body()).contains("pulsebus_component_up{component=\"storage\"} 0.0")
                        .contains("pulsebus_component_up{component=\"http\"} 1.0");
                assertThat(Json.MAPPER.readTree(t.get("/health").body()).has("error")).as("still hidden").isFalse();
                assertThat(Json.MAPPER.readTree(t.get("/health", "Authorization", "Bearer wrong").body()).has("error"))
                        .as("hidden from a wrong token").isFalse();

                proxy.restore();
                List<HttpResponse<String>> health = new ArrayList<>(List.of(t.get("/health")));
                Await.until(Duration.ofSeconds(30), Duration.ofMillis(200), () -> {
                    health.set(0, t.get("/health"));
                    return health.get(0).statusCode() == 200;
                });
                HttpResponse<String> up = health.get(0);
                assertThat(Json.MAPPER.readTree(up.body()).get("status").asText()).isIn("UP", "DEGRADED");
                assertThat(t.say("r", "ann", "after", AUTH).statusCode()).isEqualTo(201);
                assertThat(t.get("/health/ready").statusCode()).as("ready again").isEqualTo(200);
                JsonNode history = Json.MAPPER.readTree(t.get("/api/rooms/r/messages", AUTH).body()).get("messages");
                assertThat(history).extracting(m -> m.get("text").asText()).contains("before", "after");
            }
        }
    }

    /**
     * Closing while the database is down returns within server.shutdown_timeout_ms (it hung before: the
     * transcript writer retried for ever), and the say that was accepted but not stored is spilled under
     * the data directory and stored by the next start, before it serves.
     */
    @Test
    void closeDuringAnOutageReturnsInTimeAndTheNextStartStoresWhatWasSpilled() throws Exception {
        try (PostgresSchema schema = PostgresSchema.create("StorageDownTest"); TcpProxy proxy = new TcpProxy(5432)) {
            String storage = "jdbc_url = \"" + schema.jdbcUrl(proxy.port()) + "\"\n";
            TestServer t = new TestServer(dir, "shutdown_timeout_ms = 2000\n", storage);
            java.util.concurrent.CompletableFuture<HttpResponse<String>> during;
            try {
                assertThat(t.say("r", "ann", "before").statusCode()).isEqualTo(201);
                proxy.cut();
                during = t.client.sendAsync(java.net.http.HttpRequest.newBuilder(t.uri("/api/rooms/r/messages"))
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"user\":\"ann\",\"text\":\"during\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                Thread.sleep(500); // the writer has tried and failed by now
            } finally {
                t.server.close(); // returns: the test's timeout would catch a hang
            }
            assertThat(during.get(10, TimeUnit.SECONDS).statusCode()).as("taken, not stored yet").isEqualTo(202);
            assertThat(dir.resolve("data/spill")).isDirectoryContaining("glob:**/transcripts-*.jsonl");

            proxy.restore();
            try (TestServer again = new TestServer(dir, "", storage)) {
                JsonNode history = Json.MAPPER.readTree(again.get("/api/rooms/r/messages").body()).get("messages");
                assertThat(history).extracting(m -> m.get("text").asText()).containsExactly("before", "during");
                assertThat(dir.resolve("data/spill")).isEmptyDirectory();
            }
        }
    }

    @Test
    void aSqliteFileDeletedWhileRunningTurnsHealthDownAndSaysAreRefused() throws Exception {
        int kept;
        try (TestServer t = new TestServer(dir, "token = \"s3cret\"\n")) {
            assertThat(t.say("r", "ann", "before", AUTH).statusCode()).isEqualTo(201);
            for (String suffix : List.of("", "-wal", "-shm")) {
                java.nio.file.Files.deleteIfExists(dir.resolve("data").resolve("pulsebus.db" + suffix));
            }
            assertThat(Await.until(Duration.ofSeconds(10), Duration.ofMillis(100),
                    () -> t.get("/health").statusCode() == 503)).as("noticed within the health interval").isTrue();
            JsonNode h = Json.MAPPER.readTree(t.get("/health", AUTH).body());
            assertThat(h.at("/components/storage/status").asText()).isEqualTo("DOWN");
            assertThat(h.get("error").asText()).contains("deleted or replaced while open");
            // the first say after it is kept and stored later (202: spilled at shutdown, stored at the next start),
            // the ones after it are refused: none is acknowledged (201) into a file that is gone
            kept = t.say("r", "ann", "kept", AUTH).statusCode();
            assertThat(kept).isIn(202, 503);
            assertThat(Await.until(Duration.ofSeconds(10), Duration.ofMillis(100),
                    () -> t.say("r", "ann", "refused", AUTH).statusCode() == 503)).isTrue();
            assertThat(t.say("r", "ann", "refused", AUTH).statusCode()).isEqualTo(503);
        }
        try (TestServer t = new TestServer(dir, "token = \"s3cret\"\n")) { // the file at the path, opened again
            JsonNode history = Json.MAPPER.readTree(t.get("/api/rooms/r/messages", AUTH).body()).get("messages");
            assertThat(history).extracting(m -> m.get("text").asText()).doesNotContain("refused");
            if (kept == 202) {
                assertThat(history).extracting(m -> m.get("text").asText()).contains("kept");
            }
            assertThat(t.get("/health").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aPostgresqlSchemaRecreatedEmptyIsMigratedAgainAndTakesSays() throws Exception {
        try (PostgresSchema schema = PostgresSchema.create("StorageDownTest");
             TestServer t = new TestServer(dir, "token = \"s3cret\"\n", "jdbc_url = \"" + schema.jdbcUrl() + "\"\n")) {
            assertThat(t.say("r", "ann", "before", AUTH).statusCode()).isEqualTo(201);
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(PostgresSchema.ADMIN)) {
                c.createStatement().execute("DROP SCHEMA " + schema.name() + " CASCADE");
                c.createStatement().execute("CREATE SCHEMA " + schema.name());
            }
            assertThat(Await.until(Duration.ofSeconds(20), Duration.ofMillis(200),
                    () -> t.say("r", "ann", "after", AUTH).statusCode() == 201))
                    .as("migrated again without a restart").isTrue();
            JsonNode history = Json.MAPPER.readTree(t.get("/api/rooms/r/messages", AUTH).body()).get("messages");
            assertThat(history).extracting(m -> m.get("text").asText()).contains("after");
            assertThat(Await.until(Duration.ofSeconds(5), () -> t.get("/health").statusCode() == 200)).isTrue();
        }
    }
}
