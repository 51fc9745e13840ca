package dev.pulsebus.bench.http;

import dev.pulsebus.internal.Json;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A blocking HTTP/1.1 keep-alive connection for the sequential rows (round trip, fan-out, memory): one
 * socket, write a request, read one response (status, headers, Content-Length body). Meant for virtual
 * threads; one thread per connection.
 */
public final class RawHttp implements AutoCloseable {

    public record Response(int status, String body) {
    }

    private final Socket socket;
    private final InputStream in;
    /** Our own read buffer: parsing byte by byte through a (locking) BufferedInputStream cost more than the server. */
    private final byte[] buf = new byte[16384];
    private int pos;
    private int limit;
    /** Whether the line {@link #line} found unfinished had begun. */
    private boolean partial;
    private final OutputStream out;
    private final String host;

    public RawHttp(String host, int port) throws IOException {
        this.socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.host = host + ":" + port;
    }

    public void send(String method, String path, String body) throws IOException {
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        out.write(LoadClient.request(method, host, path, b));
        out.flush();
    }

    /**
     * Reads one response.
     *
     * @throws EOFException when the server closed the connection before the response was whole (its
     *                      message says where); an {@link IOException} when it is not HTTP
     */
    @SuppressWarnings("AssignmentExpression") // read headers until the empty line
    public Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new EOFException(partial ? "connection closed inside the status line" : "connection closed");
        }
        int code = statusCode(status);
        int length = 0;
        for (String h; !(h = header()).isEmpty(); ) {
            int colon = h.indexOf(':');
            if (colon > 0 && h.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                length = Integer.parseInt(h.substring(colon + 1).trim());
            }
        }
        byte[] body = new byte[length];
        int got = 0;
        while (got < length) {
            if (pos == limit && !fill()) {
                throw new EOFException("connection closed in a body");
            }
            int n = Math.min(length - got, limit - pos);
            System.arraycopy(buf, pos, body, got, n);
            pos += n;
            got += n;
        }
        return new Response(code, new String(body, StandardCharsets.UTF_8));
    }

    public Response exchange(String method, String path, String body) throws IOException {
        send(method, path, body);
        return read();
    }

    private boolean fill() throws IOException {
        int n = in.read(buf);
        if (n <= 0) {
            return false;
        }
        pos = 0;
        limit = n;
        return true;
    }

    /** {@code HTTP/1.1 200 OK}'s 200. */
    private static int statusCode(String line) throws IOException {
        int sp = line.indexOf(' ');
        if (line.startsWith("HTTP/") && sp > 0 && line.length() >= sp + 4) {
            try {
                return Integer.parseInt(line, sp + 1, sp + 4, 10);
            } catch (NumberFormatException e) {
                // said below
            }
        }
        throw new IOException("not an HTTP status line: '" + line + "'");
    }

    private String header() throws IOException {
        String h = line();
        if (h == null) {
            throw new EOFException("connection closed inside the headers");
        }
        return h;
    }

    /** The next line without its end; null when the connection closed first ({@link #partial}: after some of it). */
    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        while (true) {
            if (pos == limit && !fill()) {
                partial = !b.isEmpty();
                return null;
            }
            while (pos < limit) {
                char c = (char) (buf[pos++] & 0xff);
                if (c == '\n') {
                    int end = b.length();
                    return end > 0 && b.charAt(end - 1) == '\r' ? b.substring(0, end - 1) : b.toString();
                }
                b.append(c);
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** The seq of the message a say stored, from its 201 answer; any other answer is an error. */
    public static long seq(Response r) throws IOException {
        if (r.status() != 201) {
            throw new IOException("say answered " + r.status() + ": " + r.body());
        }
        return Json.MAPPER.readTree(r.body()).get("seq").asLong();
    }
}
