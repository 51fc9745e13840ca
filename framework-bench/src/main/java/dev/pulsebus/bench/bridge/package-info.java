/**
 * JMH benchmarks of the message pipeline from adapter to reply.
 *
 * <p>They may import the JDK, JMH and the PulseBus core packages; not the harness in
 * {@code dev.pulsebus.bench}, which runs them.
 */
package dev.pulsebus.bench.bridge;
