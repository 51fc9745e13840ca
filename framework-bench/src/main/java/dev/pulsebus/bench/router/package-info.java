/**
 * JMH benchmarks of the command router, and of the pending-ask probe a message passes before it.
 *
 * <p>They may import the JDK, JMH, {@code dev.pulsebus.command}, and for the probe {@code dev.pulsebus.bus},
 * {@code dev.pulsebus.event} and {@code dev.pulsebus.pipeline}; not the harness in {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.router;
