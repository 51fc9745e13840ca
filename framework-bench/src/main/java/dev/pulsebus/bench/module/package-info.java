/**
 * JMH benchmarks of loading, resolving and calling bot modules.
 *
 * <p>They may import the JDK, JMH and the PulseBus core packages; not the harness in
 * {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.module;
