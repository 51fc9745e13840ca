/**
 * What the platform adapters of {@code framework-http} share, so each idea has one owner: reading JSON
 * straight from its UTF-8 bytes, checked strictly ({@link dev.pulsebus.adapter.JsonBytes}), reading a JSON
 * object from it into an event's plain fields ({@link dev.pulsebus.adapter.FieldReader}), reading an
 * {@code [adapters.*]} section with the checks each makes ({@link dev.pulsebus.adapter.SectionReader}), and
 * the counters and meters of bounded label sets ({@link dev.pulsebus.adapter.AdapterMeters}), and the
 * backpressure of a connection whose peer may not read ({@link dev.pulsebus.adapter.WriteLimit}, the server's
 * and the forward WebSocket's). Internal to PulseBus: not an API for bot modules.
 *
 * <p>It may import the JDK, Jackson, Netty's buffers, channels and WebSocket frames, Micrometer, SLF4J and the core packages {@code event},
 * {@code config} and {@code internal}; never an adapter's package, nor {@code dev.pulsebus.server}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.adapter;
