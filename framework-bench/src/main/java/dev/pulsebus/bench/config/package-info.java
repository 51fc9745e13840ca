/**
 * JMH benchmarks of reading configuration.
 *
 * <p>They may import the JDK, JMH and {@code dev.pulsebus.config}; not the harness in
 * {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.config;
