/**
 * The message pipeline: {@link dev.pulsebus.pipeline.MessagePipeline} takes an inbound message from
 * an {@link dev.pulsebus.pipeline.Adapter}, runs middleware, gives it to the asks pending in its chat,
 * then to commands and event handlers, records the transcript and sends replies out through the adapter.
 *
 * <p>It may import the JDK, SLF4J, Micrometer, {@code bus}, {@code command}, {@code event},
 * {@code transcript} and {@code internal}; not {@code module}, which builds on it.
 */
package dev.pulsebus.pipeline;
