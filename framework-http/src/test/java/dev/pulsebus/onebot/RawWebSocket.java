package dev.pulsebus.onebot;

import dev.pulsebus.server.RawHttp;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * A WebSocket client on a plain socket (RFC 6455), for peers no client library plays: one that does not read
 * what it is sent, sends bytes that are not UTF-8, or floods pings. Frames it sends are masked and whole
 * ({@code FIN}); frames it reads are the server's (unmasked). Not thread-safe, but sending and reading may
 * happen on two threads.
 */
public final class RawWebSocket implements AutoCloseable {

    public static final int TEXT = 1;
    static final int CLOSE = 8;
    public static final int PING = 9;
    static final int PONG = 10;

    /** A frame the server sent. */
    record Frame(int opcode, byte[] payload) {
        /** A close frame's status code; -1 when it has none. */
        int closeCode() {
            return payload.length < 2 ? -1 : ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    /**
     * Connects to {@code path} on 127.0.0.1:{@code port} and completes the handshake; {@code receiveBuffer} > 0
     * sets the socket's receive buffer first (a peer that reads nothing fills a small one soon);
     * {@code headers} are names and values in turn.
     */
    public RawWebSocket(int port, String path, int receiveBuffer, String... headers) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(30_000);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = socket.getOutputStream();
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        StringBuilder req = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString(nonce) + "\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        out.write(req.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String head = RawHttp.head(in);
        if (!head.startsWith("HTTP/1.1 101")) {
            throw new IOException("no upgrade: " + head);
        }
    }

    public void text(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends one whole frame of {@code opcode} with {@code payload}, masked. */
    public void send(int opcode, byte[] payload) throws IOException {
        out.write(frame(opcode, payload));
        out.flush();
    }

    /** The bytes of one whole masked frame. */
    static byte[] frame(int opcode, byte[] payload) {
        int n = payload.length;
        int lengthBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
        byte[] f = new byte[2 + lengthBytes + 4 + n];
        f[0] = (byte) (0x80 | opcode);
        int i = 2;
        if (lengthBytes == 0) {
            f[1] = (byte) (0x80 | n);
        } else if (lengthBytes == 2) {
            f[1] = (byte) (0x80 | 126);
            f[i++] = (byte) (n >>> 8);
            f[i++] = (byte) n;
        } else {
            f[1] = (byte) (0x80 | 127);
            for (int s = 56; s >= 0; s -= 8) {
                f[i++] = (byte) ((long) n >>> s);
            }
        }
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        System.arraycopy(mask, 0, f, i, 4);
        i += 4;
        for (int k = 0; k < n; k++) {
            f[i + k] = (byte) (payload[k] ^ mask[k & 3]);
        }
        return f;
    }

    /** The next frame the server sent; null when the connection ended. */
    @Nullable Frame read() throws IOException {
        int b0 = in.read();
        if (b0 < 0) {
            return null;
        }
        int b1 = in.readUnsignedByte();
        long n = b1 & 0x7F;
        if (n == 126) {
            n = in.readUnsignedShort();
        } else if (n == 127) {
            n = in.readLong();
        }
        byte[] payload = new byte[Math.toIntExact(n)];
        in.readFully(payload);
        return new Frame(b0 & 0x0F, payload);
    }

    /** Reads until a close frame comes (returned) or the connection ends (null), passing over the rest. */
    @Nullable Frame readUntilClose() throws IOException {
        for (Frame f; (f = read()) != null; ) {
            if (f.opcode() == CLOSE) {
                return f;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
