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

    /**
     * Reads the connection slowly ({@code true}) or as its data comes again ({@code false}): while slowed, it is
     * read a little at a time (one socket read every few milliseconds) instead of as fast as its peer sends, so a
     * peer that sends faster than it is answered is held back by TCP's flow control, while what it sends (its
     * answers to this side's requests included) still comes in. For a platform whose requests to its peer wait
     * for a window to open. Thread-safe; idempotent.
     */
    void readSlowly(boolean slow);

    /** The connection's own thread. */
    ScheduledExecutorService executor();

    /** Closes with {@code code} and {@code reason} (RFC 6455, 7.4). */
    void close(int code, String reason);

    /** The peer's address ({@code 127.0.0.1:51234}), for a log line. */
    String remoteAddress();
}
