/** Diagnosis helpers: {@link dev.pulsebus.diagnostics.MemorySnapshots} for finding where memory goes. */
package dev.pulsebus.diagnostics;
