package dev.pulsebus.platform;

/**
 * Mounts a platform's endpoints on whatever HTTP server runs (the standalone server's Netty listener), as a
 * neutral API: a platform names paths and gets requests and WebSocket messages, never the server's types.
 * Paths are exact ({@code /onebot/v11/http}); a trailing slash is dropped before matching. Two platforms
 * mounting one path, or a path the server serves itself ({@code /api/}, {@code /health}, ...), is an error at
 * start. Requests pass the server's own checks first (Host, a browser's cross-site write, the body limit,
 * the request timeout, connection caps); a mounted path is not under the server's token: the platform
 * authenticates its peer itself.
 */
public interface HttpRoutes {

    /** Whether an HTTP server runs to mount on; when false, {@link #route} and {@link #webSocket} throw. */
    boolean available();

    /**
     * Serves requests to {@code path} with {@code route}.
     *
     * @param template what the server's request meters name the route ({@code /telegram/{bot}/webhook}): a
     *                 bounded set, never an id of unbounded range
     * @throws IllegalStateException when no HTTP server runs, or another route has the path
     */
    void route(String path, String template, HttpRoute route);

    /**
     * Serves WebSocket upgrades of {@code path} with {@code endpoint}.
     *
     * @throws IllegalStateException when no HTTP server runs, or another route has the path
     */
    void webSocket(String path, WebSocketEndpoint endpoint);

    /** No HTTP server: mounting throws, saying that {@code what} needs one. */
    static HttpRoutes none(String what) {
        return new HttpRoutes() {
            @Override
            public boolean available() {
                return false;
            }

            @Override
            public void route(String path, String template, HttpRoute route) {
                throw new IllegalStateException(what + " needs the HTTP server to serve " + path
                        + ", and this bot runs without one");
            }

            @Override
            public void webSocket(String path, WebSocketEndpoint endpoint) {
                route(path, path, ex -> { });
            }
        };
    }
}
