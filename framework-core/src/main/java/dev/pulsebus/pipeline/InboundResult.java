package dev.pulsebus.pipeline;

/** What the pipeline did with an inbound event. */
public enum InboundResult {
    /** Seen before (same platform and event id): dropped, counted. */
    DUPLICATE,
    /** A middleware dropped it. */
    DROPPED,
    /** It answered a pending ask ({@link dev.pulsebus.event.Ask}), or cancelled asks: consumed, not routed or published. */
    ANSWERED,
    /** A command took it (whatever the command's outcome); not published on the bus. */
    COMMAND,
    /** Published on the event bus. */
    PUBLISHED
}
