package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/1.1 pipelining on a raw socket: requests sent in one write are answered in the order they came (RFC
 * 9112, 9.3.2), a parked long-poll holding the ones behind it; and a client that pipelines without reading
 * its answers stops being read, then gets every answer once it reads.
 */
@Timeout(120)
class PipeliningTest {

    @TempDir
    Path dir;
    private TestServer t;

    /** One response: its status, its headers' text (lower case) and its body. */
    record Answer(int status, String head, String body) {
    }

    @AfterEach
    void close() {
        if (t != null) {
            t.close();
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInTheOrderTheyCame() throws Exception {
        t = new TestServer(dir, "");
        String host = "Host: 127.0.0.1\r\n\r\n";
        String requests = "GET /metrics HTTP/1.1\r\n" + host
                + "GET /health HTTP/1.1\r\n" + host
                + "GET /api/rooms/lobby/poll?timeout_ms=300 HTTP/1.1\r\n" + host // parks, then answers 204
                + "GET /api/admin/stats HTTP/1.1\r\n" + host
                + "GET /no/such/path HTTP/1.1\r\n" + host;
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(requests.getBytes(StandardCharsets.US_ASCII));
            InputStream in = new BufferedInputStream(s.getInputStream());
            List<Answer> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(answer(in));
            }
            assertThat(answers.get(0).status()).isEqualTo(200);
            assertThat(answers.get(0).body()).contains("# TYPE pulsebus_build_info");
            assertThat(answers.get(1).status()).isEqualTo(200);
            assertThat(answers.get(1).body()).contains("\"status\":\"UP\"");
            assertThat(answers.get(2).status()).as("the poll, answered empty after its timeout").isEqualTo(204);
            assertThat(answers.get(3).status()).isEqualTo(200);
            assertThat(answers.get(3).body()).as("the admin stats").contains("\"longpoll_waiters\"");
            assertThat(answers.get(4).status()).isEqualTo(404);
            assertThat(answers.get(4).body()).contains("no such path: /no/such/path");
        }
    }

    @Test
    void aClientThatPipelinesAndDoesNotReadStopsBeingReadThenGetsEveryAnswerInOrder() throws Exception {
        t = new TestServer(dir, "");
        for (int i = 0; i < 10; i++) {
            assertThat(t.say("big", "ann", "m" + i + " " + "y".repeat(1000)).statusCode()).isLessThan(300);
        }
        int count = 3000; // about 4 KB each: 12 MB, more than the sockets' buffers hold
        String pad = "X-Pad: " + "p".repeat(4000) + "\r\n";
        ByteBuffer requests = ByteBuffer.allocate(count * 4200);
        for (int i = 0; i < count; i++) {
            requests.put(("GET /api/rooms/big/messages?limit=" + (1 + i % 10) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + pad + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        requests.flip();
        try (SocketChannel ch = SocketChannel.open()) {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            ch.connect(new InetSocketAddress("127.0.0.1", t.server.port()));
            ch.configureBlocking(false);
            int still = 0;
            while (requests.hasRemaining() && still < 200) { // 2 s in which the server takes nothing more
                if (ch.write(requests) > 0) {
                    still = 0;
                } else {
                    still++;
                    Thread.sleep(10);
                }
            }
            double answered = TestCluster.metric(t.server, "pulsebus_http_requests_total", "route=\"history\"");
            assertThat(requests.hasRemaining()).as("the server stopped reading").isTrue();
            assertThat(answered).as("answers made while the client did not read").isLessThan(count);

            ch.configureBlocking(true);
            Thread writer = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (requests.hasRemaining()) {
                        ch.write(requests);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            InputStream in = new BufferedInputStream(Channels.newInputStream(ch), 64 * 1024);
            for (int i = 0; i < count; i++) {
                Answer a = answer(in);
                assertThat(a.status()).isEqualTo(200);
                // each asked for 1 + i % 10 messages: the answers come in the order of the requests
                assertThat(a.body().split("\"seq\"", -1).length - 1).as("answer " + i).isEqualTo(1 + i % 10);
            }
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Reads one response with a Content-Length body. */
    static Answer answer(InputStream in) throws IOException {
        String text = RawHttp.head(in).toLowerCase(Locale.ROOT);
        int status = Integer.parseInt(text.substring(9, 12));
        int at = text.indexOf("content-length:");
        int length = at < 0 ? 0 : Integer.parseInt(text.substring(at + 15, text.indexOf('\r', at)).trim());
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new EOFException("the connection ended in a response's body");
        }
        return new Answer(status, text, new String(body, StandardCharsets.UTF_8));
    }
}
