/**
 * What the platform adapters share, so each idea has one owner: reading JSON
 * straight from its UTF-8 bytes, checked strictly ({@link dev.pulsebus.adapter.JsonBytes}), reading a JSON
 * object from it into an event's plain fields ({@link dev.pulsebus.adapter.FieldReader}), and the counters
 * and meters of bounded label sets ({@link dev.pulsebus.adapter.AdapterMeters}). Internal to PulseBus: not an
 * API for bot modules.
 *
 * <p>It may import the JDK, Jackson, Netty's buffers, Micrometer, SLF4J and the core packages {@code event}
 * and {@code internal}; never a platform's package, nor {@code dev.pulsebus.server}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.adapter;
