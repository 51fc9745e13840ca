package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input gets its status and a JSON error saying what is wrong, and the server keeps
 * serving: each test ends by asking /health.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputTest {

    @TempDir
    Path dir;
    TestServer t;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer(dir, """
                max_body_bytes = 1024
                max_header_bytes = 2048
                max_connections = 20
                request_timeout_ms = 500
                token = "s3cret"
                """);
    }

    @AfterEach
    void stillServing() throws Exception {
        try {
            assertThat(t.get("/health").statusCode()).isEqualTo(200);
        } finally {
            t.close();
        }
    }

    private static String error(HttpResponse<String> r) throws Exception {
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json; charset=utf-8");
        JsonNode body = Json.MAPPER.readTree(r.body());
        assertThat(body.get("status").asInt()).isEqualTo(r.statusCode());
        return body.get("error").asText();
    }

    private HttpResponse<String> authed(HttpRequest.Builder b) throws Exception {
        return t.client.send(b.header("Authorization", "Bearer s3cret").build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> sayRaw(String room, String body) throws Exception {
        return authed(HttpRequest.newBuilder(t.uri("/api/rooms/" + room + "/messages"))
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    @Test
    void theApiNeedsTheTokenButHealthAndMetricsDoNot() throws Exception {
        HttpResponse<String> r = t.say("lobby", "ann", "hi");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("www-authenticate")).hasValue("Bearer");
        assertThat(error(r)).contains("token");
        HttpResponse<String> wrong = t.client.send(HttpRequest.newBuilder(t.uri("/api/rooms/lobby/messages"))
                .header("Authorization", "Bearer nope").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(sayRaw("lobby", "{\"user\":\"ann\",\"text\":\"hi\"}").statusCode()).isEqualTo(201);
        assertThat(t.get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void unknownPathIs404AndWrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> r = t.get("/nope");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(error(r)).contains("/nope");
        assertThat(authed(HttpRequest.newBuilder(t.uri("/api/rooms/a/other"))).statusCode()).isEqualTo(404);

        HttpResponse<String> post = t.post("/health", "{}");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET");
        HttpResponse<String> del = authed(HttpRequest.newBuilder(t.uri("/api/rooms/a/messages")).DELETE());
        assertThat(del.statusCode()).isEqualTo(405);
        assertThat(del.headers().firstValue("allow")).hasValue("GET, POST");
        assertThat(error(del)).contains("DELETE");
        for (String part : new String[] {"GE", "POS", "T", "ET, POST"}) { // pieces of "GET, POST" are not methods it allows
            HttpResponse<String> odd = authed(HttpRequest.newBuilder(t.uri("/api/rooms/a/messages"))
                    .method(part.replace(", ", "_"), HttpRequest.BodyPublishers.noBody()));
            assertThat(odd.statusCode()).as(part).isEqualTo(405);
        }
    }

    @Test
    void invalidJsonAndMissingFieldsSayWhich() throws Exception {
        HttpResponse<String> r = sayRaw("lobby", "{not json");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).startsWith("body is not valid JSON");
        assertThat(error(sayRaw("lobby", "[1, 2]"))).contains("must be a JSON object");
        assertThat(error(sayRaw("lobby", "{\"text\": \"hi\"}"))).isEqualTo("field 'user' is missing or not a string");
        assertThat(error(sayRaw("lobby", "{\"user\": \"ann\"}"))).isEqualTo("field 'text' is missing or not a string");
        assertThat(error(sayRaw("lobby", "{\"user\": \"ann\", \"text\": 5}"))).contains("'text'");
        assertThat(error(sayRaw("lobby", "{\"user\": \"ann\", \"text\": \"  \"}"))).contains("empty");
        assertThat(error(sayRaw("lobby", "{\"user\": \"" + "u".repeat(65) + "\", \"text\": \"x\"}"))).contains("'user'");
        assertThat(authed(HttpRequest.newBuilder(t.uri("/api/rooms/lobby/messages?limit=abc"))).statusCode()).isEqualTo(400);
        assertThat(error(authed(HttpRequest.newBuilder(t.uri("/api/rooms/lobby/poll?timeout_ms=-1")))))
                .contains("timeout_ms");
        // Nothing bad was stored.
        assertThat(Json.MAPPER.readTree(authed(HttpRequest.newBuilder(t.uri("/api/rooms/lobby/messages"))).body())
                .get("messages")).isEmpty();
    }

    @Test
    void theBotsNameIsReservedInAnyCaseAndDisguise() throws Exception {
        // NBSP, zero-width space, a right-to-left mark, fullwidth letters, Cyrillic о, Greek ο and Cyrillic Т
        for (String bot : new String[] {"bot", "Bot", "BOT", " bot ", "bot\\u00a0", "bot\\u200b", "\\u200fbot",
                "\\uff42\\uff4f\\uff54", "b\\u043et", "b\\u03bft", "BO\\u0422", "b\\u00adot"}) {
            HttpResponse<String> r = sayRaw("lobby", "{\"user\": \"" + bot + "\", \"text\": \"I am the bot\"}");
            assertThat(r.statusCode()).as(bot).isEqualTo(400);
            assertThat(error(r)).isEqualTo("field 'user' must not be 'bot': the bot's name is reserved");
        }
        assertThat(sayRaw("lobby", "{\"user\": \"bottle\", \"text\": \"hi\"}").statusCode()).isEqualTo(201);
        JsonNode history = Json.MAPPER.readTree(authed(HttpRequest.newBuilder(t.uri("/api/rooms/lobby/messages"))).body());
        assertThat(history.get("messages")).extracting(m -> m.get("user").asText()).containsExactly("bottle");
    }

    @Test
    void roomNamesThatAreTooLongOrOddAre400() throws Exception {
        HttpResponse<String> r = sayRaw("r".repeat(65), "{\"user\":\"a\",\"text\":\"b\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("room name must be 1 to 64");
        HttpResponse<String> odd = sayRaw("a%20b", "{\"user\":\"a\",\"text\":\"b\"}");
        assertThat(odd.statusCode()).isEqualTo(400);
        assertThat(error(odd)).contains("A-Z a-z 0-9");
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        HttpResponse<String> r = sayRaw("lobby", "{\"user\":\"a\",\"text\":\"" + "x".repeat(2000) + "\"}");
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(error(r)).contains("over the limit of 1024 bytes");
    }

    @Test
    void headersOverTheLimitAre431() throws Exception {
        String reply = raw("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(4000) + "\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 431 ").contains("\"status\":431").contains("headers are over the limit");
        assertThat(t.get("/metrics").body()).as("refused before routing: timed as UNKNOWN")
                .contains("http_server_requests_seconds_count{method=\"GET\",route=\"UNKNOWN\",status=\"431\"} 1");
    }

    @Test
    void aWholeOversizedHeaderSentBeforeReadingGets431NotAReset() throws Exception {
        String reply = sendWholeThenRead("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(70 * 1024)
                + "\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 431 ").contains("\"status\":431");
    }

    @Test
    void aWholeOversizedBodySentBeforeReadingGets413NotAReset() throws Exception {
        String reply = sendWholeThenRead("POST /api/rooms/lobby/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer s3cret\r\nContent-Length: " + 50 * 1024 * 1024 + "\r\n\r\n"
                + "x".repeat(100 * 1024));
        assertThat(reply).startsWith("HTTP/1.1 413 ").contains("over the limit of 1024 bytes");
    }

    @Test
    void aMalformedRequestLineIs400() throws Exception {
        String reply = raw("THIS IS NOT HTTP\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 400 ").contains("malformed request");
        String badHeader = raw("GET /health HTTP/1.1\r\nHost x no colon\r\n\r\n");
        assertThat(badHeader).startsWith("HTTP/1.1 400 ");
    }

    @Test
    void anUnsupportedHttpVersionIs505() throws Exception {
        for (String version : new String[] {"HTTP/9.9", "HTTP/2.0", "HTTP/0.9"}) {
            String reply = raw("GET /health " + version + "\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(reply).as(version).startsWith("HTTP/1.1 505 ").contains("\"status\":505")
                    .contains(version + " is not supported");
        }
        // A later 1.x is read as 1.1 (RFC 9110, 2.5); 1.0 is still served.
        assertThat(raw("GET /health HTTP/1.2\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200 ");
        assertThat(raw("GET /health HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200 ");
    }

    @Test
    void aClientThatNeverFinishesItsRequestIsClosedAfterTheTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            String reply = TestServer.readAll(s.getInputStream()); // returns once the server closes
            assertThat(reply).startsWith("HTTP/1.1 408 ").contains("no complete request within 500 ms");
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(8));
        }
    }

    @Test
    void connectionsPastTheLimitAreRefusedWithoutHarmingOthers() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                held.add(new Socket("127.0.0.1", t.server.port()));
            }
            Thread.sleep(200);
            try (Socket extra = new Socket("127.0.0.1", t.server.port())) { // past the cap: probes only
                extra.setSoTimeout(5000);
                extra.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(TestServer.readAll(extra.getInputStream())).startsWith("HTTP/1.1 503 ").contains("too many connections");
            }
            // A held connection still works.
            Socket first = held.get(0);
            first.setSoTimeout(5000);
            first.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(TestServer.readAll(first.getInputStream())).startsWith("HTTP/1.1 200 ").contains("\"status\":\"UP\"");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        Thread.sleep(200); // the server sees the closes; /health in @AfterEach gets a slot
    }

    private String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return TestServer.readAll(s.getInputStream());
        }
    }

    /** Writes all of {@code request} and half-closes before reading a byte, as a simple client does. */
    private String sendWholeThenRead(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            return TestServer.readAll(s.getInputStream());
        }
    }
}
