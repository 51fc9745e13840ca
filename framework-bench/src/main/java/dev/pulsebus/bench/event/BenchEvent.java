package dev.pulsebus.bench.event;

import dev.pulsebus.bus.KeyedEvent;

/** The event every peer dispatches: a chat message reduced to its routing fields. */
public record BenchEvent(long chat, int n) implements KeyedEvent {

    @Override
    public Object orderingKey() {
        return chat;
    }
}
