/**
 * A JMH benchmark of a mixed workload over pipeline, commands and storage together.
 *
 * <p>It may import the JDK, JMH, the PulseBus core packages and {@code dev.pulsebus.storage}; not the
 * harness in {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.overall;
