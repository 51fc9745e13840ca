/**
 * The standalone PulseBus server on Netty: {@code /health}, Prometheus {@code /metrics}, the HTTP chat
 * API and graceful shutdown.
 *
 * <p>This module is laid out in the build so that its dependencies and its place in the release are
 * fixed; its implementation arrives with the server work (issue 6).
 */
package dev.pulsebus.server;
