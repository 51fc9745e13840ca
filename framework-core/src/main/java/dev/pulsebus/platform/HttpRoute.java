package dev.pulsebus.platform;

/** Handles the requests to one mounted path ({@link HttpRoutes#route}). */
@FunctionalInterface
public interface HttpRoute {

    /**
     * Handles {@code exchange}, on the connection's I/O thread: must not block. Answers with
     * {@link HttpExchange#respond}, now or later from any thread; the connection's next request waits for it.
     */
    void handle(HttpExchange exchange);
}
