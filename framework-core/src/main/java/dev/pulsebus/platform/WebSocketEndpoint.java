package dev.pulsebus.platform;

import org.jspecify.annotations.Nullable;

/** Takes WebSocket upgrades of one mounted path ({@link HttpRoutes#webSocket}). */
public interface WebSocketEndpoint {

    /**
     * Decides on an upgrade, on the I/O thread: the listener of the connection to open, or null after
     * answering {@code upgrade} with a refusal ({@link HttpExchange#error}: 401, 403, ...).
     */
    @Nullable WebSocketListener accept(HttpExchange upgrade);

    /**
     * The largest text message taken (one frame with its continuations); a longer one is dropped as it comes
     * (never held whole), reported to {@link WebSocketListener#dropped}, and the connection stays up.
     */
    int maxMessageBytes();

    /** The subprotocols it answers ({@code "*"}: whatever the client asks), or null for none. */
    default @Nullable String subprotocols() {
        return null;
    }
}
