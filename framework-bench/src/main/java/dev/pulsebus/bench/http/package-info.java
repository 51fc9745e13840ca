/**
 * HTTP load tools for the benchmark: a load client, a raw HTTP/1.1 reader and a no-op Netty server
 * as the peer.
 *
 * <p>They may import the JDK, Netty, HdrHistogram and PulseBus; not the harness in
 * {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.http;
