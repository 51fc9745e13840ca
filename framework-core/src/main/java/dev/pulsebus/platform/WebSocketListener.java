package dev.pulsebus.platform;

import java.nio.ByteBuffer;

/**
 * One WebSocket connection's messages, on its I/O thread, in order: must not block. Pings are answered by
 * the server (only the latest while the connection is unwritable), a close frame closes.
 */
public interface WebSocketListener {

    /** The connection is open: {@code session} can send. Before the handshake's answer leaves. */
    void opened(WebSocketSession session);

    /**
     * A whole text message, not to be written to: valid only until this returns (copy what must outlive
     * it). Returns false
     * when it is not UTF-8 (the listener reads the bytes anyway, so the check costs no second pass): the
     * server then fails the connection with 1007 (RFC 6455, 8.1) and reads nothing more from it.
     */
    boolean text(WebSocketSession session, ByteBuffer message);

    /** A message was not taken: {@code binary}, or a text message over the endpoint's limit, of {@code bytes}. */
    default void dropped(WebSocketSession session, boolean binary, long bytes) {
    }

    /** The connection is writable again after it was not (its peer read what it was sent). */
    default void writable(WebSocketSession session) {
    }

    /** The connection closed, for whatever reason. */
    void closed(WebSocketSession session);
}
