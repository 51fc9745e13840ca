package dev.pulsebus.platform;

import java.nio.ByteBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One request to a mounted path and its answer. The request's parts are readable during
 * {@link HttpRoute#handle} (its body too: copy what must outlive it); {@link #respond} may be called once,
 * from any thread.
 */
public interface HttpExchange {

    /** {@code GET}, {@code POST}, ... */
    String method();

    /** The path, without the query, as mounted (no trailing slash). */
    String path();

    /** The query parameter's values, in order; empty when absent. */
    List<String> query(String name);

    /** The header's first value (the name in any case), or null. */
    @Nullable String header(String name);

    /** The body's bytes, not to be written to; valid only until {@link HttpRoute#handle} returns. */
    ByteBuffer body();

    /** The peer's address ({@code 127.0.0.1:51234}), for a log line. */
    String remoteAddress();

    /**
     * Answers with {@code status} and {@code body} of {@code contentType} (none when null, for a body-less
     * status such as 204).
     */
    void respond(int status, @Nullable String contentType, byte[] body);

    /** Answers {@code status} with {@code {"error": message, "status": status}}, as the server's errors are. */
    void error(int status, String message);
}
