package dev.pulsebus.bench.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
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
    private final OutputStream out;
    private final String host;

    public RawHttp(String host, int port) throws IOException {
        this.socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        this.in = new BufferedInputStream(socket.getInputStream(), 8192);
        this.out = socket.getOutputStream();
        this.host = host + ":" + port;
    }

    public void send(String method, String path, String body) throws IOException {
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
                + (body == null ? "" : "Content-Type: application/json\r\n")
                + "Content-Length: " + b.length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
    }

    public Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed");
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        int length = 0;
        for (String h; !(h = line()).isEmpty(); ) {
            int colon = h.indexOf(':');
            if (colon > 0 && h.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                length = Integer.parseInt(h.substring(colon + 1).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return new Response(code, new String(body, StandardCharsets.UTF_8));
    }

    public Response exchange(String method, String path, String body) throws IOException {
        send(method, path, body);
        return read();
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.US_ASCII);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
