/**
 * The standalone PulseBus server on Netty: {@code /health}, Prometheus {@code /metrics}, the HTTP chat
 * API with long-poll, and graceful shutdown. {@link dev.pulsebus.server.ServerMain} is the command line;
 * {@link dev.pulsebus.server.PulseBusServer} embeds the same server in a program.
 *
 * <p>The Netty pipeline, top to bottom ({@code ServerInitializer}): connection limit, idle timeout for
 * slow clients, HTTP codec with header limits, body aggregation with the size limit, then
 * {@code HttpHandler}, which routes. Netty's I/O threads never run bot code: a message said over HTTP is
 * stored, acknowledged, then handed to the message pipeline on a virtual thread.
 *
 * <p>It may import every core package, {@code dev.pulsebus.storage}, {@code cluster} and {@code netty}, Netty,
 * Micrometer's Prometheus registry and Logback; never the bench, a platform's package or the example module,
 * which it finds through {@link java.util.ServiceLoader} ({@code ArchitectureTest}).
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.server;
