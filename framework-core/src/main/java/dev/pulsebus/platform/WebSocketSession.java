package dev.pulsebus.platform;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One open WebSocket connection, to send on. Thread-safe; {@link #executor()} runs tasks on the connection's
 * own thread, in order, which is where its listener is called: state confined to it needs no lock.
 */
public interface WebSocketSession {

    /**
     * Sends a text message of {@code utf8} (taken as it is: not copied, not to be changed after). The stage
     * completes once it is written, or fails when the connection closed first.
     */
    CompletionStage<Void> sendText(byte[] utf8);

    /** Whether the connection is open. */
    boolean isOpen();

    /**
     * Whether it takes more now: false while more than its high watermark waits to be written (its peer does
     * not read). {@link WebSocketListener#writable} says when it is again.
     */
    boolean isWritable();

    /** The most a connection may have waiting to be written before it is closed as a slow reader. */
    long maxPendingBytes();

    /** The connection's own thread. */
    ScheduledExecutorService executor();

    /** Closes with {@code code} and {@code reason} (RFC 6455, 7.4). */
    void close(int code, String reason);

    /** The peer's address ({@code 127.0.0.1:51234}), for a log line. */
    String remoteAddress();
}
