/**
 * Helpers shared by the PulseBus modules and by nothing else: JSON mappers and streaming, buffer
 * pools, bounded LRU tables, rate-limited failure and slow-call logging, retry delays, writer threads and argument checks. Not an
 * API: a bot module must not import it, and {@code ArchitectureTest} fails if an example does.
 *
 * <p>It may import the JDK, SLF4J, Jackson and Micrometer's meter API, and nothing of PulseBus.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.internal;
