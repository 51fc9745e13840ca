/**
 * JMH benchmarks of the command router.
 *
 * <p>They may import the JDK, JMH and {@code dev.pulsebus.command}; not the harness in
 * {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.router;
