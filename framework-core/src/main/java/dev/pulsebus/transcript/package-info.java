/**
 * Transcripts: the {@link dev.pulsebus.transcript.TranscriptStore} SPI, the in-memory store, and
 * {@code TranscriptWriter}, which batches records to a store on its own thread and spills them to a
 * journal when the store is down.
 *
 * <p>It may import the JDK, SLF4J, Micrometer, Jackson, {@code dev.pulsebus.event} and
 * {@code dev.pulsebus.internal}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.transcript;
