package dev.pulsebus.pipeline;

import dev.pulsebus.event.Event;

/** Where an {@link Adapter} hands its events: the entry of the pipeline. Thread-safe. */
@FunctionalInterface
public interface Inbound {

    InboundResult accept(Event event);

    /**
     * What watches the handlers this inbound runs for stalls ({@link ChatLanes} report to it). A pipeline's
     * own; by default one that tracks runs but never judges them stalled.
     */
    default HandlerWatch handlerWatch() {
        return HandlerWatch.NONE;
    }
}
