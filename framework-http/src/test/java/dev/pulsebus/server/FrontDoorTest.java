package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's front door against a browser used as a weapon and against one greedy client, over real
 * sockets with requests written byte for byte (a Java client will not send a foreign Host): the Host and
 * Origin checks, the proxy headers, the admin API's token and media type, the per-client connection limit
 * and the health probes' reserved slots, and the body limit of a connection that posted to OneBot.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FrontDoorTest {

    @TempDir
    Path dir;

    @Test
    void aHostThatIsNotOneOfTheServersNamesIsRefusedAndTheOwnNamesAreServed() throws Exception {
        try (TestServer t = new TestServer(dir, "allowed_hosts = [\"bot.example.com\", \".corp.example\"]\n")) {
            int port = t.server.port();
            for (String host : new String[] {"rebind.attacker.example", "rebind.attacker.example:" + port,
                    "bot.example.com.attacker.example", "10.1.2.3:" + port}) {
                String reply = request(t, "GET /api/admin/stats HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                assertThat(reply).as(host).startsWith("HTTP/1.1 421 ").contains("server.allowed_hosts")
                        .doesNotContain("\"uptime");
            }
            String say = "POST /api/rooms/lobby/messages HTTP/1.1\r\nHost: rebind.attacker.example\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"user\":\"eve\",\"text\":\"hi!\"}\n\n";
            assertThat(request(t, say)).startsWith("HTTP/1.1 421 ");
            for (String host : new String[] {"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port,
                    "bot.example.com", "chat.corp.example:443", "corp.example", PulseBusServer.hostName()}) {
                assertThat(request(t, "GET /api/admin/stats HTTP/1.1\r\nHost: " + host + "\r\n\r\n")).as(host)
                        .startsWith("HTTP/1.1 200 ");
            }
            assertThat(request(t, "GET /health HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ").contains("Host header");
            assertThat(request(t, "GET /health HTTP/1.1\r\nHost: a\r\nHost: 127.0.0.1\r\n\r\n"))
                    .startsWith("HTTP/1.1 400 ");
            assertThat(request(t, "GET /health HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200 ");
            assertThat(t.get("/api/rooms/lobby/messages").body()).as("nothing was stored").doesNotContain("eve");
        }
    }

    @Test
    void aWriteFromAnotherOriginIsRefusedAndStoresNothing() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            int port = t.server.port();
            String body = "{\"user\":\"eve\",\"text\":\"from afar\"}";
            for (String header : new String[] {"Origin: http://127.0.0.1:" + (port + 1), "Origin: http://evil.example",
                    "Origin: null", "Sec-Fetch-Site: same-site", "Sec-Fetch-Site: cross-site"}) {
                String reply = request(t, "POST /api/rooms/lobby/messages HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                        + header + "\r\nContent-Type: text/plain\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
                assertThat(reply).as(header).startsWith("HTTP/1.1 403 ").contains("may not change anything here");
            }
            assertThat(t.get("/api/rooms/lobby/messages").body()).doesNotContain("from afar");
            // the page the server serves: same origin
            String own = request(t, "POST /api/rooms/lobby/messages HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                    + "Origin: http://127.0.0.1:" + port + "\r\nSec-Fetch-Site: same-origin\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
            assertThat(own).startsWith("HTTP/1.1 201 ");
            // reads are not writes: another origin may send them (it cannot read the answer without CORS)
            assertThat(request(t, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                    + "Sec-Fetch-Site: cross-site\r\n\r\n")).startsWith("HTTP/1.1 200 ");
        }
    }

    @Test
    void adminWritesNeedJsonAndLoopbackThroughAProxyIsNotLoopback() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            String load = "{\"jar\":\"nothing.jar\"}";
            for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"}) {
                String reply = request(t, "POST /api/admin/modules/load HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                        + type + "\r\nContent-Length: " + load.length() + "\r\n\r\n" + load);
                assertThat(reply).as(type).startsWith("HTTP/1.1 415 ").contains("application/json");
            }
            assertThat(request(t, "POST /api/admin/modules/example/unload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Length: 0\r\n\r\n")).startsWith("HTTP/1.1 415 ");
            assertThat(t.post("/api/admin/modules/load", load).statusCode()).as("JSON: tried, the jar is not there")
                    .isEqualTo(404);
            for (String proxy : new String[] {"Forwarded: for=203.0.113.9", "X-Forwarded-For: 203.0.113.9",
                    "X-Real-IP: 203.0.113.9"}) {
                assertThat(request(t, "GET /api/admin/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n" + proxy + "\r\n\r\n"))
                        .as(proxy).startsWith("HTTP/1.1 403 ").contains("not through a proxy");
            }
        }
    }

    @Test
    void theAdminTokenGuardsTheAdminApiAndTheTokenTheChatApiEachInAnyCaseOfBearer() throws Exception {
        try (TestServer t = new TestServer(dir, "token = \"chat-s3cret\"\nadmin_token = \"admin-s3cret\"\n")) {
            var refused = t.get("/api/admin/stats", "Authorization", "Bearer chat-s3cret");
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"admin\"");
            assertThat(refused.body()).contains("server.admin_token");
            assertThat(t.say("lobby", "ann", "hi", "Authorization", "Bearer admin-s3cret").statusCode())
                    .as("the admin token is not the chat token").isEqualTo(401);
            for (String scheme : new String[] {"Bearer", "bearer", "BEARER", "bEaReR"}) {
                assertThat(t.get("/api/admin/stats", "Authorization", scheme + " admin-s3cret").statusCode())
                        .as(scheme).isEqualTo(200);
                assertThat(t.say("lobby", "ann", "hi", "Authorization", scheme + " chat-s3cret").statusCode())
                        .as(scheme).isEqualTo(201);
            }
            assertThat(t.get("/api/rooms/lobby/messages", "Authorization", "Basic Y2hhdC1zM2NyZXQ=").statusCode())
                    .isEqualTo(401);
        }
    }

    @Test
    void oneClientCannotTakeEverySlotAndTheProbesAreAnsweredPastTheCap() throws Exception {
        try (TestServer t = new TestServer(dir, "max_connections = 6\nmax_connections_per_client = 3\n")) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) { // parked polls hold their connections as idle ones do
                    Socket s = new Socket("127.0.0.1", t.server.port());
                    s.getOutputStream().write(("GET /api/rooms/parked/poll?timeout_ms=30000 HTTP/1.1\r\nHost: 127.0.0.1"
                            + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    held.add(s);
                }
                // and more that say nothing, past every reserved slot: a probe still gets one
                for (int i = 0; i < ServerInitializer.ConnectionLimit.PROBE_SLOTS + 2; i++) {
                    held.add(new Socket("127.0.0.1", t.server.port()));
                }
                Thread.sleep(200);
                assertThat(request(t, "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
                assertThat(request(t, "GET /health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                        .startsWith("HTTP/1.1 200 ");
                assertThat(request(t, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).startsWith("HTTP/1.1 503 ")
                        .contains(ServerInitializer.ConnectionLimit.TOO_MANY);
                // another client (another address) still gets in
                assertThat(request(t, "127.0.0.2", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                        .startsWith("HTTP/1.1 200 ");
                // that request's connection is closed and no longer counted before the next ones come: else the
                // third of them could be taken as past the second client's own cap
                assertThat(Await.until(Duration.ofSeconds(10), () -> t.server.openConnections() == 3))
                        .as("the parked polls alone: %s open", t.server.openConnections()).isTrue();
                // the global cap reached (3 + 3): a third client's probes are still answered, nothing else
                for (int i = 0; i < 3; i++) {
                    held.add(new Socket(InetAddress.getByName("127.0.0.1"), t.server.port(),
                            InetAddress.getByName("127.0.0.2"), 0));
                }
                // counted once the event loop has taken them in, which a busy machine can take a while to do
                assertThat(Await.until(Duration.ofSeconds(10), () -> t.server.openConnections() == 6))
                        .as("the cap reached: %s open", t.server.openConnections()).isTrue();
                assertThat(request(t, "127.0.0.3", "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                        .startsWith("HTTP/1.1 200 ");
                assertThat(request(t, "127.0.0.3", "GET /api/rooms/x/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                        .startsWith("HTTP/1.1 503 ");
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aPostToOneBotDoesNotRaiseTheBodyLimitOfTheRequestsAfterIt() throws Exception {
        try (TestServer t = new TestServer(dir, "max_body_bytes = 1024\n\n[adapters.onebot11]\nmode = \"http\"\n")) {
            String event = "{\"post_type\":\"meta_event\",\"meta_event_type\":\"heartbeat\",\"self_id\":1,\"time\":1}";
            String big = "{\"user\":\"ann\",\"text\":\"" + "a".repeat(2000) + "\"}";
            String reply = request(t, "POST /onebot/v11/http HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    + "\r\nContent-Length: " + event.length() + "\r\n\r\n" + event
                    + "POST /api/rooms/lobby/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + big.length() + "\r\n\r\n" + big);
            assertThat(reply).contains("HTTP/1.1 413 ").doesNotContain("HTTP/1.1 201 ");
            assertThat(t.get("/api/rooms/lobby/messages").body()).doesNotContain("aaaa");
        }
    }

    @Test
    void aOneBotUpgradeWithAnOriginIsRefusedUnlessTheOriginIsAllowed() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[adapters.onebot11]\nmode = \"reverse-ws\"\n"
                + "allowed_origins = [\"https://panel.example\"]\n")) {
            assertThat(upgrade(t, "Origin: http://127.0.0.1:" + (t.server.port() + 1) + "\r\n"))
                    .startsWith("HTTP/1.1 403 ").contains("allowed_origins");
            assertThat(upgrade(t, "Origin: null\r\n")).startsWith("HTTP/1.1 403 ");
            assertThat(upgrade(t, "")).as("an implementation sends none").startsWith("HTTP/1.1 101 ");
            assertThat(upgrade(t, "Origin: https://panel.example\r\n")).startsWith("HTTP/1.1 101 ");
            assertThat(upgrade(t, "Origin: http://127.0.0.1\r\n")).as("the server's own origin (the Host sent to),"
                    + " as Netty's WebSocket client sends it").startsWith("HTTP/1.1 101 ");
        }
    }

    /** A WebSocket upgrade to OneBot v11's endpoint with {@code headers}: the answer's head (and body). */
    private static String upgrade(TestServer t, String headers) throws IOException {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET /onebot/v11/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "X-Self-ID: 1\r\n" + headers + "\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
            }
            String answer = head.toString(StandardCharsets.US_ASCII);
            Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(answer);
            return length.find() ? answer + new String(in.readNBytes(Integer.parseInt(length.group(1))),
                    StandardCharsets.UTF_8) : answer;
        }
    }

    static String request(TestServer t, String request) throws IOException {
        return request(t, "127.0.0.1", request);
    }

    /**
     * Writes {@code request} on a new connection from the loopback address {@code from} (another address is
     * another client), its last request told {@code Connection: close}, and reads until the server closes.
     */
    static String request(TestServer t, String from, String request) throws IOException {
        int line = Math.max(request.lastIndexOf(" HTTP/1.1\r\n"), request.lastIndexOf(" HTTP/1.0\r\n"));
        int at = request.indexOf("\r\n", line) + 2;
        String closing = request.substring(0, at) + "Connection: close\r\n" + request.substring(at);
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), t.server.port(), InetAddress.getByName(from), 0)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(closing.getBytes(StandardCharsets.UTF_8));
            return TestServer.readAll(s.getInputStream());
        }
    }
}
