/**
 * Programs whose start-up time the startup suite measures: PulseBus's pieces, bare Netty and an
 * empty JVM as the peers.
 *
 * <p>They may import the JDK, Netty, the PulseBus core packages and {@code dev.pulsebus.bench.http};
 * not the harness in {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.startup;
