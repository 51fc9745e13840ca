/**
 * JMH benchmarks of the KV and transcript stores.
 *
 * <p>They may import the JDK, JMH, {@code dev.pulsebus.kv}, {@code event}, {@code transcript} and
 * {@code dev.pulsebus.storage}; not the harness in {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.storage;
