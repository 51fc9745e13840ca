/**
 * Helpers shared by the PulseBus modules and by nothing else: JSON mappers and streaming, buffer
 * pools, bounded LRU tables, rate-limited failure and slow-call logging, retry delays, writer threads and argument checks. Not an
 * API: a bot module must not import it; {@code ArchitectureTest} holds which classes each PulseBus module
 * may use, and fails if an example uses any.
 *
 * <p>It may import the JDK, SLF4J, Jackson and Micrometer's meter API, and nothing of PulseBus.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.internal;
