/**
 * Diagnosis helpers: {@link dev.pulsebus.diagnostics.MemorySnapshots} for finding where memory goes.
 *
 * <p>It may import the JDK and {@code dev.pulsebus.internal}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.diagnostics;
