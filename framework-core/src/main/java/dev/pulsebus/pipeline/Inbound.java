package dev.pulsebus.pipeline;

import dev.pulsebus.event.Event;

/** Where an {@link Adapter} hands its events: the entry of the pipeline. Thread-safe. */
@FunctionalInterface
public interface Inbound {

    InboundResult accept(Event event);
}
