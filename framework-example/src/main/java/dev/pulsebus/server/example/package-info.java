/**
 * An example bot module shipped with the server, written as a module author would write one.
 *
 * <p>It may import only the public API ({@code dev.pulsebus.module}, {@code command}, {@code kv},
 * {@code event}, {@code pipeline}, {@code bus}); never {@code dev.pulsebus.internal} or the server.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.server.example;
