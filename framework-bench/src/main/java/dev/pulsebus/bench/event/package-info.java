/**
 * JMH benchmarks of the event bus, with Guava's EventBus as the peer.
 *
 * <p>They may import the JDK, JMH, Guava and the PulseBus core packages; not the harness in
 * {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.event;
