package dev.pulsebus.bench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reading responses from a real socket whose server writes what the test says, then closes. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RawHttpTest {

    @Test
    void aWholeResponseIsRead() throws Exception {
        RawHttp.Response r = readFrom("HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello");
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("hello");
    }

    @Test
    void aConnectionClosedInsideTheHeadersIsAnEof() {
        assertThatThrownBy(() -> readFrom("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"))
                .isInstanceOf(EOFException.class).hasMessage("connection closed inside the headers");
        assertThatThrownBy(() -> readFrom("HTTP/1.1 200 OK\r\nContent-Len"))
                .isInstanceOf(EOFException.class).hasMessage("connection closed inside the headers");
    }

    @Test
    void aConnectionClosedBeforeOrInsideTheStatusLineIsAnEof() {
        assertThatThrownBy(() -> readFrom("")).isInstanceOf(EOFException.class).hasMessage("connection closed");
        assertThatThrownBy(() -> readFrom("HTTP/1.1 20")).isInstanceOf(EOFException.class)
                .hasMessage("connection closed inside the status line");
    }

    @Test
    void aConnectionClosedInsideTheBodyIsAnEof() {
        assertThatThrownBy(() -> readFrom("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"))
                .isInstanceOf(EOFException.class).hasMessage("connection closed in a body");
    }

    @Test
    void whatIsNotAStatusLineSaysSo() {
        assertThatThrownBy(() -> readFrom("SSH-2.0-OpenSSH\r\n\r\n")).isInstanceOf(IOException.class)
                .hasMessage("not an HTTP status line: 'SSH-2.0-OpenSSH'");
    }

    /** Serves {@code response} on a real socket to one connection, closes it, and reads it with RawHttp. */
    private static RawHttp.Response readFrom(String response) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread serving = Thread.ofVirtual().start(() -> {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write(response.getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (RawHttp http = new RawHttp(server.getInetAddress().getHostAddress(), server.getLocalPort())) {
                serving.join();
                return http.read();
            }
        }
    }
}
