package dev.pulsebus.pipeline;

import dev.pulsebus.event.Event;

/**
 * Sees every inbound event after deduplication and before transcripts, commands and the bus. Returns
 * the event to pass on (the same, or a rewritten one), or {@code null} to drop it. Middlewares run on
 * the adapter's thread in priority order, highest first, and in registration order among equals. One
 * that throws is logged and counted, and the event passes on unchanged.
 */
@FunctionalInterface
public interface Middleware {

    Event handle(Event event) throws Exception;
}
